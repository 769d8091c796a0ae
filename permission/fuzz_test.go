package permission

import "testing"

// FuzzParseRule: any pattern either parses into a rule that formats back to an equivalent
// pattern, or is refused; matching a parsed rule never panics.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Read", "Bash(go test:*)", "Edit(src/**)", "Bash(", "(x)", "Edit({a,b}/*.go)", "Bash(rm:*)", "Edit(~/x)", "Edit(//abs)", "Bash(中文:*)", ")()", "Bash (x)"} {
		f.Add(s, "go test ./... && rm -rf /", "/p/src/a.go")
	}
	f.Fuzz(func(t *testing.T, pattern, command, path string) {
		r, err := ParseRule(pattern)
		if err != nil {
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseRule(%q) = %+v, but its String %q parses to %+v, %v", pattern, r, r.String(), again, err)
		}
		p := &Set{Mode: ModeAsk, Cwd: "/p", Home: "/home/u", Allow: []Rule{r}, Deny: []Rule{r}}
		s := Subject{Command: command, Path: path}
		if d, _ := p.Check(r.Tool, ClassExec, s); d == Allow {
			t.Fatalf("rule %+v is both allow and deny, but the allow won", r)
		}
	})
}
