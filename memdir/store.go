package memdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"log/slog"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
)

// Names inside the memory directory.
const (
	IndexFile  = "MEMORY.md"    // the index, one line per topic file
	LogsDir    = "logs"         // daily logs: logs/YYYY/MM/YYYY-MM-DD.md
	ArchiveDir = ".archive"     // forgotten memories moved aside by Forget with Archive
	InboxDir   = ".inbox"       // reserved for proposals waiting for review
	LockFile   = ".strata.lock" // the cross-process write lock
)

// ModeDailyLog is the Options.Mode (and settings memoryMode) in which Add appends to the day's
// log instead of writing a topic file.
const ModeDailyLog = "daily-log"

// Limits.
const (
	// MaxIndexLines and MaxIndexBytes are the default index limits: loading cuts there, and a
	// write that would push the index past either fails. Despite its name (kept for the API
	// and the memoryIndexMaxBytes setting), MaxIndexBytes counts characters as Claude Code
	// does: UTF-16 code units (tokens.Chars), not UTF-8 bytes.
	MaxIndexLines = 200
	MaxIndexBytes = 25_000
	// MaxFileBytes is the largest topic file the store writes, and how much of a file it reads:
	// a longer hand-made file is read up to this size, with a diagnostic.
	MaxFileBytes = 1 << 20
)

// ErrNotFound is wrapped by the error returned when no memory has the name asked for.
var ErrNotFound = errors.New("memory not found")

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// FS is where writes go; nil means fsutil.OS. Tests pass an fsutil.Faulty.
	FS fsutil.FS
	// Logger receives debug notes; nil discards them.
	Logger *slog.Logger
	// Now is the clock for modified times and daily logs; nil means time.Now.
	Now func() time.Time
	// Mode is "" (topic files) or ModeDailyLog.
	Mode string
	// MaxIndexLines and MaxIndexBytes override the index limits; 0 means the defaults.
	MaxIndexLines int
	MaxIndexBytes int
}

// Store is one project's memory directory. It holds no open files and no cache, so one Store
// may be shared by goroutines, and several processes may use the same directory at once:
// every write takes the directory's lock file, reads take no lock and never see a
// half-written file.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger
	// names is the name map as this store last wrote it (NamesFile), while the file has the
	// stamp namesStamp.
	namesMu    sync.Mutex
	names      *nameMap
	namesStamp stamp
	// target is where dir led when the store was opened: "" for a real directory (or none yet),
	// else the symlink's resolved target. A dir that leads elsewhere later is refused.
	target string
}

// Open returns the store for dir. The directory need not exist yet: reads of a missing
// directory find nothing, and the first write creates it (0700).
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("memdir: open: empty directory name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("memdir: open %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("memdir: open %s: not a directory", abs)
	}
	if opts.FS == nil {
		opts.FS = fsutil.OS
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxIndexLines <= 0 {
		opts.MaxIndexLines = MaxIndexLines
	}
	if opts.MaxIndexBytes <= 0 {
		opts.MaxIndexBytes = MaxIndexBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: abs, opts: opts, log: log}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if s.target, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("memdir: open %s: %w", abs, err)
		}
	}
	return s, nil
}

// ErrSwapped is wrapped by the error of any use of a store whose directory was replaced by a
// symlink (or whose symlink was pointed elsewhere) since it was opened: following it would
// read and write another store without a word.
var ErrSwapped = errors.New("the memory directory was replaced by a symlink since strata opened it")

// checkSwap refuses a memory dir that no longer leads where it did when the store was opened.
func (s *Store) checkSwap() error {
	fi, err := os.Lstat(s.dir)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		if s.target != "" && err == nil {
			return fmt.Errorf("memdir: %s: %w (it was a symlink to %s)", s.dir, ErrSwapped, s.target)
		}
		return nil
	}
	to, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		to, _ = os.Readlink(s.dir)
	}
	if s.target == "" || to != s.target {
		return fmt.Errorf("memdir: %s: %w (it leads to %s now); check what replaced it, then run strata again", s.dir, ErrSwapped, to)
	}
	return nil
}

