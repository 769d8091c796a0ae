package instructions

import (
	"os"
	"path/filepath"
	"testing"
)

// resolveAllowed answers as filepath.EvalSymlinks does (its path, or the path as written when it
// fails) for every kind of STRATA_HOME or managed directory.
func TestResolveAllowedAsEvalSymlinks(t *testing.T) {
	dir := t.TempDir()
	mkdir := func(p string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("real/home")
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link("real", "link")
	link("file", "filelink")
	link("missing", "dangling")
	link("link", "chain")
	for _, p := range []string{"real/home", "real/home/", "link/home", "chain/home", "missing", "missing/x", "link/missing",
		"file", "file/x", "filelink", "dangling", "dangling/x", "real/../link/home"} {
		d := filepath.Join(dir, p)
		want := d
		if r, err := filepath.EvalSymlinks(d); err == nil {
			want = r
		}
		if got := resolveAllowed(d); got != want {
			t.Errorf("resolveAllowed(%s) = %q, EvalSymlinks says %q", p, got, want)
		}
	}
}
