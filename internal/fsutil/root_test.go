package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// WriteFileFS through RootFS writes inside the root only; a failed step leaves the old file
// and no temp file.
func TestRootFS(t *testing.T) {
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFileFS(RootFS(r), "sub/记忆.md", []byte("一\n"), FileMode); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "记忆.md")); err != nil || string(b) != "一\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../escape.md", "out/escape.md", filepath.Join(outside, "abs.md")} {
		if err := WriteFileFS(RootFS(r), p, []byte("x"), FileMode); err == nil {
			t.Errorf("%s: written outside the root", p)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files outside the root: %v", ents)
	}
	f := &Faulty{FS: RootFS(r), FailRename: 1}
	if err := WriteFileFS(f, "sub/记忆.md", []byte("二\n"), FileMode); !errors.Is(err, ErrInjected) {
		t.Fatalf("err = %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "记忆.md")); string(b) != "一\n" || len(ents) != 1 {
		t.Errorf("after a failed rename: %q, %d entries", b, len(ents))
	}
}
