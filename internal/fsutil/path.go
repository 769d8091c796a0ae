package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// Errors of NewPath, wrapped with the name.
var (
	// ErrGitComponent is returned for a name with a component that git would take for ".git".
	ErrGitComponent = errors.New("has a .git component")
	// ErrOutsideRoot is returned for a name that leaves its root, as written or through a
	// symlink.
	ErrOutsideRoot = errors.New("is outside its root")
)

// Path is a file's name inside a root directory in the one form that rules match and writers
// trust: cleaned, with its symlinks resolved, inside the root, and not git's below the root
// (InGitDir). NewPath is the only way to make one; the zero Path names nothing and its
// methods fail.
type Path struct {
	root string // absolute, cleaned, symlinks resolved
	rel  string // slash-separated, cleaned; never "", "." or ".." nor under ".."
}

// NewPath returns the Path of name inside root. name is relative to root or absolute; it is
// cleaned, and the symlinks of root and of the part of name that exists are resolved (the
// rest, a file yet to be made, is joined on). The result must lie inside root, and neither
// name as written nor as resolved may be git's (a git name as a component, InGitDir).
func NewPath(root, name string) (Path, error) {
	if root == "" || !filepath.IsAbs(root) {
		return Path{}, fmt.Errorf("fsutil: path root %q is not absolute", root)
	}
	if name == "" {
		return Path{}, fmt.Errorf("fsutil: empty path in %s", root)
	}
	if gitComponent(name) {
		return Path{}, &fs.PathError{Op: "path", Path: name, Err: ErrGitComponent}
	}
	realRoot := RealPath(filepath.Clean(root))
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, name)
	}
	abs = filepath.Clean(abs)
	rel, ok := inside(filepath.Clean(root), abs)
	if !ok {
		rel, ok = inside(realRoot, abs)
	}
	if !ok {
		return Path{}, &fs.PathError{Op: "path", Path: name, Err: ErrOutsideRoot}
	}
	rel, ok = inside(realRoot, RealPath(filepath.Join(realRoot, rel)))
	if !ok {
		return Path{}, &fs.PathError{Op: "path", Path: name, Err: ErrOutsideRoot}
	}
	if InGitDir(realRoot, filepath.Join(realRoot, rel)) {
		return Path{}, &fs.PathError{Op: "path", Path: name, Err: ErrGitComponent}
	}
	return Path{root: realRoot, rel: filepath.ToSlash(rel)}, nil
}

// InGitDir reports whether the absolute path p is git's: the part of p below top (all of p
// when top is "" or does not hold p) has a component git would take for .git (IsGitName), or
// p lies in the git directory that the .git file of a directory between p and top points to
// ("gitdir: .bare", GitDirs). It is the one rule for what the file tools, permissions, the
// sandbox and imports keep away from.
func InGitDir(top, p string) bool {
	rel, ok := inside(top, p)
	if top == "" || !ok {
		rel, top = p, ""
	}
	if gitComponent(rel) {
		return true
	}
	under := func(dir string) bool { _, in := inside(dir, p); return in || p == dir }
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		for _, g := range GitDirs(d)[1:] {
			if under(g) || under(RealPath(g)) {
				return true
			}
		}
		if d == top || filepath.Dir(d) == d {
			return false
		}
	}
}

// maxGitFile caps the read of a .git file or a commondir file (a line each).
const maxGitFile = 64 << 10

// GitDirs returns the git directories of the working tree dir: dir/.git and, when that is a
// file ("gitdir: PATH", as a worktree or a bare repository kept beside its tree has), the
// directory it names and that directory's commondir. A relative PATH is taken from dir.
func GitDirs(dir string) []string {
	git := filepath.Join(dir, ".git")
	out := []string{git}
	data, err := ReadRegular(git, maxGitFile) // a directory or nothing there: no pointer
	if err != nil {
		return out
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if gitdir = strings.TrimSpace(gitdir); !ok || gitdir == "" {
		return out
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	out = append(out, filepath.Clean(gitdir))
	if c, err := ReadRegular(filepath.Join(gitdir, "commondir"), maxGitFile); err == nil {
		if common := strings.TrimSpace(string(c)); common != "" {
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitdir, common)
			}
			out = append(out, filepath.Clean(common))
		}
	}
	return out
}

