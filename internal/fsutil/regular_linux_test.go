package fsutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The file OpenRegular returns is blocking again, as any other opened file.
func TestOpenRegularBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.md")
	if err := os.WriteFile(p, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, fi, err := OpenRegular(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi.Size() != 3 {
		t.Errorf("size = %d, want 3", fi.Size())
	}
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl uintptr
	var errno syscall.Errno
	rc.Control(func(fd uintptr) { fl, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	if errno != 0 {
		t.Fatal(errno)
	}
	if fl&syscall.O_NONBLOCK != 0 {
		t.Error("OpenRegular returned a file still in non-blocking mode")
	}
}
