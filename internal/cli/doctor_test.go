package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/sandbox"
)

// Where the kernel lacks what the sandbox needs, doctor says so and what then holds.
func TestDoctorSaysWhyNot(t *testing.T) {
	off := false
	for _, c := range []struct {
		name string
		st   sandbox.Status
		s    config.Settings
		want []string
	}{
		{"no landlock", sandbox.Status{Landlock: "this kernel has no Landlock", Helper: true, NamespacesWhy: "x"}, config.Settings{},
			[]string{"sandbox: not active: this kernel has no Landlock\n", "commands run unconfined", "Bash tool: workspace-write, not in force here"}},
		{"no namespaces", sandbox.Status{ABI: 7, Helper: true, NamespacesWhy: "unprivileged user namespaces are not available: EPERM"}, config.Settings{SandboxNetwork: &off},
			[]string{"sandbox: active (Landlock ABI 7)", "namespaces: unavailable: unprivileged user namespaces are not available: EPERM", "can write the project's .git and .claude", "network off"}},
		{"old abi", sandbox.Status{ABI: 3, Helper: true, Namespaces: true}, config.Settings{},
			[]string{"network: not restricted (Landlock ABI 4 is needed)", "namespaces: available"}},
		{"off", sandbox.Status{ABI: 7, Helper: true, Namespaces: true}, config.Settings{Sandbox: config.SandboxOff},
			[]string{"Bash tool: off (sandbox setting)"}},
	} {
		var b bytes.Buffer
		newSandboxReport(c.st, c.s).write(&b)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: report lacks %q:\n%s", c.name, w, b.String())
			}
		}
	}
}