// Dir returns the absolute memory directory.
func (s *Store) Dir() string { return s.dir }

// Now returns the store's clock reading (Options.Now), for callers that record times of
// changes they make through the store.
func (s *Store) Now() time.Time { return s.opts.Now() }

// IndexPath returns the absolute path of MEMORY.md.
func (s *Store) IndexPath() string { return filepath.Join(s.dir, IndexFile) }

// Mode returns the store's write mode ("" or ModeDailyLog).
func (s *Store) Mode() string { return s.opts.Mode }

// entry is a candidate topic file found by scan.
type entry struct {
	file  string // slash-separated, relative to the dir
	stamp stamp
	dir   bool // a directory walked, for Snapshot.dirs
}

// stamp is what change detection compares: a file whose size, mtime and inode are unchanged is
// taken as unchanged. Every store write renames a new inode into place, so the store's own
// writes are always seen; a hand edit is seen unless it keeps the size within one mtime tick.
type stamp struct {
	size  int64
	mtime int64
	ino   uint64
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi)}
}

// IsTopicFile reports whether the slash-separated path rel, relative to a memory dir, is
// where a topic file may live: List, Lint and the index consider exactly these files. It is
// the rule for anyone outside the store (a sync deciding which files MEMORY.md follows).
func IsTopicFile(rel string) bool { return isTopicPath(rel) }

// isTopicPath reports whether the slash-separated relative path p may hold a topic file:
// not hidden at any level, not under logs/, ending in ".md", and not named MEMORY.md at any
// level. Only the top-level MEMORY.md is the index; one in a subdirectory is neither an index
// nor a memory (Claude Code's scan leaves out every file named MEMORY.md), and Lint says so.
func isTopicPath(p string) bool {
	if path.Base(p) == IndexFile || !strings.HasSuffix(p, ".md") {
		return false
	}
	if p == LogsDir || strings.HasPrefix(p, LogsDir+"/") {
		return false
	}
	return !strings.HasPrefix(p, ".") && !strings.Contains(p, "/.") // no part is hidden
}

// openRoot opens the memory dir as an os.Root, so that no read or write follows a symlink out
// of it. ok is false when the directory does not exist.
func (s *Store) openRoot() (root *os.Root, ok bool, err error) {
	if err := s.checkSwap(); err != nil {
		return nil, false, err
	}
	root, err = os.OpenRoot(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("memdir: open %s: %w", s.dir, err)
	}
	return root, true, nil
}

