package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/sandbox"
)

func newDoctorCmd(app *App) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Report what confines the commands strata runs, and why not",
		Long: `Doctor reports whether the sandbox confines the commands the agent and its background
forks run: the kernel's Landlock ABI, whether user namespaces keep .git and .claude read-only,
and the sandbox settings of the Bash tool (user and managed settings only).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			root := ""
			if wd, err := app.Getwd(); err == nil {
				root = config.ProjectRoot(wd)
			}
			s, _ := app.Env.Load(root) // a project's files cannot set the sandbox keys (config drops them)
			r := newSandboxReport(sandbox.Probe(), s)
			if asJSON {
				return writeJSON(app.Out, r)
			}
			r.write(app.Out)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// sandboxReport is doctor's answer.
type sandboxReport struct {
	Active        bool   `json:"active"`
	Why           string `json:"why,omitempty"` // why commands run unconfined
	LandlockABI   int    `json:"landlockABI"`
	Namespaces    bool   `json:"namespaces"`
	NamespacesWhy string `json:"namespacesWhy,omitempty"`
	Bash          string `json:"bash"` // the sandbox setting: workspace-write or off
	Network       bool   `json:"network"`
}

func newSandboxReport(st sandbox.Status, s config.Settings) sandboxReport {
	r := sandboxReport{Active: st.Active(), Why: st.Why(), LandlockABI: st.ABI, Namespaces: st.Namespaces, NamespacesWhy: st.NamespacesWhy,
		Bash: config.SandboxWorkspaceWrite, Network: s.SandboxNet()}
	if !s.SandboxOn() {
		r.Bash = config.SandboxOff
	}
	return r
}

func (r sandboxReport) write(w io.Writer) {
	if !r.Active {
		fmt.Fprintf(w, "sandbox: not active: %s\n", r.Why)
		fmt.Fprintln(w, "  commands run unconfined; the permission checks alone decide what they may do")
	} else {
		fmt.Fprintf(w, "sandbox: active (Landlock ABI %d)\n", r.LandlockABI)
		fmt.Fprintln(w, "  background forks: write the memory dir and a private temp dir only, no network, no secrets in the environment")
		if r.LandlockABI < 4 {
			fmt.Fprintln(w, "  network: not restricted (Landlock ABI 4 is needed)")
		}
	}
	if r.Namespaces {
		fmt.Fprintln(w, "namespaces: available (.git, .claude and STRATA_HOME stay read-only)")
	} else {
		fmt.Fprintf(w, "namespaces: unavailable: %s\n", r.NamespacesWhy)
		if r.Active && r.Bash != config.SandboxOff {
			fmt.Fprintln(w, "  Bash commands can write the project's .git and .claude (the permission checks still ask)")
		}
	}
	switch {
	case r.Bash == config.SandboxOff:
		fmt.Fprintln(w, "Bash tool: off (sandbox setting): commands run unconfined")
	case !r.Active:
		fmt.Fprintln(w, "Bash tool: workspace-write, not in force here")
	default:
		net := "on"
		if !r.Network {
			net = "off"
		}
		fmt.Fprintf(w, "Bash tool: workspace-write: writes the project, the temp dirs and the build caches; network %s\n", net)
	}
}
