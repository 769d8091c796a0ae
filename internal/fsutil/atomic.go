package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is the part of *os.File that an atomic write needs.
type File interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
	Chmod(os.FileMode) error
}

// FS is the seam through which writes reach the disk. OS is the real one; tests wrap it to fail
// the Nth write, sync or rename (see Faulty).
type FS interface {
	CreateTemp(dir, pattern string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	MkdirAll(path string, perm os.FileMode) error
	// SyncDir makes a rename or create in dir durable.
	SyncDir(dir string) error
}

// OS is the real file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (File, error) { return os.CreateTemp(dir, pattern) }
func (osFS) Rename(o, n string) error                     { return os.Rename(o, n) }
func (osFS) Remove(name string) error                     { return os.Remove(name) }
func (osFS) MkdirAll(p string, perm os.FileMode) error    { return os.MkdirAll(p, perm) }
func (osFS) SyncDir(dir string) error                     { return syncDir(os.Open(dir)) }

// syncDir fsyncs a directory opened by the caller and closes it.
func syncDir(d *os.File, err error) error {
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems do not support fsync on directories; that is not a failure of the write.
	if errors.Is(err, os.ErrInvalid) {
		return nil
	}
	return err
}

// Default permissions for files and directories strata creates.
const (
	FileMode os.FileMode = 0o600
	DirMode  os.FileMode = 0o700
)

// WriteFile atomically replaces path with data using the real file system. See WriteFileFS.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFileFS(OS, path, data, perm)
}

// WriteFileFS atomically replaces path with data: it writes a temp file in the same directory,
// fsyncs it, renames it over path and fsyncs the directory. The parent directory is created
// (DirMode) if missing. On any error the old file is untouched and the temp file is removed.
// If path is a symlink, the link itself is replaced, never its target.
func WriteFileFS(fsys FS, path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := fsys.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create dir %s: %w", dir, err)
	}
	f, err := fsys.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			fsys.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err = fsys.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	if err = fsys.SyncDir(dir); err != nil {
		// The rename happened; the content is complete but may not survive a power cut.
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
