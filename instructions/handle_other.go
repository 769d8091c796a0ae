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
	f       *os.File
	id      fileID
	mode    fs.FileMode
	size    int64
	statted bool // always: openHandle stats first

	loaded    bool
	buf       *[]byte
	data      []byte
	truncated bool
	identity  *ident // made by ident
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
	h := &handle{id: fileID{filepath.Clean(path)}, mode: fi.Mode() & fs.ModeType, size: fi.Size(), statted: true}
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

// openHandleIn is openHandle(dir/name, true).
func openHandleIn(b *base, dir, name string) (*handle, error) {
	return openHandle(under(dir, name), true)
}

func (h *handle) stat() error { return nil }

func (h *handle) close() {
	if h.f != nil {
		h.f.Close()
	}
	if h.identity != nil {
		h.identity.open = nil
	}
	if h.buf != nil {
		readBufs.Put(h.buf)
		h.buf = nil
	}
}

// load reads at most max bytes of a regular file into data.
func (h *handle) load(max int64) error {
	if h.loaded || !h.mode.IsRegular() {
		return nil
	}
	h.loaded = true
	n := h.size
	if n > max {
		n, h.truncated = max, true
	}
	h.buf = readBufs.Get().(*[]byte)
	buf := *h.buf
	if n <= int64(len(buf)) {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	got, err := io.ReadFull(h.f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	h.data = buf[:got]
	return nil
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

// statID returns the identity of path's file.
func statID(path string) (fileID, error) {
	if _, err := os.Stat(path); err != nil {
		return fileID{}, err
	}
	return fileID{filepath.Clean(path)}, nil
}
