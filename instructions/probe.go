package instructions

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"

	"github.com/strata-mem/strata/internal/fastio"
)

// spell returns how to look up dir/name (dir clean and absolute, name clean and relative):
// relative to b's open directory, or whole (nil). A lookup costs per path element, so a
// directory at or below the open working directory, or a few levels above it, is spelled
// relative to it ("name", "sub/name", "../../name"); others are spelled whole.
func (b *base) spell(dir, name string) (*fastio.Dir, string) {
	switch {
	case b.d == nil:
	case dir == b.dir:
		return b.d, name
	case within(dir, b.dir):
		rest := dir[len(b.dir):]
		if rest[0] == '/' {
			rest = rest[1:]
		}
		return b.d, rest + "/" + name
	case within(b.dir, dir):
		if ups := elements(b.dir) - elements(dir); ups < elements(dir) {
			return b.d, strings.Repeat("../", ups) + name
		}
	}
	return nil, under(dir, name)
}

// elements counts the elements of a clean absolute path ("/" has none).
func elements(p string) int {
	if len(p) <= 1 {
		return 0
	}
	return strings.Count(p, "/")
}

// openAt opens dir/name like openHandle(dir/name, true), spelled by b. A relative lookup that
// is refused (EACCES: a working directory we may not search, whose parents we may still reach
// by their names) is tried again whole.
func openAt(b *base, dir, name string) (fastio.File, error) {
	d, p := b.spell(dir, name)
	if d == nil {
		return fastio.Open(p, true)
	}
	f, err := d.Open(p, true)
	if errors.Is(err, syscall.EACCES) {
		return fastio.Open(under(dir, name), true)
	}
	return f, err
}

// statAt returns the type bits of dir/name (following a final symlink unless noFollow),
// spelled by b; a refused relative lookup is tried again whole (see openAt).
func statAt(b *base, dir, name string, noFollow bool) (fs.FileMode, error) {
	d, p := b.spell(dir, name)
	if d == nil {
		return statType(p, noFollow)
	}
	m, err := d.Type(p, noFollow)
	if errors.Is(err, syscall.EACCES) {
		return statType(under(dir, name), noFollow)
	}
	return m, err
}