// scan lists the candidate topic files with their stamps, sorted by path. Symlinks are
// followed only when they stay inside the memory dir; others, and files that are not regular,
// become diagnostics. Walked directories are returned too (dir set), for Snapshot.
//
// Each directory is read in one pass and its entries stat-ed relative to it (fastio): only
// names that may be topic files or directories are stat-ed, a subdirectory is opened without
// following a symlink, and a symlink is resolved through root. Nothing is read here; reads go
// through root.
func (s *Store) scan(ctx context.Context, root *os.Root) ([]entry, []Diagnostic, error) {
	var out []entry
	var diags []Diagnostic
	warn := func(rel, msg string) {
		diags = append(diags, Diagnostic{Path: s.abs(rel), Severity: SevWarning, Message: msg})
	}
	// link adds the topic file symlink p if it leads to a regular file inside the memory dir.
	link := func(p string) {
		fi, err := root.Stat(filepath.FromSlash(p))
		switch {
		case err != nil:
			warn(p, "symlink not followed (it leads outside the memory dir or nowhere): "+unwrapPath(err))
		case !fi.Mode().IsRegular():
			warn(p, "not a regular file; skipped")
		default:
			out = append(out, entry{file: p, stamp: stampOf(fi)})
		}
	}
	var walk func(rel string) error
	walk = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		join := func(name string) string { return name }
		if rel != "." {
			join = func(name string) string { return rel + "/" + name }
		}
		d, ents, err := fastio.ReadDirAll(s.abs(rel), rel != ".", func(name string) bool {
			return !strings.HasPrefix(name, ".") // hidden at any level: neither a topic file nor walked
		})
		if err != nil {
			if rel == "." {
				return err
			}
			warn(rel, "cannot read: "+unwrapPath(err))
			return nil
		}
		defer d.Close()
		if rel == "." { // a subdirectory's stamp is taken by its parent, even when it cannot be read
			if info, err := d.Lstat("."); err == nil {
				out = append(out, entry{file: rel, stamp: stamp{size: info.Size, mtime: info.MTime, ino: info.Ino}, dir: true})
			}
		}
		names := make([]string, 0, len(ents)) // to stat: what may be walked or a topic file, and is no symlink
		out = slices.Grow(out, len(ents))
		for _, e := range ents {
			p := join(e.Name)
			switch {
			case !e.Dir && !isTopicPath(p) && (e.Regular || e.Symlink):
				// neither walked nor a topic file, and no stat needed to know it
			case e.Symlink:
				if isTopicPath(p) {
					link(p)
				}
			default:
				names = append(names, e.Name)
			}
		}
		infos, errs := d.LstatMany(names)
		for i, name := range names {
			p, info, err := join(name), infos[i], errs[i]
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue // removed while we looked
			case err != nil && !isTopicPath(p):
				continue
			case err != nil:
				warn(p, "cannot stat: "+unwrapPath(err))
			case info.Mode.IsDir():
				if p == LogsDir {
					continue
				}
				out = append(out, entry{file: p, stamp: stamp{size: info.Size, mtime: info.MTime, ino: info.Ino}, dir: true})
				if err := walk(p); err != nil {
					return err
				}
			case !isTopicPath(p):
			case info.Mode&fs.ModeSymlink != 0: // the directory did not say
				link(p)
			case !info.Mode.IsRegular():
				warn(p, "not a regular file; skipped")
			default:
				out = append(out, entry{file: p, stamp: stamp{size: info.Size, mtime: info.MTime, ino: info.Ino}})
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, diags, fmt.Errorf("memdir: list %s: %w", s.dir, err)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.file, b.file) })
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Path < diags[j].Path })
	return out, diags, nil
}

