package memdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// NamesFile is the name map kept with the index, relative to the memory dir: the frontmatter
// name of every topic file, with the stamp (size, mtime, inode) the file had when it was read.
// A write finds the memory a name belongs to by checking the stamps against the directory (a
// stat per file, no open) and reading only the files that changed, so its cost does not grow
// with the files it does not touch. It is a cache: losing it costs one read of every file.
const NamesFile = ".strata-names"

// namesVersion heads the name map; another first line is not ours, and the map is rebuilt.
const namesVersion = "strata-names 1"

type nameEntry struct {
	st   stamp
	name string
}

// readNames reads the name map; a missing or unreadable map is empty.
func (s *Store) readNames(root *os.Root) map[string]nameEntry {
	out := map[string]nameEntry{}
	data, err := fsutil.ReadRegularIn(root, NamesFile, MaxWholeRead)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Debug("memdir: name map unreadable; rebuilt", "err", err)
		}
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() || sc.Text() != namesVersion {
		return out
	}
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 5)
		if len(f) != 5 {
			continue
		}
		size, err1 := strconv.ParseInt(f[0], 10, 64)
		mtime, err2 := strconv.ParseInt(f[1], 10, 64)
		ino, err3 := strconv.ParseUint(f[2], 10, 64)
		file, err4 := strconv.Unquote(f[3])
		name, err5 := strconv.Unquote(f[4])
		if errors.Join(err1, err2, err3, err4, err5) != nil {
			continue
		}
		out[file] = nameEntry{st: stamp{size: size, mtime: mtime, ino: ino}, name: name}
	}
	return out
}

// writeNames replaces the name map (the caller holds the lock); a failure is only logged: the
// map is a cache.
func (s *Store) writeNames(files []string, names map[string]nameEntry) {
	var b bytes.Buffer
	b.WriteString(namesVersion + "\n")
	for _, f := range files {
		e, ok := names[f]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%d\t%d\t%d\t%s\t%s\n", e.st.size, e.st.mtime, e.st.ino, strconv.Quote(f), strconv.Quote(e.name))
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.abs(NamesFile), b.Bytes(), fsutil.FileMode); err != nil {
		s.log.Warn("memdir: name map not written", "path", s.abs(NamesFile), "err", err)
	}
}

// namesOf returns the frontmatter name of each regular topic file of files, reading only those
// whose stamp is not the one the name map holds, and brings the map up to date. A file that is
// a symlink, or not usable as a memory, has no name here (the caller reads it itself).
func (s *Store) namesOf(root *os.Root, files []string) (map[string]string, error) {
	cache := s.readNames(root)
	out := make(map[string]string, len(files))
	next := make(map[string]nameEntry, len(files))
	changed := len(cache) == 0 && len(files) > 0
	for _, f := range files {
		fi, err := root.Lstat(filepath.FromSlash(f))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		st := stampOf(fi)
		if e, ok := cache[f]; ok && e.st == st {
			out[f], next[f] = e.name, e
			continue
		}
		m, _, ok, err := s.readFile(root, entry{file: f, stamp: st})
		if err != nil {
			return nil, err
		}
		changed = true
		if !ok {
			continue
		}
		out[f], next[f] = m.Name, nameEntry{st: st, name: m.Name}
	}
	if !changed && len(next) != len(cache) {
		changed = true // files gone since
	}
	if changed {
		s.writeNames(files, next)
	}
	return out, nil
}
