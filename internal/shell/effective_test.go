package shell

import (
	"slices"
	"testing"
)

// TestSeesThroughWrappers: every way of hiding rm behind a wrapper, a quote, a group or a
// subshell still lists "rm x" among the commands, the list that both the permission check's
// deny rules and the extractor's read-only policy go through.
func TestSeesThroughWrappers(t *testing.T) {
	for _, in := range []string{
		`\rm x`, `r\m x`, `"rm" x`, `'r'm x`,
		`command rm x`, `command -p rm x`, `command -- rm x`, `\command \rm x`,
		`builtin rm x`, `builtin command rm x`,
		`env rm x`, `env -i FOO=1 rm x`, `env -- rm x`, `/usr/bin/env rm x`, `env -S 'rm x'`,
		`{ rm x; }`, `( rm x )`, `(rm x)`, `{ { rm x; }; }`, `( ( rm x ) )`,
		`exec rm x`, `exec -a name rm x`,
		`nohup rm x`, `nohup -- rm x`,
		`time rm x`, `time -p rm x`, `time -p -- rm x`, `! time rm x`,
		`echo x | xargs rm`, `xargs -0 rm x`, `xargs --null rm x`, `xargs -I{} rm x`,
		`nice -n 5 nohup env rm x`, `sudo -u root rm x`, `sh -c 'rm x'`, `eval 'rm x'`,
		`ls; rm x`, `ls && rm x`, `ls | rm x`, `ls & rm x`, `echo $(rm x)`, "echo `rm x`",
		`find . -exec rm x \;`, `if true; then rm x; fi`, `cat <(rm x)`,
	} {
		s, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		found := false
		for _, c := range s.Commands {
			var ws []string
			for _, w := range c.Words {
				ws = append(ws, w.Text)
			}
			if slices.Equal(ws, []string{"rm", "x"}) || slices.Equal(ws, []string{"rm"}) {
				found = true
			}
		}
		if !found {
			t.Errorf("Parse(%q) does not list rm among its commands: %s", in, summary(s))
		}
	}
}
