package memdir

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// NamesFile is the name map kept with the index, relative to the memory dir: the frontmatter
// name of every topic file with the stamp (size, mtime, inode) the file had when it was read,
// and the stamps of the directories that hold them. A write finds the memory a name belongs to
// from it: while no directory changed since the map was written, the map is taken as it is (no
// directory is listed, no file is opened); otherwise each file is stat'ed against it and only
// those that changed are read. So a write costs what it changes, not what the store holds. It
// lives in .archive/ so that writing it changes no directory it stamps. It is a cache: losing it
// costs one read of every file. A name edited by hand in place, without a rename and without
// re-indexing (strata memory edit does), is seen once anything in its directory changes.
const NamesFile = ArchiveDir + "/NAMES"

// namesVersion heads the name map; another first line is not ours, and the map is rebuilt.
const namesVersion = "strata-names 2"

type nameEntry struct {
	st   stamp
	name string
	key  string // NameKey(name), computed once
}

// nameMap is the content of NamesFile.
type nameMap struct {
	dirs  map[string]stamp
	files map[string]nameEntry
}

// readNames reads the name map; a missing or unreadable map is empty. The map this store
// wrote last is kept in memory and used again while the file is unchanged.
func (s *Store) readNames(root *os.Root) nameMap {
	s.namesMu.Lock()
	defer s.namesMu.Unlock()
	if fi, err := root.Lstat(filepath.FromSlash(NamesFile)); err == nil && s.names != nil && stampOf(fi) == s.namesStamp {
		return *s.names
	}
	s.names = nil
	out := nameMap{dirs: map[string]stamp{}, files: map[string]nameEntry{}}
	data, err := fsutil.ReadRegularIn(root, filepath.FromSlash(NamesFile), MaxWholeRead)
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
		f := strings.SplitN(sc.Text(), "\t", 6)
		if len(f) != 6 {
			continue
		}
		size, err1 := strconv.ParseInt(f[1], 10, 64)
		mtime, err2 := strconv.ParseInt(f[2], 10, 64)
		ino, err3 := strconv.ParseUint(f[3], 10, 64)
		file, err4 := strconv.Unquote(f[4])
		name, err5 := strconv.Unquote(f[5])
		if errors.Join(err1, err2, err3, err4, err5) != nil {
			continue
		}
		st := stamp{size: size, mtime: mtime, ino: ino}
		switch f[0] {
		case "d":
			out.dirs[file] = st
		case "f":
			out.files[file] = nameEntry{st: st, name: name, key: NameKey(name)}
		}
	}
	return out
}

// writeNames replaces the name map (the caller holds the lock); a failure is only logged: the
// map is a cache.
func (s *Store) writeNames(root *os.Root, m nameMap) {
	var b bytes.Buffer
	b.WriteString(namesVersion + "\n")
	for _, d := range slices.Sorted(mapsKeys(m.dirs)) {
		st := m.dirs[d]
		fmt.Fprintf(&b, "d\t%d\t%d\t%d\t%s\t\"\"\n", st.size, st.mtime, st.ino, strconv.Quote(d))
	}
	for _, f := range slices.Sorted(mapsKeys(m.files)) {
		e := m.files[f]
		fmt.Fprintf(&b, "f\t%d\t%d\t%d\t%s\t%s\n", e.st.size, e.st.mtime, e.st.ino, strconv.Quote(f), strconv.Quote(e.name))
	}
	if err := s.mkArchiveDir(root, NamesFile); err != nil {
		s.log.Warn("memdir: name map not written", "err", err)
		return
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.abs(NamesFile), b.Bytes(), fsutil.FileMode); err != nil {
		s.log.Warn("memdir: name map not written", "path", s.abs(NamesFile), "err", err)
		return
	}
	s.keepNames(root, m)
}

