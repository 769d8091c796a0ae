package instructions

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
)

// fileText is one file as read: normalised text and what went wrong.
type fileText struct {
	Text      string      // BOM removed, CRLF normalised; "" when not usable
	ID        *ident      // identity of the file (symlinks resolved)
	Size      int64       // size on disk
	Truncated bool        // cut at the size cap
	Diag      *Diagnostic // why the file is not usable, or a warning about it
	OK        bool        // Text can be used
}

// ident is what is known of a file's identity. A file read whole without fstat (see
// handle.load) has no inode yet, only a fingerprint: the size and a hash of its bytes. Two
// files with different fingerprints cannot be one file, so the inode is asked for only when
// fingerprints match (sameFile) — a hard link, or two copies of the same text.
type ident struct {
	id    fileID // valid when known
	known bool
	size  int64  // bytes read; -1 when the file was not read
	sum   uint64 // hash of the bytes read
	path  string // the name it was loaded under; not a symlink when known is false
	// imported: the file was loaded through an @import (a later find by name says so)
	imported bool
	open     *handle // the file, while it is open: fstat is cheaper than a lookup by path
}

// identSeed seeds the fingerprints of one process.
var identSeed = maphash.MakeSeed()

// ident returns the identity of the file h, opened as path; the same one each time, so that
// an inode asked for is asked for once.
func (h *handle) ident(path string) *ident {
	if h.identity != nil {
		return h.identity
	}
	f := &h.own
	*f = ident{id: h.id, known: h.statted, size: -1, path: path, open: h}
	if h.loaded && h.mode.IsRegular() {
		f.size, f.sum = int64(len(h.data)), maphash.Bytes(identSeed, h.data)
	}
	h.identity = f
	return f
}

// sameFile reports whether a and b are the same file, asking for inodes only when their
// fingerprints do not already tell them apart.
func sameFile(a, b *ident) bool {
	if a == b {
		return true
	}
	if !a.known || !b.known {
		if a.size >= 0 && b.size >= 0 && (a.size != b.size || a.sum != b.sum) {
			return false
		}
		if !a.learnID() || !b.learnID() {
			return false
		}
	}
	return a.id == b.id
}

// learnID asks for f's inode, once: by fstat while the file is open, else by its path. It
// returns false when the file is gone.
func (f *ident) learnID() bool {
	if f.known {
		return true
	}
	if f.open != nil {
		if f.open.stat() != nil {
			return false
		}
		f.id, f.known = f.open.id, true
		return true
	}
	id, err := statID(f.path)
	if err != nil {
		return false
	}
	f.id, f.known = id, true
	return true
}

// errNotFound is returned by readText for a path that does not exist (not a diagnostic: most
// candidate names are absent).
var errNotFound = errors.New("not found")

