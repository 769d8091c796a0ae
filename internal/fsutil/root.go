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
