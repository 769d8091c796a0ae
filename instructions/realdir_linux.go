//go:build linux

package instructions

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// resolveDir returns dir (absolute) with every symlink resolved, failing when it is not a
// directory. A directory reached without any symlink is already resolved: openat2 with
// RESOLVE_NO_SYMLINKS says so in two system calls (open, close). Otherwise the kernel says
// where an open descriptor points (three calls instead of one lstat per path element);
// without openat2 or /proc it falls back to the portable route.
func resolveDir(dir string) (string, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	for err == syscall.EINTR {
		fd, err = unix.Openat2(unix.AT_FDCWD, dir, &how)
	}
	switch err {
	case nil:
		unix.Close(fd)
		return filepath.Clean(dir), nil
	case syscall.ENOENT, syscall.ENOTDIR:
		return "", &os.PathError{Op: "open", Path: dir, Err: err}
	}
	// ELOOP: a symlink on the way; ENOSYS, EPERM: no openat2 here.
	fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err == syscall.ENOENT || err == syscall.ENOTDIR {
		return "", &os.PathError{Op: "open", Path: dir, Err: err}
	}
	if err != nil {
		return resolveDirSlow(dir) // e.g. a directory we may enter but not read
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		return resolveDirSlow(dir)
	}
	return filepath.Clean(string(buf[:n])), nil
}
