package instructions

import (
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/strata-mem/strata/internal/fastio"
)

// spell writes into p how to look up dir/name (dir clean and absolute, name clean and
// relative) and returns the directory it is relative to: b's open directory, or nil for a path
// spelled whole. A lookup costs per path element, so a directory at or below the open working
// directory, or a few levels above it, is spelled relative to it ("name", "sub/name",
// "../../name"); others are spelled whole. p is the caller's: nothing is allocated.
func (b *base) spell(p *fastio.PathBuf, dir, name string) *fastio.Dir {
	p.Reset()
	switch {
	case b.d == nil:
	case dir == b.dir:
		p.Add(name)
		return b.d
	case within(dir, b.dir):
		rest := dir[len(b.dir):]
		if rest[0] == '/' {
			rest = rest[1:]
		}
		p.Add(rest)
		p.Add("/")
		p.Add(name)
		return b.d
	case within(b.dir, dir):
		if ups := elements(b.dir) - elements(dir); ups < elements(dir) {
			for range ups {
				p.Add("../")
			}
			p.Add(name)
			return b.d
		}
	}
	p.Add(dir)
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		p.Add(string(filepath.Separator))
	}
	p.Add(name)
	return nil
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
	var p fastio.PathBuf
	d := b.spell(&p, dir, name)
	f, err := fastio.OpenAt(d, &p, true)
	if d != nil && isErrno(err, syscall.EACCES) {
		return fastio.Open(under(dir, name), true)
	}
	return f, err
}

// statAt returns the type bits of dir/name (following a final symlink unless noFollow),
// spelled by b; a refused relative lookup is tried again whole (see openAt).
func statAt(b *base, dir, name string, noFollow bool) (fs.FileMode, error) {
	var p fastio.PathBuf
	d := b.spell(&p, dir, name)
	m, err := fastio.TypeAt(d, &p, noFollow)
	if d != nil && isErrno(err, syscall.EACCES) {
		return statType(under(dir, name), noFollow)
	}
	return m, err
}
