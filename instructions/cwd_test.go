package instructions

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLoadCwd: the working directory comes back with symlinks resolved however it was spelled,
// the chain is walked through the real directories, and a cwd that is missing or not a
// directory is an error.
func TestLoadCwd(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":     "root\n",
		"repo/sub/CLAUDE.md": "sub\n",
		"elsewhere/link":     "->../repo/sub",
		"elsewhere/file":     "not a directory\n",
	})
	real := filepath.Join(f.dir, "repo", "sub")
	for _, cwd := range []string{real, filepath.Join(f.dir, "elsewhere", "link"), filepath.Join(f.dir, "repo", "sub", ".", "..", "sub")} {
		s, err := Load(context.Background(), cwd, f.opts)
		if err != nil {
			t.Fatalf("Load(%s): %v", cwd, err)
		}
		if s.Cwd() != real {
			t.Errorf("Load(%s).Cwd() = %s, want %s", cwd, s.Cwd(), real)
		}
		if got := f.rel(s.Sources()); len(got) != 2 || got[0] != "project:session_start:repo/CLAUDE.md" || got[1] != "project:session_start:repo/sub/CLAUDE.md" {
			t.Errorf("Load(%s) sources = %v", cwd, got)
		}
	}
	for _, cwd := range []string{filepath.Join(f.dir, "missing"), filepath.Join(f.dir, "elsewhere", "file")} {
		if _, err := Load(context.Background(), cwd, f.opts); err == nil {
			t.Errorf("Load(%s) did not fail", cwd)
		}
	}
}
