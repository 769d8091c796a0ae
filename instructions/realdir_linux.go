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
// directory, and a descriptor of it that the caller closes (-1 when there is none). A
// directory reached without any symlink is already resolved: openat2 with RESOLVE_NO_SYMLINKS
// says so in one system call. Otherwise the kernel says where an open descriptor points (one
// readlink instead of one lstat per path element); without openat2 or /proc it falls back to
// the portable route.
func resolveDir(dir string) (string, int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	for err == syscall.EINTR {
		fd, err = unix.Openat2(unix.AT_FDCWD, dir, &how)
	}
	switch err {
	case nil:
		return filepath.Clean(dir), fd, nil
	case syscall.ENOENT, syscall.ENOTDIR:
		return "", -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	// ELOOP: a symlink on the way; ENOSYS, EPERM: no openat2 here.
	fd, err = syscall.Open(dir, unix.O_PATH|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err == syscall.ENOENT || err == syscall.ENOTDIR {
		return "", -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	if err != nil {
		r, err := resolveDirSlow(dir)
		return r, -1, err
	}
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		syscall.Close(fd)
		r, err := resolveDirSlow(dir)
		return r, -1, err
	}
	return filepath.Clean(string(buf[:n])), fd, nil
}

// closeDir closes a descriptor resolveDir returned.
func closeDir(fd int) { syscall.Close(fd) }
