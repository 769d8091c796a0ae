package transcript

import (
	"io/fs"
	"os"

	"github.com/strata-mem/strata/internal/fsutil"
)

// FS is the seam through which the journal and archiving reach the disk. OS is the real one;
// tests wrap it to fail a chosen write, sync, truncate or rename.
type FS interface {
	// OpenAppend opens name for appending (O_APPEND|O_CREATE|O_WRONLY), creating it with perm.
	OpenAppend(name string, perm os.FileMode) (AppendFile, error)
	MkdirAll(path string, perm os.FileMode) error
	Rename(oldpath, newpath string) error
	// SyncDir makes a create or rename in dir durable.
	SyncDir(dir string) error
}

// AppendFile is the part of *os.File the journal uses.
type AppendFile interface {
	Write(p []byte) (int, error)
	Sync() error
	Truncate(size int64) error
	Stat() (fs.FileInfo, error)
	Close() error
}

// OS is the real file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) OpenAppend(name string, perm os.FileMode) (AppendFile, error) {
	return os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, perm)
}
func (osFS) MkdirAll(p string, perm os.FileMode) error { return os.MkdirAll(p, perm) }
func (osFS) Rename(o, n string) error                  { return os.Rename(o, n) }
func (osFS) SyncDir(dir string) error                  { return fsutil.OS.SyncDir(dir) }
