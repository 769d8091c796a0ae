//go:build unix

package fastio

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFIFO: a FIFO with no writer never blocks an open, and is refused or read as empty.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.md")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f, err := Open(p, true)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	f.Close()
	if err != nil || info.Mode&fs.ModeNamedPipe == 0 {
		t.Errorf("Stat = %v, %v; want a named pipe", info.Mode, err)
	}
	var buf []byte
	if _, _, err := ReadHead(p, &buf, 8); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadHead: %v, want ErrNotRegular", err)
	}
	if n, _ := ReadPrefix(p, make([]byte, 8)); n != 0 {
		t.Errorf("ReadPrefix read %d bytes from an empty FIFO", n)
	}
}
