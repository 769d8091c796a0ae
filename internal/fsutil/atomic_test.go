package fsutil

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWriteFileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.md")
	if err := WriteFile(p, []byte("one"), FileMode); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), FileMode); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "two" {
		t.Fatalf("content = %q, want two", got)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(p))
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode = %v, want 0700", di.Mode().Perm())
	}
}

func TestWriteFileFailuresKeepOldContent(t *testing.T) {
	cases := map[string]*Faulty{
		"create": {FailCreate: 1},
		"write":  {FailWrite: 1},
		"sync":   {FailSync: 1},
		"rename": {FailRename: 1},
	}
	for name, fs := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.md")
			if err := WriteFile(p, []byte("old"), FileMode); err != nil {
				t.Fatal(err)
			}
			err := WriteFileFS(fs, p, []byte("new content"), FileMode)
			if !errors.Is(err, ErrInjected) {
				t.Fatalf("err = %v, want injected", err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != "old" {
				t.Fatalf("content = %q, want old", got)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("dir has %d entries, want 1 (temp file left behind?)", len(ents))
			}
		})
	}
}

func TestLockSerializes(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	var mu sync.Mutex
	inside := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			unlock, err := Lock(context.Background(), p)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			if inside != 1 {
				t.Error("two holders at once")
			}
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		})
	}
	wg.Wait()
}
