package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
)

// sessionDir is a project directory as listing reads it: the names of its session files in
// the directory's own order and, while open, the directory itself, so that each file is
// stat-ed relative to it (fastio: one short path walk per file). On this kind of machine a
// system call costs microseconds, so listing is mostly the count of calls; the whole
// directory is read in one or two calls.
type sessionDir struct {
	path string
	dir  *fastio.Dir
	ents []fastio.Entry // the session files: name, and whether the directory said regular
}

// openSessionDir reads the session file names of dir. A missing dir is (nil, nil).
func openSessionDir(dir string) (*sessionDir, error) {
	dir = filepath.Clean(dir)
	fd, ents, err := fastio.ReadDir(dir, isSessionFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &sessionDir{path: dir, dir: fd, ents: ents}, nil
}

// close releases the directory; the names stay usable and stat walks the full path.
func (d *sessionDir) close() {
	if d != nil {
		d.dir.Close()
	}
}

// release closes d once listing is done with it.
func (d *sessionDir) release() { d.close() }

// name returns the name of file i.
func (d *sessionDir) name(i int) string { return d.ents[i].Name }

// stat returns the key of file i without following a symlink, and whether it is a regular
// file.
func (d *sessionDir) stat(i int) (fileKey, bool, error) {
	info, err := d.dir.Lstat(d.name(i))
	if err != nil {
		return fileKey{}, false, err
	}
	return fileKey{Size: info.Size, MTime: info.MTime, CTime: info.CTime, Ino: info.Ino}, info.Mode.IsRegular(), nil
}

// file returns the path of file i.
func (d *sessionDir) file(i int) string { return filepath.Join(d.path, d.name(i)) }

// openForStat opens the transcript at path for reading its ends (fastio.File: pread, no poller
// set-up; listing opens thousands of files) and returns its size and modification time.
func openForStat(path string) (fastio.File, int64, time.Time, error) {
	f, err := fastio.Open(path, false)
	if err != nil {
		return f, 0, time.Time{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return f, 0, time.Time{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if !info.Mode.IsRegular() {
		f.Close() // unread; a FIFO or device named like a transcript is skipped
		return f, 0, time.Time{}, &os.PathError{Op: "open", Path: path, Err: fsutil.ErrNotRegular}
	}
	return f, info.Size, time.Unix(0, info.MTime), nil
}
