//go:build unix

package instructions

import (
	"errors"
	"io/fs"
	"syscall"
)

// fileID identifies a file whatever name reached it.
type fileID struct{ dev, ino uint64 }

// handle is an open file and what fstat said about it. Raw system calls keep a load cheap: no
// poller registration, one fstat, one read for a small file.
type handle struct {
	fd   int
	id   fileID
	mode fs.FileMode
	size int64
}

// openHandle opens path read-only and non-blocking (a FIFO or device never blocks) and fstats
// it. With noFollow, a symlink as the last element fails with ELOOP.
func openHandle(path string, noFollow bool) (*handle, error) {
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	return &handle{fd: fd, id: fileID{uint64(st.Dev), uint64(st.Ino)}, mode: modeOf(uint32(st.Mode)), size: int64(st.Size)}, nil
}

func (h *handle) close() { syscall.Close(h.fd) }

// read reads at most max bytes of a regular file into buf when it fits there (else into a new
// slice); truncated reports that the file is longer.
func (h *handle) read(max int64, buf []byte) ([]byte, bool, error) {
	n, truncated := h.size, false
	if n > max {
		n, truncated = max, true
	}
	if n <= int64(cap(buf)) {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	got := 0
	for got < len(buf) {
		m, err := syscall.Read(h.fd, buf[got:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false, &fs.PathError{Op: "read", Err: err}
		}
		if m == 0 {
			break // the file shrank since fstat
		}
		got += m
	}
	return buf[:got], truncated, nil
}

func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// isSymlinkErr reports the error openHandle gives with noFollow on a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// statType returns the type bits of path's file, following a final symlink unless noFollow.
// It allocates nothing on the way: most calls are probes of names that do not exist.
func statType(path string, noFollow bool) (fs.FileMode, error) {
	var st syscall.Stat_t
	var err error
	for {
		if noFollow {
			err = syscall.Lstat(path, &st)
		} else {
			err = syscall.Stat(path, &st)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, err
	}
	return modeOf(uint32(st.Mode)), nil
}
