package fsutil

import (
	"errors"
	"os"
	"sync"
)

// ErrInjected is returned by Faulty for every failure it injects.
var ErrInjected = errors.New("fsutil: injected failure")

// Faulty wraps an FS and fails chosen operations, counting from 1: FailWrite = 2 fails the
// second Write on any temp file it created. A zero field injects nothing. It is safe for
// concurrent use. It exists for tests of the stores built on this package.
type Faulty struct {
	FS          FS
	FailCreate  int
	FailWrite   int
	FailSync    int
	FailRename  int
	FailSyncDir int

	mu                                   sync.Mutex
	creates, writes, syncs, renames, sds int
}

func (f *Faulty) inner() FS {
	if f.FS == nil {
		return OS
	}
	return f.FS
}

func (f *Faulty) hit(counter *int, at int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	*counter++
	return at > 0 && *counter == at
}

// CreateTemp implements FS.
func (f *Faulty) CreateTemp(dir, pattern string) (File, error) {
	if f.hit(&f.creates, f.FailCreate) {
		return nil, ErrInjected
	}
	file, err := f.inner().CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, owner: f}, nil
}

// Rename implements FS.
func (f *Faulty) Rename(o, n string) error {
	if f.hit(&f.renames, f.FailRename) {
		return ErrInjected
	}
	return f.inner().Rename(o, n)
}

// Remove implements FS.
func (f *Faulty) Remove(name string) error { return f.inner().Remove(name) }

// MkdirAll implements FS.
func (f *Faulty) MkdirAll(p string, perm os.FileMode) error { return f.inner().MkdirAll(p, perm) }

// SyncDir implements FS.
func (f *Faulty) SyncDir(dir string) error {
	if f.hit(&f.sds, f.FailSyncDir) {
		return ErrInjected
	}
	return f.inner().SyncDir(dir)
}

type faultyFile struct {
	File
	owner *Faulty
}

func (ff *faultyFile) Write(p []byte) (int, error) {
	if ff.owner.hit(&ff.owner.writes, ff.owner.FailWrite) {
		// A torn write: half the bytes land, then the error.
		n, _ := ff.File.Write(p[:len(p)/2])
		return n, ErrInjected
	}
	return ff.File.Write(p)
}

func (ff *faultyFile) Sync() error {
	if ff.owner.hit(&ff.owner.syncs, ff.owner.FailSync) {
		return ErrInjected
	}
	return ff.File.Sync()
}
