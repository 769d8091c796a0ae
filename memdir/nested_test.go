package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedIndexIsNoMemory: only the top-level MEMORY.md is the index. A MEMORY.md in a
// subdirectory is neither an index nor a memory (Claude Code's scan leaves out every file of
// that name): List, Changes and Get never give it, Lint mentions it, and topic files beside
// it in the subdirectory are memories as before.
func TestNestedIndexIsNoMemory(t *testing.T) {
	s := newTestStore(t, Options{})
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(s.Dir(), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("MEMORY.md", "- [deploy](team/deploy.md) — how we deploy\n")
	write("team/deploy.md", "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\nstaging first\n")
	write("team/MEMORY.md", "# Team memory\n\n- [deploy](deploy.md) — how we deploy\n")
	write("a/b/MEMORY.md", "- [x](x.md) — nested deeper\n")

	mems, diags, err := s.List(t.Context())
	if err != nil || len(diags) > 0 {
		t.Fatalf("List: %v %v", diags, err)
	}
	if len(mems) != 1 || mems[0].File != "team/deploy.md" {
		t.Errorf("List = %v; want only team/deploy.md", files(mems))
	}
	changed, _, _, err := s.Changes(t.Context(), Snapshot{})
	if err != nil || len(changed) != 1 || changed[0].File != "team/deploy.md" {
		t.Errorf("Changes = %v, %v; want only team/deploy.md", files(changed), err)
	}
	for _, name := range []string{"team/MEMORY", "team/MEMORY.md", "Team memory", "MEMORY"} {
		if m, err := s.Get(t.Context(), name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %s, %v; want ErrNotFound", name, m.File, err)
		}
	}
	lint, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mentioned := map[string]bool{}
	for _, d := range lint {
		if strings.Contains(d.Message, "neither the index") {
			rel, _ := filepath.Rel(s.Dir(), d.Path)
			mentioned[filepath.ToSlash(rel)] = true
		}
		if d.Severity == SevError {
			t.Errorf("lint error: %s", d)
		}
	}
	if len(mentioned) != 2 || !mentioned["team/MEMORY.md"] || !mentioned["a/b/MEMORY.md"] {
		t.Errorf("lint mentions %v; want team/MEMORY.md and a/b/MEMORY.md", mentioned)
	}
	for _, p := range []string{"MEMORY.md", "team/MEMORY.md", "sub/dir/MEMORY.md"} {
		if IsTopicFile(p) {
			t.Errorf("IsTopicFile(%q) = true", p)
		}
	}
	if !IsTopicFile("team/deploy.md") {
		t.Errorf("IsTopicFile(team/deploy.md) = false")
	}
}
