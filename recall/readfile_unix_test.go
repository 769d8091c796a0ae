//go:build unix

package recall

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadPrefixFIFO: a FIFO put where a memory file was must not hang a build.
func TestReadPrefixFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.md")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// With no writer, a blocking open would hang here; the non-blocking one reads nothing
	// (or fails), and either way returns.
	n, _ := readPrefix(p, make([]byte, 8))
	if n != 0 {
		t.Errorf("read %d bytes from an empty FIFO", n)
	}
}

// TestReadStatFIFO: a FIFO is refused without blocking.
func TestReadStatFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.md")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var buf []byte
	if _, _, _, err := readStat(p, &buf, 8); !errors.Is(err, errNotRegular) {
		t.Errorf("err = %v, want errNotRegular", err)
	}
}
