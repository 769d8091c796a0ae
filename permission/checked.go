package permission

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// ForkRefuses reports why a background fork, which no one can be asked for, is refused a
// call of class c on s that its policy would run, or "": a write to a protected file
// (Protects), and a read outside the project, its Dirs and the fork's own extra directories
// (the session's files, where the notes fork keeps its notes).
func (p *Set) ForkRefuses(c Class, s Subject, extra ...string) string {
	switch {
	case c == ClassEdit:
		return p.Protects(s)
	case c == ClassRead && s.Path != "" && !p.inside(s, extra...):
		return outsideWhy
	}
	return ""
}

// checkedKey keys the subject the permission check decided on in the context its tool runs
// with (WithChecked).
type checkedKey struct{}

// WithChecked returns ctx carrying s, the subject the permission check decided on, to the tool
// that runs the call: the tool then works on the file the check saw (AsChecked).
func WithChecked(ctx context.Context, s Subject) context.Context {
	return context.WithValue(ctx, checkedKey{}, s)
}

// AsChecked returns path with its symlinks resolved, and an error when that is not what the
// permission check resolved it to (a link made or repointed since). Without a checked subject
// for path in ctx it only resolves.
func AsChecked(ctx context.Context, path string) (string, error) {
	real := fsutil.RealPath(path)
	if s, ok := ctx.Value(checkedKey{}).(Subject); ok && s.Path == path {
		if want := cmp.Or(s.Real, s.Path); real != want {
			return "", Changed(path, real)
		}
	}
	return real, nil
}

// Changed is the refusal of a call whose path now resolves to now, elsewhere than when it was
// checked.
func Changed(path, now string) error {
	return fmt.Errorf("refused: %s now leads to %s, not to the file the permission check saw; call the tool again", path, now)
}

// ReadAlways is the rule a "yes, and don't ask again" allows for this session when Read, Grep
// or Glob (tool) asks about s, a path outside the project: reads in the file's directory, or
// in the directory searched ("Read(/home/u/notes/**)"); "" for any other call.
func ReadAlways(tool string, s Subject) string {
	if !covers("Read", tool) || s.Path == "" {
		return ""
	}
	dir := s.Path
	if tool == "Read" {
		dir = filepath.Dir(dir)
	}
	if dir == filepath.Dir(dir) {
		return "" // the file system's root: every read
	}
	return "Read(" + escapeGlob(filepath.ToSlash(dir)) + "/**)"
}

// escapeGlob escapes the characters a doublestar glob reads as special.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
