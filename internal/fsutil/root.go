package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// RootFS is the FS inside r: every name is relative to the root and cannot leave it (os.Root
// refuses "..", absolute paths and symlinks out), so WriteFileFS(RootFS(r), rel, …) is an
// atomic write confined to the root.
func RootFS(r *os.Root) FS { return rootFS{r} }

type rootFS struct{ r *os.Root }

func (f rootFS) CreateTemp(dir, pattern string) (File, error) {
	for range 100 {
		name := filepath.Join(dir, strings.Replace(pattern, "*", strconv.FormatUint(rand.Uint64(), 36), 1))
		file, err := f.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return rootFile{file, name}, nil
	}
	return nil, fmt.Errorf("create temp in %s: too many collisions", dir)
}

// rootFile reports its name relative to the root, the form Rename and Remove take.
type rootFile struct {
	*os.File
	name string
}

func (f rootFile) Name() string { return f.name }

func (f rootFS) Rename(o, n string) error                  { return f.r.Rename(o, n) }
func (f rootFS) Remove(name string) error                  { return f.r.Remove(name) }
func (f rootFS) MkdirAll(p string, perm os.FileMode) error { return f.r.MkdirAll(p, perm) }
func (f rootFS) SyncDir(dir string) error                  { return syncDir(f.r.Open(dir)) }

// AppendFileIn appends data to the file name inside dir, made (FileMode, its directories
// DirMode) when missing, and syncs it. It appends only to a regular file named without a
// symlink at its end, through an os.Root: a link cannot carry the append elsewhere, nor a
// FIFO block it. Errors name the path.
func AppendFileIn(dir, name string, data []byte) (err error) {
	p := filepath.Join(dir, name)
	defer func() {
		if err != nil {
			err = fmt.Errorf("append to %s: %w", p, err)
		}
	}()
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.Dir(name), DirMode); err != nil {
		return err
	}
	if fi, err := r.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return ErrNotRegular
	}
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, FileMode)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// ReadFileIn reads the regular file name inside dir through an os.Root (ReadRegularIn): a
// link cannot lead it out of dir, a FIFO cannot block it.
func ReadFileIn(dir, name string, max int64) ([]byte, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := ReadRegularIn(r, name, max)
	return data, rename(err, filepath.Join(dir, name))
}
