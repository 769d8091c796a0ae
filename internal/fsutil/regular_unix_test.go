//go:build unix

package fsutil

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every file a repository or another process controls can be a FIFO, a device or a huge
// sparse file: OpenRegular and ReadRegular refuse each at once, naming the path, and read a
// regular file within the cap unchanged.
func TestReadRegularRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := filepath.Join(dir, "zero.md")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.md")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 30); err != nil { // 100 GB, no blocks
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	sub := filepath.Join(dir, "sub.md")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
		kind string
	}{
		{fifo, ErrNotRegular, "FIFO"},
		{zero, ErrNotRegular, "character device"},
		{sparse, ErrTooLarge, "107374182400 bytes"},
		{sub, ErrNotRegular, "directory"},
	} {
		err := within(t, func() error { _, err := ReadRegular(tc.path, 1<<20); return err })
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.kind) {
			t.Errorf("ReadRegular(%s) = %v, want %v naming the path and %q", filepath.Base(tc.path), err, tc.want, tc.kind)
		}
		err = within(t, func() error {
			f, _, err := OpenRegular(tc.path, 1<<20)
			if f != nil {
				f.Close()
			}
			return err
		})
		if !errors.Is(err, tc.want) {
			t.Errorf("OpenRegular(%s) = %v, want %v", filepath.Base(tc.path), err, tc.want)
		}
	}

	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := within(t, func() error { _, err := ReadRegularIn(r, "fifo.md", 1<<20); return err }); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadRegularIn(fifo) = %v, want ErrNotRegular", err)
	}
	// The root keeps its rule: a symlink out of it is refused before any type check.
	if err := within(t, func() error { _, err := ReadRegularIn(r, "zero.md", 1<<20); return err }); err == nil {
		t.Error("ReadRegularIn followed a symlink out of the root")
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "记忆.md")
	want := strings.Repeat("한국어 memory\n", 1000)
	if err := os.WriteFile(p, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRegular(p, int64(len(want)))
	if err != nil || string(got) != want {
		t.Fatalf("ReadRegular at the cap = %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	if got, err := ReadRegular(p, math.MaxInt64); err != nil || string(got) != want {
		t.Errorf("ReadRegular without a cap = %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	if _, err := ReadRegular(p, int64(len(want))-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadRegular one byte over the cap = %v, want ErrTooLarge", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing.md"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadRegular(missing) = %v, want ErrNotExist", err)
	}
}

// within runs fn and fails the test if it does not return in 5 seconds (a blocked open).
func within(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
		return nil
	}
}

func TestPathReadFileRefusesFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	p, err := NewPath(root, "pipe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadFile(1 << 20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile of a FIFO: %v, want ErrNotRegular", err)
	}
}