func (s *Store) abs(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

// unwrapPath drops the *PathError wrapper (its path is already in the diagnostic).
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readFile reads up to MaxFileBytes of one topic file through root and parses it. ok is false
// when the file is not usable as a memory (binary, vanished); the reason is in the diagnostics.
func (s *Store) readFile(root *os.Root, e entry) (m Memory, diags []Diagnostic, ok bool, err error) {
	abs := s.abs(e.file)
	// No size cap at the open: a larger file is cut below, with a warning.
	f, fi, err := fsutil.OpenRegularIn(root, filepath.FromSlash(e.file), math.MaxInt64)
	if errors.Is(err, fs.ErrNotExist) {
		return Memory{}, nil, false, nil
	}
	if err != nil {
		return Memory{}, []Diagnostic{{Path: abs, Severity: SevWarning, Message: "cannot read: " + unwrapPath(err)}}, false, nil
	}
	defer f.Close()
	data, err := readUpTo(f, fi.Size(), MaxFileBytes+1)
	if err != nil {
		return Memory{}, []Diagnostic{{Path: abs, Severity: SevWarning, Message: "cannot read: " + unwrapPath(err)}}, false, nil
	}
	hash := ContentHash(data)
	if isBinary(data) {
		return Memory{}, []Diagnostic{{Path: abs, Line: 1, Severity: SevWarning, Message: "binary content (NUL bytes); not used as a memory"}}, false, nil
	}
	if len(data) > MaxFileBytes {
		data = cutRunes(data[:MaxFileBytes])
		diags = append(diags, Diagnostic{Path: abs, Severity: SevWarning, Message: fmt.Sprintf("file is %s, over the %s read limit; only the first %s is used (split it into smaller topic files)", humanBytes(fi.Size()), humanBytes(MaxFileBytes), humanBytes(MaxFileBytes))})
	}
	if !utf8.Valid(data) {
		diags = append(diags, Diagnostic{Path: abs, Line: 1, Severity: SevWarning, Message: "not valid UTF-8; invalid bytes replaced"})
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	m, pd := ParseFile(abs, e.file, data)
	diags = append(diags, pd...)
	m.ModTime = fi.ModTime()
	m.Size = fi.Size()
	m.Hash = hash
	return m, diags, true, nil
}

// readUpTo reads at most limit bytes of f, sized by the file's size so that small files take
// one read and one allocation.
// MaxWholeRead caps a read that needs a file whole — MEMORY.md, a file kept to restore or
// archive, strata's own logs, a memory shown whole — so that a huge (sparse) file is an error,
// never an exhausted memory; a file that is not regular (a FIFO, a device) is refused unread.
const MaxWholeRead = 64 << 20

// readWhole reads rel through root: a regular file of at most MaxWholeRead bytes.
func readWhole(root *os.Root, rel string) ([]byte, error) {
	return fsutil.ReadRegularIn(root, filepath.FromSlash(rel), MaxWholeRead)
}

func readUpTo(f io.Reader, size int64, limit int64) ([]byte, error) {
	n := min(max(size, 0)+1, limit) // +1 to see EOF (or growth since the stat) in one read
	buf := make([]byte, 0, n)
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := f.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// cutRunes drops a character cut in half at the end of data.
func cutRunes(data []byte) []byte {
	i := len(data) - 1
	for i >= 0 && len(data)-i < utf8.UTFMax && !utf8.RuneStart(data[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(data[i:]) {
		return data[:i]
	}
	return data
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) >= 0
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Count returns the number of topic files in the store, from one listing of its directories:
// no file is read (List reads and parses each, and leaves out one that is unusable, e.g.
// binary, which Count counts).
func (s *Store) Count(ctx context.Context) (int, error) {
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return 0, err
	}
	defer root.Close()
	ents, _, err := s.scan(ctx, root)
	n := 0
	for _, e := range ents {
		if !e.dir {
			n++
		}
	}
	return n, err
}

// List reads every topic file: *.md files in the memory dir and its subdirectories, except
// MEMORY.md (at any level: see IsTopicFile), logs/, hidden files and directories (.archive/, .inbox/, temp files) and symlinks
// that lead outside the dir. Memories come sorted by File. A file with missing or broken
// frontmatter is listed (its body counts) and reported in the diagnostics; a binary file is
// reported and not listed. A missing directory lists nothing. The error is for failures to
// read the directory itself.
func (s *Store) List(ctx context.Context) ([]Memory, []Diagnostic, error) {
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return nil, nil, err
	}
	defer root.Close()
	ents, diags, err := s.scan(ctx, root)
	if err != nil {
		return nil, diags, err
	}
	mems := make([]Memory, 0, len(ents))
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, diags, err
		}
		if e.dir {
			continue
		}
		m, d, ok, err := s.readFile(root, e)
		diags = append(diags, d...)
		if err != nil {
			return nil, diags, err
		}
		if ok {
			mems = append(mems, m)
		}
	}
	return mems, diags, nil
}

// Get returns the memory called name: the topic file whose frontmatter name is name, else the
// file whose name (with or without ".md") is name, else the one memory whose name has name's
// NameKey (case, width and Unicode form aside). The error wraps ErrNotFound when there is none,
// and names the candidates when several memories share the key: a lookup that could mean
// either of two memories picks neither (a forget must not remove the wrong one).
func (s *Store) Get(ctx context.Context, name string) (Memory, error) {
	mems, _, err := s.List(ctx)
	if err != nil {
		return Memory{}, err
	}
	if m, ok := find(mems, name); ok {
		return m, nil
	}
	return Memory{}, s.notFound("memdir", mems, name)
}

// notFound is the error of a lookup of name that find did not settle: it wraps ErrNotFound and
// names the memories that share name's NameKey when there are several.
func (s *Store) notFound(op string, mems []Memory, name string) error {
	if same := sameKey(mems, name); len(same) > 1 {
		files := make([]string, len(same))
		for i, m := range same {
			files[i] = m.File
		}
		return fmt.Errorf("%s: %w: %q in %s: several memories differ from it only in case, width or Unicode form (%s); give the exact name",
			op, ErrNotFound, name, s.dir, strings.Join(files, ", "))
	}
	return fmt.Errorf("%s: %w: %q in %s", op, ErrNotFound, name, s.dir)
}

// find picks the memory called name from mems (see Get for the order).
func find(mems []Memory, name string) (Memory, bool) {
	m, ok := FindIn(func(yield func(*Memory) bool) {
		for i := range mems {
			if !yield(&mems[i]) {
				return
			}
		}
	}, name)
	if !ok {
		return Memory{}, false
	}
	return *m, true
}

// FindIn is Get's rule for the memory called name, over the memories all yields (each may be
// visited up to three times): the one whose frontmatter name is name, else whose file is name
// with or without ".md", else the only one whose name has name's NameKey. It is for a caller
// holding the memories already (a warm index), so that both pick the same memory.
func FindIn(all iter.Seq[*Memory], name string) (*Memory, bool) {
	for m := range all {
		if m.Name == name {
			return m, true
		}
	}
	for m := range all {
		if m.File == name || m.File == name+".md" {
			return m, true
		}
	}
	key := NameKey(name)
	var found *Memory
	for m := range all {
		if NameKey(m.Name) == key {
			if found != nil {
				return nil, false // several: neither
			}
			found = m
		}
	}
	return found, found != nil
}

// sameKey returns the memories of mems whose name has name's NameKey.
func sameKey(mems []Memory, name string) []Memory {
	key := NameKey(name)
	var out []Memory
	for _, m := range mems {
		if NameKey(m.Name) == key {
			out = append(out, m)
		}
	}
	return out
}

// Snapshot records the stamp (size, mtime, inode) of every topic file seen by Changes. The
// zero Snapshot has seen nothing. Snapshots are values: keep the one Changes returned and pass
// it to the next call.
type Snapshot struct {
	files []fileStamp      // the usable topic files, sorted by name
	dirs  map[string]stamp // the directories walked, for Unchanged
	bad   map[string]stamp // files seen but not usable (binary, unreadable): not re-read until they change
	later func() Snapshot  // SnapshotLater's: the snapshot itself, made on first use
}

// SnapshotLater returns a Snapshot that is what make returns, called once, when first needed:
// Changes calls it only after it has listed the store, so a caller can read the snapshot (a
// saved index's stamps) while the store's directories are read.
func SnapshotLater(make func() Snapshot) Snapshot {
	return Snapshot{later: sync.OnceValue(make)}
}

// now is the snapshot itself (SnapshotLater's made now).
func (s Snapshot) now() Snapshot {
	if s.later != nil {
		return s.later()
	}
	return s
}

type fileStamp struct {
	file string
	st   stamp
}

// Len returns the number of files the snapshot has seen.
func (s Snapshot) Len() int { return len(s.now().files) }

// Stamp is one file's change stamp as a Snapshot records it (size, mtime in nanoseconds,
// inode): what a cache of the store's memories keeps beside each memory, so that a later
// process can hand it back (SnapshotOf) and Changes reads only the files changed since.
type Stamp struct {
	Size  int64
	MTime int64
	Ino   uint64
}

// Stamp returns the stamp the snapshot holds for the topic file file.
func (s Snapshot) Stamp(file string) (Stamp, bool) {
	s = s.now()
	i, ok := slices.BinarySearchFunc(s.files, file, func(f fileStamp, file string) int { return strings.Compare(f.file, file) })
	if !ok {
		return Stamp{}, false
	}
	st := s.files[i].st
	return Stamp{st.size, st.mtime, st.ino}, true
}

// SnapshotOf returns a Snapshot that has seen exactly the given files at the given stamps (a
// file given twice: its last stamp): Changes from it re-reads every file whose stamp differs
// and reports the others that are gone. It has walked no directory, so Unchanged from it is
// false. n is how many there are, about (room is made for them at once); files given in order
// are not sorted again.
func SnapshotOf(n int, stamps iter.Seq2[string, Stamp]) Snapshot {
	s := Snapshot{files: make([]fileStamp, 0, max(n, 0))}
	sorted := true
	for f, st := range stamps {
		if k := len(s.files); k > 0 && s.files[k-1].file >= f {
			sorted = false
		}
		s.files = append(s.files, fileStamp{f, stamp{st.Size, st.MTime, st.Ino}})
	}
	if sorted {
		return s
	}
	slices.SortStableFunc(s.files, func(a, b fileStamp) int { return strings.Compare(a.file, b.file) })
	files := s.files[:0]
	for i, f := range s.files {
		if i+1 < len(s.files) && s.files[i+1].file == f.file {
			continue // the last stamp given wins
		}
		files = append(files, f)
	}
	s.files = files
	return s
}

// Changes reports what changed since the snapshot since (a SnapshotLater's is made once the
// store is listed), reading only files whose size, mtime or inode differ: changed holds the
// new and modified memories (sorted by File), removed the File names that are gone (or became
// unusable, e.g. binary), and next the snapshot to pass next time. It is how a warm index
// stays current without re-reading unchanged files. Changes with a zero Snapshot returns every
// memory, like List.
func (s *Store) Changes(ctx context.Context, since Snapshot) (changed []Memory, removed []string, next Snapshot, err error) {
	next = Snapshot{dirs: map[string]stamp{}, bad: map[string]stamp{}}
	root, ok, err := s.openRoot()
	if err != nil {
		return nil, nil, since, err
	}
	if ok {
		defer root.Close()
		ents, _, err := s.scan(ctx, root)
		since = since.now()
		if err != nil {
			return nil, nil, since, err
		}
		next.files = make([]fileStamp, 0, len(since.files))
		old := since.files // both sorted: walked together
		for _, e := range ents {
			if e.dir {
				next.dirs[e.file] = e.stamp
				continue
			}
			for len(old) > 0 && old[0].file < e.file {
				old = old[1:]
			}
			if len(old) > 0 && old[0].file == e.file && old[0].st == e.stamp {
				next.files = append(next.files, fileStamp{e.file, e.stamp})
				continue
			}
			if st, seen := since.bad[e.file]; seen && st == e.stamp {
				next.bad[e.file] = e.stamp
				continue
			}
			m, _, ok, err := s.readFile(root, e)
			if err != nil {
				return nil, nil, since, err
			}
			if !ok {
				next.bad[e.file] = e.stamp
				continue
			}
			next.files = append(next.files, fileStamp{e.file, e.stamp})
			changed = append(changed, m)
		}
	}
	since = since.now()
	now := next.files
	for _, f := range since.files { // sorted, as is now: what now lacks is gone
		for len(now) > 0 && now[0].file < f.file {
			now = now[1:]
		}
		if len(now) == 0 || now[0].file != f.file {
			removed = append(removed, f.file)
		}
	}
	return changed, removed, next, nil
}

// Unchanged is a cheap test for a warm index: it stats only the directories the snapshot walked
// (usually just the memory dir) and reports true when none changed since. Every store write
// renames a file into place, which changes its directory, so the store's own writes (and files
// added, removed or renamed by hand) always make it false. A file edited in place by hand keeps
// its directory's mtime: a caller that wants to see such edits quickly calls Changes now and
// then as well. A zero Snapshot is never unchanged.
func (s *Store) Unchanged(ctx context.Context, since Snapshot) (bool, error) {
	since = since.now()
	if len(since.dirs) == 0 {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return false, err
	}
	defer root.Close()
	for d, st := range since.dirs {
		fi, err := root.Lstat(filepath.FromSlash(d))
		if err != nil || stampOf(fi) != st {
			return false, nil
		}
	}
	return true, nil
}

// cleanRel checks that rel is a slash-separated path inside the memory dir.
func cleanRel(rel string) (string, error) {
	c := path.Clean(filepath.ToSlash(rel))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
		return "", fmt.Errorf("memdir: %q is not inside the memory dir", rel)
	}
	return c, nil
}
