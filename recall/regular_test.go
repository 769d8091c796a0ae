//go:build unix

package recall

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// A FIFO in the memory dir, named like a memory or like the stats sidecar, is refused at once
// by every reader recall has, never waited on.
func TestFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(mem, 0o600); err != nil {
		t.Skip(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, StatsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"readMemory": func() error { _, _, err := readMemory(mem, "pipe.md", 1<<20); return err },
		"ReadHeader": func() error { _, _, err := ReadHeader(mem, "pipe.md"); return err },
		"Stats.Load": func() error { _, err := NewStats(dir).Load(t.Context()); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if !errors.Is(err, fsutil.ErrNotRegular) {
				t.Errorf("%s of a FIFO = %v, want ErrNotRegular", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocked on a FIFO", name)
		}
	}
}
