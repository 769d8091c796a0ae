//go:build linux

package instructions

import (
	"io/fs"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// atFDCWD is AT_FDCWD as a variable, so that it converts to a uintptr.
var atFDCWD = unix.AT_FDCWD

// pathBuf holds one NUL-terminated path on the stack: most probes are of names that do not
// exist, and building their paths this way allocates nothing (syscall.Open copies the path
// to the heap).
type pathBuf [512]byte

// spell writes dir/name (dir clean and absolute, name clean and relative) into p, NUL-
// terminated, and returns the descriptor the path is relative to. A lookup costs per path
// element, so a directory at or below the open working directory, or a few levels above it,
// is spelled relative to it ("name", "sub/name", "../../name"); others are spelled whole. ok
// is false when the path does not fit or holds a NUL byte.
func (b *base) spell(p *pathBuf, dir, name string) (fd int, ok bool) {
	if hasNUL(dir) || hasNUL(name) {
		return 0, false
	}
	i := 0
	put := func(s string) bool {
		if i+len(s) >= len(p) {
			return false
		}
		i += copy(p[i:], s)
		return true
	}
	fd = atFDCWD
	switch {
	case b.fd < 0:
	case dir == b.dir:
		fd = b.fd
	case within(dir, b.dir):
		fd = b.fd
		rest := dir[len(b.dir):]
		if rest[0] == '/' {
			rest = rest[1:]
		}
		if !put(rest) || !put("/") {
			return 0, false
		}
	case within(b.dir, dir):
		if ups := elements(b.dir) - elements(dir); ups < elements(dir) {
			fd = b.fd
			for ; ups > 0; ups-- {
				if !put("../") {
					return 0, false
				}
			}
		}
	}
	if fd == atFDCWD {
		if !put(dir) || dir != "/" && !put("/") {
			return 0, false
		}
	}
	if !put(name) {
		return 0, false
	}
	p[i] = 0
	return fd, true
}

// elements counts the elements of a clean absolute path ("/" has none).
func elements(p string) int {
	if len(p) <= 1 {
		return 0
	}
	return strings.Count(p, "/")
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// whole spells every path whole: the fallback when a relative lookup is refused (EACCES: a
// working directory we may not search, whose parents we may still reach by their names).
var whole = base{fd: -1}

// openAt opens dir/name like syscall.Open, spelled by b.
func openAt(b *base, dir, name string, flags int) (int, error) {
	var p pathBuf
	dirfd, ok := b.spell(&p, dir, name)
	if !ok {
		for {
			fd, err := syscall.Open(under(dir, name), flags, 0)
			if err != syscall.EINTR {
				return fd, err
			}
		}
	}
	for {
		fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&p[0])),
			uintptr(flags|syscall.O_LARGEFILE), 0, 0, 0)
		switch {
		case e == 0:
			return int(fd), nil
		case e == syscall.EINTR:
			continue
		case e == syscall.EACCES && dirfd != atFDCWD:
			return openAt(&whole, dir, name, flags)
		}
		return -1, e
	}
}

// statAt returns the type bits of dir/name (following a final symlink unless noFollow),
// spelled by b, with statx; without statx it falls back to statType.
func statAt(b *base, dir, name string, noFollow bool) (fs.FileMode, error) {
	var p pathBuf
	dirfd, ok := b.spell(&p, dir, name)
	if !ok {
		return statType(under(dir, name), noFollow)
	}
	flags := 0
	if noFollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	var stx unix.Statx_t
	for {
		_, _, e := syscall.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(&p[0])),
			uintptr(flags), unix.STATX_TYPE, uintptr(unsafe.Pointer(&stx)), 0)
		switch {
		case e == 0:
			return modeOf(uint32(stx.Mode)), nil
		case e == syscall.EINTR:
			continue
		case e == syscall.EACCES && dirfd != atFDCWD:
			return statAt(&whole, dir, name, noFollow)
		case e == syscall.ENOSYS || e == syscall.EPERM: // no statx here (old kernel, seccomp)
			return statType(under(dir, name), noFollow)
		}
		return 0, e
	}
}
