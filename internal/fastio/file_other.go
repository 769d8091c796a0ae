//go:build !unix

package fastio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileID identifies a file; without inodes, by its cleaned path.
type FileID struct{ path string }

// File is an open file. Here it is stat-ed before it is opened, and only a regular file is
// opened (so that a special file never blocks); for anything else Stat still answers and
// reads fail.
type File struct {
	f    *os.File
	info Info
	name string
}

// errSymlink is the error Open gives with noFollow on a symlink.
var errSymlink = errors.New("is a symlink")

// Open stats path (lstat with noFollow) and opens it when it is a regular file. With
// noFollow a symlink fails (IsSymlinkErr).
func Open(path string, noFollow bool) (File, error) {
	info, err := StatPath(path, noFollow)
	if err != nil {
		return File{}, err
	}
	if info.Mode&fs.ModeSymlink != 0 {
		return File{}, &fs.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	f := File{info: info, name: path}
	if info.Mode.IsRegular() {
		if f.f, err = os.Open(path); err != nil {
			return File{}, err
		}
	}
	return f, nil
}

// Name is the name the file was opened by.
func (f File) Name() string { return f.name }

// Stat returns what the stat before the open said.
func (f File) Stat() (Info, error) { return f.info, nil }

// Pread reads into b at offset off: fewer bytes than asked only at the end of the file.
func (f File) Pread(b []byte, off int64) (int, error) {
	if f.f == nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrNotRegular}
	}
	n, err := f.f.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// ReadAt reads len(b) bytes at off (io.ReaderAt): io.EOF when the file ends first.
func (f File) ReadAt(b []byte, off int64) (int, error) {
	if f.f == nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: ErrNotRegular}
	}
	return f.f.ReadAt(b, off)
}

// Close closes the file.
func (f File) Close() error {
	if f.f == nil {
		return nil
	}
	return f.f.Close()
}

// IsSymlinkErr reports the error Open gives with noFollow on a symlink.
func IsSymlinkErr(err error) bool { return errors.Is(err, errSymlink) }

// StatPath returns what stat (lstat with noFollow) says about path.
func StatPath(path string, noFollow bool) (Info, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return Info{}, err
	}
	return Info{Mode: fi.Mode().Type(), Size: fi.Size(), MTime: fi.ModTime().UnixNano(), ID: FileID{filepath.Clean(path)}}, nil
}

// ReadPrefix reads the start of the file at path into buf, up to len(buf) bytes or the end of
// the file, and returns how many bytes it read.
func ReadPrefix(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// ReadHead reads the start of the regular file at path, at most limit bytes, into *buf
// (grown as needed and kept for the next file) and returns those bytes and what stat said. A
// file that is not regular gives ErrNotRegular, unread.
func ReadHead(path string, buf *[]byte, limit int64) ([]byte, Info, error) {
	f, err := Open(path, false)
	if err != nil {
		return nil, Info{}, err
	}
	defer f.Close()
	if !f.info.Mode.IsRegular() {
		return nil, Info{}, ErrNotRegular
	}
	data := grow(buf, int(min(max(f.info.Size, 0), limit)))
	n, err := io.ReadFull(f.f, data)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, Info{}, err
	}
	return data[:n], f.info, nil
}

// CPUTime returns the CPU time this process has used; 0 here, where it is not measured.
func CPUTime() time.Duration { return 0 }

// MaxRSSKB returns the peak resident memory of the exited process ps in KB; here it is not
// measured (ok false).
func MaxRSSKB(ps *os.ProcessState) (kb float64, ok bool) { return 0, false }
