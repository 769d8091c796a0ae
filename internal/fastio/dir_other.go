//go:build !linux

package fastio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is an open directory. Elsewhere than on Linux no descriptor is kept: names are looked up
// by their full path.
type Dir struct {
	path string
}

// ReadDir reads the entries of the directory at path that are regular files and whose names
// pass keep, in the order os.ReadDir gives (sorted by name). A missing directory gives an
// error that matches fs.ErrNotExist.
func ReadDir(path string, keep func(name string) bool) (*Dir, []Entry, error) {
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, err
	}
	var ents []Entry
	for _, e := range des {
		if e.Type().IsRegular() && keep(e.Name()) { // os.ReadDir resolved unknown types
			ents = append(ents, Entry{Name: e.Name(), Regular: true})
		}
	}
	return &Dir{path: path}, ents, nil
}

// errDirSymlink is ReadDirAll's error, with noFollow, for a symlink.
var errDirSymlink = errors.New("is a symlink")

// ReadDirAll is ReadDir for entries of every type, with their types; with noFollow, a path
// that is a symlink is refused instead of followed.
func ReadDirAll(path string, noFollow bool, keep func(name string) bool) (*Dir, []Entry, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err != nil {
			return nil, nil, err
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: errDirSymlink}
		}
	}
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, err
	}
	var ents []Entry
	for _, e := range des {
		if keep(e.Name()) {
			t := e.Type()
			ents = append(ents, Entry{Name: e.Name(), Regular: t.IsRegular(), Dir: t.IsDir(), Symlink: t&fs.ModeSymlink != 0})
		}
	}
	return &Dir{path: path}, ents, nil
}

// ResolveDir returns dir (absolute) with every symlink resolved, failing when it is not a
// directory; no directory is kept open here (nil).
func ResolveDir(dir string) (string, *Dir, error) {
	r, err := ResolveDirSlow(dir)
	return r, nil, err
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Close does nothing here: no descriptor is kept.
func (d *Dir) Close() error { return nil }

// DisableStatx does nothing here (there is no statx); it exists for tests.
func DisableStatx() (restore func()) { return func() {} }

// Lstat returns what lstat says about name in d. The error is an *fs.PathError.
func (d *Dir) Lstat(name string) (Info, error) {
	p := filepath.Join(d.path, name)
	info, err := StatPath(p, true)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	return info, nil
}

// Type returns the type bits of name in d (a clean relative path), following a final symlink
// unless noFollow.
func (d *Dir) Type(name string, noFollow bool) (fs.FileMode, error) {
	info, err := StatPath(filepath.Join(d.path, name), noFollow)
	return info.Mode, err
}

// Open opens name in d (a clean relative path) like Open.
func (d *Dir) Open(name string, noFollow bool) (File, error) {
	return Open(filepath.Join(d.path, name), noFollow)
}