// inside returns abs relative to dir when it lies strictly inside it.
func inside(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// RealPath resolves every symlink in the absolute path p: the longest part that exists is
// resolved and the rest (a file yet to be made) joined on. A path that cannot be resolved (a
// symlink loop, no permission) is returned unchanged, and so is "".
func RealPath(p string) string {
	if p == "" {
		return ""
	}
	rest := ""
	for dir := p; ; {
		r, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(r, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// Root is the root directory, absolute with its symlinks resolved.
func (p Path) Root() string { return p.root }

// Rel is the name inside the root, slash-separated: the name for an os.Root opened on Root.
func (p Path) Rel() string { return p.rel }

// String is the absolute path.
func (p Path) String() string {
	if p.root == "" {
		return ""
	}
	return filepath.Join(p.root, filepath.FromSlash(p.rel))
}

// open opens the root; the zero Path fails.
func (p Path) open() (*os.Root, error) {
	if p.root == "" {
		return nil, errors.New("fsutil: zero Path")
	}
	return os.OpenRoot(p.root)
}

// Open opens the file for reading through an os.Root on the root, so that a symlink swapped
// in since NewPath cannot lead out of it, and only if it is a regular file of at most max
// bytes (OpenRegularIn: a device or FIFO is refused with ErrNotRegular, without blocking).
func (p Path) Open(max int64) (*os.File, os.FileInfo, error) {
	r, err := p.open()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close() // an open file outlives its root
	f, fi, err := OpenRegularIn(r, filepath.FromSlash(p.rel), max)
	if err != nil {
		return nil, nil, rename(err, p.String())
	}
	if err := p.held(p.rel, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile reads the file as Open opens it, refusing one that grows past max while read.
func (p Path) ReadFile(max int64) ([]byte, error) {
	f, fi, err := p.Open(max)
	if err != nil {
		return nil, err
	}
	return readCapped(f, fi, p.String(), max)
}

// WriteFile replaces the file's content atomically (WriteFileFS) through an os.Root on the
// file's directory, made (DirMode) as needed and held open once checked (held), so that a
// symlink swapped in since NewPath cannot lead the write into .git.
func (p Path) WriteFile(data []byte, perm fs.FileMode) error {
	r, err := p.open()
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := path.Dir(p.rel); dir != "." {
		if err := r.MkdirAll(dir, DirMode); err != nil {
			return fmt.Errorf("%s: create dir %s: %w", p.root, dir, err)
		}
		sub, err := r.OpenRoot(dir)
		if err != nil {
			return fmt.Errorf("%s: %w", p.root, err)
		}
		defer sub.Close()
		fi, err := sub.Stat(".")
		if err == nil {
			err = p.held(dir, fi)
		}
		if err != nil {
			return err
		}
		r = sub
	}
	if err := WriteFileFS(RootFS(r), path.Base(p.rel), data, perm); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(p.root, filepath.FromSlash(path.Dir(p.rel))), err)
	}
	return nil
}

// held checks that fi, opened through an os.Root at rel, is what rel leads to now, inside the
// root and with no git component on the way: a directory swapped for a symlink to .git since
// NewPath fails here instead of being followed.
func (p Path) held(rel string, fi fs.FileInfo) error {
	name := filepath.Join(p.root, filepath.FromSlash(rel))
	real := RealPath(name)
	if _, ok := inside(p.root, real); !ok {
		return &fs.PathError{Op: "path", Path: name, Err: ErrOutsideRoot}
	}
	if InGitDir(p.root, real) {
		return &fs.PathError{Op: "path", Path: name, Err: ErrGitComponent}
	}
	if now, err := os.Stat(real); err != nil || !os.SameFile(fi, now) {
		return &fs.PathError{Op: "path", Path: name, Err: errors.New("changed while it was opened (a symlink swapped)")}
	}
	return nil
}

// rename makes a PathError name the absolute path instead of the root-relative one.
func rename(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// IsGitName reports whether a file system could take the path component elem for ".git":
// case aside (case-insensitive file systems), trailing dots and spaces (Windows drops them),
// characters a file system ignores (HFS+ drops zero-width joiners and the like), an NTFS
// stream suffix (".git::$INDEX_ALLOCATION") and the 8.3 short name "GIT~1".
func IsGitName(elem string) bool {
	if i := strings.IndexByte(elem, ':'); i >= 0 {
		elem = elem[:i]
	}
	elem = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			return -1
		}
		return r
	}, elem)
	elem = strings.TrimRight(elem, ". ")
	return strings.EqualFold(elem, ".git") || strings.EqualFold(elem, "git~1")
}

// gitComponent reports whether any component of name, split at either slash, is a git name.
func gitComponent(name string) bool {
	for _, c := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if IsGitName(c) {
			return true
		}
	}
	return false
}
