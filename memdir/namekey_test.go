package memdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestNamesThatLookTheSame: names a person reads as one — differing in case, in width
// (full-width letters from a Chinese or Japanese input method) or in Unicode form (a name
// typed on macOS is NFD) — are one name to lint and to Get; different names stay apart.
func TestNamesThatLookTheSame(t *testing.T) {
	nfd := norm.NFD.String("café rules")
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"Testing approach", "TESTING APPROACH", true},
		{"db port", "ＤＢ ｐｏｒｔ", true},
		{"café rules", nfd, true},
		{"数据库迁移", "数据库迁移", true},
		{"数据库迁移", "数据库迁移规则", false},
		{"db port", "db ports", false},
	} {
		if got := NameKey(tt.a) == NameKey(tt.b); got != tt.same {
			t.Errorf("NameKey(%q) == NameKey(%q) is %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}

	s, _ := Open(filepath.Join(t.TempDir(), "memory"), Options{})
	os.MkdirAll(s.Dir(), 0o700)
	write := func(file, name string) {
		os.WriteFile(filepath.Join(s.Dir(), file), []byte("---\nname: "+name+"\ndescription: d\ntype: project\n---\nbody of "+file+"\n"), 0o600)
	}
	write("a.md", "café rules")
	write("b.md", nfd)
	write("c.md", "db port")
	write("d.md", "ＤＢ ｐｏｒｔ")
	write("e.md", "数据库迁移规则")
	diags, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	warned := map[string]bool{}
	for _, d := range diags {
		if strings.Contains(d.Message, "differs only in case, width or Unicode form") {
			warned[filepath.Base(d.Path)] = true
		}
	}
	if len(warned) != 2 || !warned["b.md"] && !warned["a.md"] || !warned["c.md"] && !warned["d.md"] {
		t.Errorf("lint warned about %v, want one of each look-alike pair (a/b, c/d)", warned)
	}
	// Two memories share the key: a lookup that is neither exact name picks neither, and
	// says which they are, so that a forget cannot remove the wrong one.
	if m, err := s.Get(t.Context(), "DB PORT"); !errors.Is(err, ErrNotFound) || !strings.Contains(fmt.Sprint(err), "c.md, d.md") {
		t.Errorf(`Get("DB PORT") with two look-alikes = %s, %v; want ErrNotFound naming c.md and d.md`, m.File, err)
	}
	if _, err := s.Forget(t.Context(), "DB PORT", true); !errors.Is(err, ErrNotFound) || !strings.Contains(fmt.Sprint(err), "c.md, d.md") {
		t.Errorf(`Forget("DB PORT") with two look-alikes = %v; want ErrNotFound naming c.md and d.md, nothing removed`, err)
	}
	if m, err := s.Get(t.Context(), "ＤＢ ｐｏｒｔ"); err != nil || m.File != "d.md" {
		t.Errorf("Get of the exact full-width name = %s, %v; want d.md", m.File, err)
	}
	os.Remove(filepath.Join(s.Dir(), "c.md")) // one left: case and width aside, it is found
	m, err := s.Get(t.Context(), "DB PORT")
	if err != nil || m.File != "c.md" && m.File != "d.md" {
		t.Errorf(`Get("DB PORT") = %s, %v; want one of the db port memories`, m.File, err)
	}
	if m, err := s.Get(t.Context(), "ｄｂ ｐｏｒｔ"); err != nil || m.File != "d.md" && m.File != "c.md" {
		t.Errorf("Get of the full-width name = %s, %v", m.File, err)
	}
	if _, err := s.Get(t.Context(), "数据库迁移"); err == nil {
		t.Errorf("Get of a shorter Chinese name found a memory")
	}
}
