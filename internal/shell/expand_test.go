package shell

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestExpand: brace expansion as bash makes it; the words are compared with what bash
// itself passes when it is installed.
func TestExpand(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"git {push,}", []string{"git", "push"}},
		{"{rm,-rf,x}", []string{"rm", "-rf", "x"}},
		{"go test {-exec,./evil} ./...", []string{"go", "test", "-exec", "./evil", "./..."}},
		{"go test -e{x,}ec x", []string{"go", "test", "-exec", "-eec", "x"}},
		{"echo a{b,c}d", []string{"echo", "abd", "acd"}},
		{"echo {a..c}", []string{"echo", "a", "b", "c"}},
		{"echo {3..1}", []string{"echo", "3", "2", "1"}},
		{"echo {1..7..3}", []string{"echo", "1", "4", "7"}},
		{"echo {a,{b,c}}", []string{"echo", "a", "b", "c"}},
		{"echo {a{b,c}", []string{"echo", "{ab", "{ac"}},
		{"echo {x} {} {a..}", []string{"echo", "{x}", "{}", "{a..}"}},
		{"echo 'x{a,b}'", []string{"echo", "x{a,b}"}},
		{"echo 한{글,국}", []string{"echo", "한글", "한국"}},
	} {
		s, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		got, ok := Expand(s.Commands[0].Words)
		if !ok {
			t.Fatalf("Expand(%q) refused", tt.in)
		}
		var texts []string
		for _, w := range got {
			texts = append(texts, w.Text)
		}
		if !slices.Equal(texts, tt.want) {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, texts, tt.want)
		}
		if bash, err := exec.LookPath("bash"); err == nil {
			out, err := exec.Command(bash, "-c", `f() { printf '%s\n' "$@"; }; f `+tt.in).Output()
			if err != nil {
				t.Fatalf("bash %q: %v", tt.in, err)
			}
			if b := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(b, tt.want) {
				t.Errorf("bash makes %q of %q, the test wants %q", b, tt.in, tt.want)
			}
		}
	}
	big := strings.Repeat("{a,b}", 11) // 2048 words
	if _, ok := Expand(parsed(t, "x "+big)); ok {
		t.Errorf("Expand of %d words was not refused", 1<<11)
	}
	if _, ok := Expand(parsed(t, "x {1..99999999999}")); ok {
		t.Errorf("Expand of a huge sequence was not refused")
	}
}

// TestExpandLargeWords: a crafted word (many brace groups, or deeply nested ones) is refused
// as too large to expand, at once: before the bound, 50,000 groups took minutes.
func TestExpandLargeWords(t *testing.T) {
	for _, w := range []string{
		strings.Repeat("{a,b}", 50000),
		strings.Repeat("{", 50000) + "a,b" + strings.Repeat("}", 50000),
	} {
		done := make(chan bool)
		go func() {
			ws := parsed(t, "go "+w)
			_, ok := Expand(ws)
			done <- !ok && ws[1].Glob && mayBeOption(ws[1])
		}()
		select {
		case ok := <-done:
			if !ok {
				t.Errorf("a word of %d bytes was expanded, or not taken as a possible option", len(w))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Expand of a word of %d bytes takes more than 10 s", len(w))
		}
	}
}

// parsed returns the words of the first command of src.
func parsed(t *testing.T, src string) []Word {
	t.Helper()
	s, err := Parse(src)
	if err != nil || len(s.Commands) == 0 {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return s.Commands[0].Words
}