// notFound reports an open error meaning "nothing there" (the file or one of its parents).
func notFound(err error) bool {
	if e, ok := err.(syscall.Errno); ok && (e == syscall.ENOENT || e == syscall.ENOTDIR) {
		return true // a probe's bare errno, answered without errors.Is's reflection
	}
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// isErrno is errors.Is(err, target) without its reflection for a bare errno, which is what
// most failed probes give (fastio's errors are bare).
func isErrno(err error, target syscall.Errno) bool {
	if e, ok := err.(syscall.Errno); ok {
		return e == target
	}
	return err != nil && errors.Is(err, target)
}

// readText reads a candidate instruction file. It never blocks on a pipe or device: the file is
// opened non-blocking, anything but a plain file is recognised before its bytes are used (see
// handle.load), and at most max bytes are read. A missing file (or a missing parent) returns
// errNotFound.
func readText(path string, max int64) (fileText, error) {
	h, err := openHandle(path, true)
	return readOpened(h, err, path, max)
}

// base is the working directory, held open during a load so that paths near it can be looked
// up relative to it.
type base struct {
	d   *fastio.Dir // nil when none is open
	dir string
}

// readTextIn is readText of dir/name (dir clean and absolute, name clean and relative),
// spelled by b. The path string is made only when there is a file: most names probed are
// absent.
func readTextIn(b *base, dir, name string, max int64) (fileText, string, error) {
	h, err := openHandleIn(b, dir, name)
	if err != nil && notFound(err) {
		return fileText{}, "", errNotFound
	}
	path := under(dir, name)
	ft, err := readOpened(h, err, path, max)
	return ft, path, err
}

// readOpened is the rest of readText, once path was opened with O_NOFOLLOW.
func readOpened(h *handle, err error, path string, max int64) (fileText, error) {
	if err != nil && isSymlinkErr(err) {
		// A symlink: what it points to is fstat'ed before it is read.
		if h, err = openHandle(path, false); err == nil {
			if err = h.stat(); err != nil {
				h.close()
			}
		}
	}
	if err != nil {
		if notFound(err) {
			return fileText{}, errNotFound
		}
		return fileText{Diag: &Diagnostic{Path: path, Severity: SeverityError, Message: "unreadable: " + errText(err)}}, nil
	}
	defer h.close()
	if err := h.load(max); err != nil {
		return fileText{Diag: &Diagnostic{Path: path, Severity: SeverityError, Message: "unreadable: " + errText(err)}}, nil
	}
	if !h.mode.IsRegular() {
		return fileText{ID: h.ident(path), Diag: &Diagnostic{Path: path, Severity: SeverityError, Message: "not a regular file (" + fsutil.Kind(h.mode) + "); not read"}}, nil
	}
	return h.text(path), nil
}

// readBufSize is the size of the pooled read buffers: most instruction files fit in one.
const readBufSize = 64 << 10

// readBufs holds read buffers, so that reading a file allocates only the text that is kept.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// text checks what load read from the regular file h and returns it as text.
func (h *handle) text(path string) fileText {
	ft := fileText{ID: h.ident(path), Size: h.size}
	data := h.data
	if h.truncated {
		// Cut at the last newline within the cap, so no line or character is split.
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		}
		ft.Truncated = true
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		ft.Diag = &Diagnostic{Path: path, Line: 1 + bytes.Count(data[:i], []byte("\n")), Severity: SeverityError,
			Message: "binary file (NUL byte); not loaded"}
		return ft
	}
	data = frontmatter.Normalize(data)
	if !utf8.Valid(data) {
		off := firstInvalid(data)
		ft.Diag = &Diagnostic{Path: path, Line: 1 + bytes.Count(data[:off], []byte("\n")), Severity: SeverityError,
			Message: fmt.Sprintf("not valid UTF-8 (byte offset %d); not loaded", off)}
		return ft
	}
	ft.Text = string(data)
	ft.OK = true
	if ft.Truncated {
		ft.Diag = &Diagnostic{Path: path, Severity: SeverityWarning,
			Message: fmt.Sprintf("file is %d bytes; only the first %d bytes were read (size cap)", h.size, len(data))}
	}
	return ft
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// errText gives the operating-system reason of err without repeating the path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, syscall.ELOOP) {
		return "too many levels of symbolic links (a symlink loop)"
	}
	return err.Error()
}

// under joins a clean directory and a clean relative name, without filepath.Join's cleaning
// pass: a load joins many names, nearly all of them to probe a path that does not exist.
func under(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// realDir returns d with every symlink resolved. A directory at or above the working
// directory (resolved) is resolved already; other results are cached per Set. d must be clean
// and absolute. Each directory costs at most one Lstat, since its parent is already known.
func (s *Set) realDir(d string) string {
	if within(s.cwd, d) {
		return d
	}
	if r, ok := s.realDirs[d]; ok {
		return r
	}
	r := d
	if parent := filepath.Dir(d); parent != d {
		r = s.resolveLink(filepath.Join(s.realDir(parent), filepath.Base(d)))
	}
	if s.realDirs == nil {
		s.realDirs = map[string]string{}
	}
	s.realDirs[d] = r
	return r
}

// resolveLink resolves p when its last element is a symlink; its directory is already real.
func (s *Set) resolveLink(p string) string {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return p
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == filepath.Separator
}

// approved reports whether an approvedExternalImports entry covers the import at path (as
// written) or real (symlinks resolved): the same path, a directory above it, or a glob.
func (s *Set) approved(path, real string) bool {
	for _, a := range s.loadOpts.ApprovedImports {
		a = expandTilde(a, s.env.UserHome)
		if !filepath.IsAbs(a) {
			a = filepath.Join(s.root, a)
		}
		a = filepath.Clean(a)
		for _, p := range []string{path, real} {
			if within(p, a) {
				return true
			}
			if ok, _ := doublestar.Match(filepath.ToSlash(a), filepath.ToSlash(p)); ok {
				return true
			}
		}
	}
	return false
}

// excluded returns the claudeMdExcludes glob that skips path, or "". A project's own globs
// (ProjectExcludes) skip only files inside the project root.
func (s *Set) excluded(path string) string {
	for i, globs := range [][]string{s.loadOpts.Excludes, s.loadOpts.ProjectExcludes} {
		if i == 1 && !within(path, s.root) {
			break
		}
		for _, g := range globs {
			g = expandTilde(g, s.env.UserHome)
			if ok, _ := doublestar.Match(filepath.ToSlash(g), filepath.ToSlash(path)); ok {
				return g
			}
		}
	}
	return ""
}

func expandTilde(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
