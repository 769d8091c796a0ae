//go:build !linux

package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// sessionDir is a project directory as listing reads it: the names of its session files.
// Elsewhere than on Linux each file is stat-ed by its full path.
type sessionDir struct {
	path  string
	names []string
	known []bool // always true: os.ReadDir already resolved unknown entry types
}

// openSessionDir reads the session file names of dir. A missing dir is (nil, nil).
func openSessionDir(dir string) (*sessionDir, error) {
	dir = filepath.Clean(dir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d := &sessionDir{path: dir}
	for _, e := range ents {
		if e.Type().IsRegular() && isSessionFile(e.Name()) {
			d.names = append(d.names, e.Name())
			d.known = append(d.known, true)
		}
	}
	return d, nil
}

func (d *sessionDir) close()   {}
func (d *sessionDir) release() {}

// stat returns the key of names[i] without following a symlink, and whether it is a regular
// file.
func (d *sessionDir) stat(i int, _ *[]byte) (fileKey, bool, error) {
	fi, err := os.Lstat(d.file(i))
	if err != nil {
		return fileKey{}, false, err
	}
	return fileKey{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, fi.Mode().IsRegular(), nil
}

// file returns the path of names[i].
func (d *sessionDir) file(i int) string { return filepath.Join(d.path, d.names[i]) }
