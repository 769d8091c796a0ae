//go:build !unix

package instructions

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// fileID identifies a file; without inodes, by its cleaned absolute path.
type fileID struct{ path string }

// handle is an open file and what stat said about it.
type handle struct {
	f    *os.File
	id   fileID
	mode fs.FileMode
	size int64
}

// openHandle stats path first (so a special file is never opened) and then opens it.
func openHandle(path string, noFollow bool) (*handle, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	h := &handle{id: fileID{filepath.Clean(path)}, mode: fi.Mode() & fs.ModeType, size: fi.Size()}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	if fi.Mode().IsRegular() {
		if h.f, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *handle) close() {
	if h.f != nil {
		h.f.Close()
	}
}

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
	got, err := io.ReadFull(h.f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false, err
	}
	return buf[:got], truncated, nil
}

var errSymlink = errors.New("is a symlink")

// isSymlinkErr reports the error openHandle gives with noFollow on a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, errSymlink) }

// statType returns the type bits of path's file, following a final symlink unless noFollow.
func statType(path string, noFollow bool) (fs.FileMode, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}
