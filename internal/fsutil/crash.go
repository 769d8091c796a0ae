package fsutil

import (
	"fmt"
	"os"
	"sync"
)

// Crashed is the value Crash panics with: the step at which the simulated kill came.
type Crashed struct{ Step int }

func (c Crashed) String() string { return fmt.Sprintf("fsutil: simulated crash at step %d", c.Step) }

// Crash wraps an FS and stops the program, as a kill -9 would, before its At-th step (counting
// from 1 every temp-file create, write, sync and close, rename, remove, mkdir and directory
// sync): it panics with Crashed, so no clean-up of the caller runs and the disk is left as the
// steps before made it. A zero At never crashes; Steps says how many steps ran, so a test raises
// At until a run completes. It is safe for concurrent use and exists for crash tests, in the
// manner of SQLite's.
type Crash struct {
	FS FS
	At int

	mu sync.Mutex
	n  int
}

// Steps returns how many steps have run.
func (c *Crash) Steps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *Crash) step() {
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	if c.At > 0 && n >= c.At {
		panic(Crashed{Step: n})
	}
}

func (c *Crash) inner() FS {
	if c.FS == nil {
		return OS
	}
	return c.FS
}

// CreateTemp implements FS.
func (c *Crash) CreateTemp(dir, pattern string) (File, error) {
	c.step()
	f, err := c.inner().CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &crashFile{File: f, owner: c}, nil
}

// Rename implements FS.
func (c *Crash) Rename(o, n string) error { c.step(); return c.inner().Rename(o, n) }

// Remove implements FS.
func (c *Crash) Remove(name string) error { c.step(); return c.inner().Remove(name) }

// MkdirAll implements FS.
func (c *Crash) MkdirAll(p string, perm os.FileMode) error {
	c.step()
	return c.inner().MkdirAll(p, perm)
}

// SyncDir implements FS.
func (c *Crash) SyncDir(dir string) error { c.step(); return c.inner().SyncDir(dir) }

type crashFile struct {
	File
	owner *Crash
}

func (f *crashFile) Write(p []byte) (int, error) {
	f.owner.step()
	return f.File.Write(p)
}

func (f *crashFile) Sync() error { f.owner.step(); return f.File.Sync() }

func (f *crashFile) Close() error {
	f.owner.step()
	return f.File.Close()
}