// keepNames keeps m in memory as the content of the name map as it is on disk now.
func (s *Store) keepNames(root *os.Root, m nameMap) {
	s.namesMu.Lock()
	defer s.namesMu.Unlock()
	s.names = nil
	if fi, err := root.Lstat(filepath.FromSlash(NamesFile)); err == nil {
		s.names, s.namesStamp = &m, stampOf(fi)
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// fresh reports whether no directory of m changed since m was written.
func (m nameMap) fresh(root *os.Root) bool {
	if len(m.dirs) == 0 {
		return false
	}
	for d, st := range m.dirs {
		fi, err := root.Lstat(filepath.FromSlash(d))
		if err != nil || stampOf(fi) != st {
			return false
		}
	}
	return true
}

// stampDirs records in m the stamps of the directories now ("." and every one holding a file
// of m).
func (m nameMap) stampDirs(root *os.Root) {
	clear(m.dirs)
	for f := range m.files {
		for d := path.Dir(f); ; d = path.Dir(d) {
			if _, ok := m.dirs[d]; !ok {
				if fi, err := root.Lstat(filepath.FromSlash(d)); err == nil {
					m.dirs[d] = stampOf(fi)
				}
			}
			if d == "." {
				break
			}
		}
	}
	if fi, err := root.Lstat("."); err == nil {
		m.dirs["."] = stampOf(fi)
	}
}

// restamp records in m the stamps the directories of m, and those holding file, have now: what
// stampDirs would record after file was written into a store whose map was fresh, without going
// through every file.
func (m nameMap) restamp(root *os.Root, file string) {
	for d := path.Dir(file); ; d = path.Dir(d) {
		m.dirs[d] = stamp{}
		if d == "." {
			break
		}
	}
	for d := range m.dirs {
		if fi, err := root.Lstat(filepath.FromSlash(d)); err == nil {
			m.dirs[d] = stampOf(fi)
		} else {
			delete(m.dirs, d)
		}
	}
}

// topicNames returns, sorted, the topic files of the store that may hold a memory whose name
// has NameKey key: those the name map gives that key, and those it cannot name (a symlink: for
// the caller to read). The map is taken as it is while it is fresh, else checked file by file
// against the directory (reading only files whose stamp changed) and rewritten.
func (s *Store) topicNames(ctx context.Context, root *os.Root, key string) (files []string, err error) {
	m := s.readNames(root)
	if m.fresh(root) {
		for f, e := range m.files {
			if e.key == key {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		return files, nil
	}
	all, err := scanNames(ctx, root, ".")
	if err != nil {
		return nil, fmt.Errorf("memdir: list %s: %w", s.dir, err)
	}
	next := nameMap{dirs: map[string]stamp{}, files: make(map[string]nameEntry, len(all))}
	for _, f := range all {
		if !isTopicPath(f) {
			continue
		}
		fi, err := root.Lstat(filepath.FromSlash(f))
		if err != nil || !fi.Mode().IsRegular() {
			files = append(files, f)
			continue
		}
		st := stampOf(fi)
		e, ok := m.files[f]
		if !ok || e.st != st {
			mem, _, usable, err := s.readFile(root, entry{file: f, stamp: st})
			if err != nil {
				return nil, err
			}
			if !usable {
				continue
			}
			e = nameEntry{st: st, name: mem.Name, key: NameKey(mem.Name)}
		}
		next.files[f] = e
		if e.key == key {
			files = append(files, f)
		}
	}
	next.stampDirs(root)
	s.writeNames(root, next)
	slices.Sort(files)
	return files, nil
}

// noteName records in the name map that file now holds the memory name, after a write under
// the lock that found the map fresh or rebuilt it, so that the next write finds it fresh too.
func (s *Store) noteName(root *os.Root, file, name string) {
	m := s.readNames(root)
	if len(m.dirs) == 0 {
		return
	}
	fi, err := root.Lstat(filepath.FromSlash(file))
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	e := nameEntry{st: stampOf(fi), name: name, key: NameKey(name)}
	m.files[file] = e
	m.restamp(root, file)
	// Appended, not rewritten: a later line of a file or directory wins when the map is read.
	var b bytes.Buffer
	for d, st := range m.dirs {
		fmt.Fprintf(&b, "d\t%d\t%d\t%d\t%s\t\"\"\n", st.size, st.mtime, st.ino, strconv.Quote(d))
	}
	fmt.Fprintf(&b, "f\t%d\t%d\t%d\t%s\t%s\n", e.st.size, e.st.mtime, e.st.ino, strconv.Quote(file), strconv.Quote(name))
	f, err := root.OpenFile(filepath.FromSlash(NamesFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	_, werr := f.Write(b.Bytes())
	if errors.Join(werr, f.Close()) != nil {
		s.keepNames(root, nameMap{}) // not known to match the disk: read again next time
		return
	}
	s.keepNames(root, m)
}
