package instructions

import (
	"context"
	"os"
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

// TestLoadCwdNotSearchable: a working directory we may not search still loads its parents'
// files (looked up by their names, not relative to it), and its own are reported unreadable.
func TestLoadCwdNotSearchable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not apply")
	}
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":     "root\n",
		"repo/sub/CLAUDE.md": "sub\n",
	})
	cwd := filepath.Join(f.dir, "repo", "sub")
	if err := os.Chmod(cwd, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cwd, 0o700) })
	s, err := Load(context.Background(), cwd, f.opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := f.rel(s.Sources()); len(got) != 1 || got[0] != "project:session_start:repo/CLAUDE.md" {
		t.Errorf("sources = %v, want the parent's CLAUDE.md", got)
	}
	if !hasDiag(s.Diagnostics(), SeverityError, "repo/sub/CLAUDE.md", "permission denied") {
		t.Errorf("no permission error for the working directory's own file: %v", f.diags(s.Diagnostics()))
	}
}
