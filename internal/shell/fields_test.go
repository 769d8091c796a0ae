package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestFields(t *testing.T) {
	for in, want := range map[string][]string{
		"vi":                     {"vi"},
		"  code --wait ":         {"code", "--wait"},
		`"/opt/My Editor/ed" -w`: {"/opt/My Editor/ed", "-w"},
		`'/Applications/Sublime Text.app/Contents/SharedSupport/bin/subl' -n -w`: {"/Applications/Sublime Text.app/Contents/SharedSupport/bin/subl", "-n", "-w"},
		`emacsclient -a '' -c`: {"emacsclient", "-a", "", "-c"},
		`/opt/My\ Editor/ed`:   {"/opt/My Editor/ed"},
		`"编辑器" --模式 '한국어'`:     {"编辑器", "--模式", "한국어"},
		`nano # comment`:       {"nano"},
	} {
		got, err := Fields(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Fields(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"":              "no command",
		"vi; rm -rf x":  "not one command",
		"vi $(id)":      "command substitution",
		"$HOME/bin/ed":  "parameter expansion",
		"vi > x":        "redirection",
		"FOO=1 vi":      "environment assignment",
		"vi *":          "glob",
		"'unterminated": "without closing quote",
		"vi | cat":      "not one command",
		"sh -c 'rm x'":  "", // one command of plain words: allowed (it is what the user set)
	} {
		_, err := Fields(in)
		switch {
		case why == "" && err != nil:
			t.Errorf("Fields(%q): %v", in, err)
		case why != "" && (err == nil || !strings.Contains(err.Error(), why)):
			t.Errorf("Fields(%q) error = %v, want one with %q", in, err, why)
		}
	}
}
