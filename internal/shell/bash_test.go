package shell

import (
	"os/exec"
	"testing"
)

// TestBashFeaturesStayBash: strata keeps running commands with bash and decides on the
// parsed syntax tree. Commands users run that mvdan.cc/sh's interpreter does not run as bash
// does (ulimit and umask are not its builtins, exec 3>&1 is refused, printf -v prints "-v",
// read -t is refused, $BASH_VERSION is unset, coproc is not run) are read by Parse — so a
// rule can be decided on them — and run under bash as written.
func TestBashFeaturesStayBash(t *testing.T) {
	cmds := map[string][]string{ // command → the programs Parse lists
		"ulimit -n":                                 {"ulimit"},
		"umask":                                     {"umask"},
		"exec 3>&1; echo hi >&3":                    {"exec", "echo"},
		"printf -v x %s y; test \"$x\" = y":         {"printf", "test"},
		"read -t 1 x < /dev/null; true":             {"read", "true"},
		"test -n \"$BASH_VERSION\"":                 {"test"},
		"coproc cat; kill $COPROC_PID":              {"cat", "kill"},
		"set -o pipefail; true | true":              {"set", "true", "true"},
		"shopt -s globstar; ls -d ./**/ >/dev/null": {"shopt", "ls"},
	}
	bash, bashErr := exec.LookPath("bash")
	for cmd, want := range cmds {
		s, err := Parse(cmd)
		if err != nil {
			t.Errorf("Parse(%q): %v", cmd, err)
			continue
		}
		var got []string
		for _, c := range s.Commands {
			if len(c.Words) > 0 {
				got = append(got, c.Words[0].Text)
			}
		}
		if len(got) != len(want) {
			t.Errorf("Parse(%q) lists %q, want %q", cmd, got, want)
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("Parse(%q) lists %q, want %q", cmd, got, want)
				break
			}
		}
		if bashErr == nil {
			if out, err := exec.Command(bash, "-c", cmd).CombinedOutput(); err != nil {
				t.Errorf("bash -c %q: %v\n%s", cmd, err, out)
			}
		}
	}
}
