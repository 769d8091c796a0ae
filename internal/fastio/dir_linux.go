package fastio

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Dir is an open directory: names are looked up relative to its descriptor, which costs one
// path element instead of the whole path. After Close, they are looked up by their full path.
type Dir struct {
	fd   int // -1 once closed
	path string
}

// direntPool keeps getdents buffers between reads (a chat or a benchmark lists often).
var direntPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// ReadDir opens the directory at path and reads the entries that may be regular files (the
// directory says so, or does not say) and whose names pass keep, in the directory's own order
// (stable while it does not change). The whole directory is read with a buffer big enough for
// a thousand names in one or two getdents calls; the names share one string. keep sees each
// name in the read buffer and must not retain it. The caller closes the Dir. A missing
// directory gives an error that matches fs.ErrNotExist.
func ReadDir(path string, keep func(name string) bool) (*Dir, []Entry, error) {
	return readDir(path, false, false, keep)
}

// ReadDirAll is ReadDir for entries of every type (but . and ..), with the type the directory
// gives; with noFollow, a path that is a symlink is refused (unix.ELOOP) instead of followed.
func ReadDirAll(path string, noFollow bool, keep func(name string) bool) (*Dir, []Entry, error) {
	return readDir(path, true, noFollow, keep)
}

func readDir(path string, all, noFollow bool, keep func(name string) bool) (*Dir, []Entry, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := sysOpen(path, flags)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	pooled := direntPool.Get().(*[]byte)
	defer direntPool.Put(pooled)
	// Records never span two reads, so a full buffer is kept as it is and the next read goes
	// to a new, larger one: nothing is copied (growing one buffer copied and faulted in about
	// a megabyte for a directory of 10,000 files).
	var first [4][]byte
	bufs := append(first[:0], (*pooled)[:0])
	for {
		buf := bufs[len(bufs)-1]
		if cap(buf)-len(buf) < 4<<10 {
			buf = make([]byte, 0, 2*cap(buf))
			bufs = append(bufs, buf)
		}
		n, err := unix.ReadDirent(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return nil, nil, &os.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			break
		}
		bufs[len(bufs)-1] = buf[:len(buf)+n]
	}
	ents := parseDirents(bufs, all, keep)
	*pooled = bufs[len(bufs)-1][:0] // the largest, for the next directory
	return &Dir{fd: fd, path: path}, ents, nil
}

// parseDirents returns the entries of getdents64 records (ino 8, off 8, reclen 2, type 1,
// then the NUL-terminated name) in bufs that may be regular files and pass keep. keep sees
// each name in place and must not keep it; the names returned share one string holding just
// them, and the entries are allocated once (copying all of the buffers and growing the slice
// came to about 120 KB for a directory of 1,000 transcripts, more than the rest of a
// listing's reads).
func parseDirents(bufs [][]byte, all bool, keep func(string) bool) []Entry {
	records := 0
	for _, buf := range bufs {
		for range direntRecords(buf) {
			records++
		}
	}
	ents := make([]Entry, 0, records)
	size := 0
	for _, buf := range bufs {
		for rec := range direntRecords(buf) {
			typ := buf[rec+18]
			name := unsafe.String(&buf[rec+19], direntNameLen(buf, rec))
			if all && (name == "." || name == "..") {
				continue
			}
			if (all || typ == unix.DT_REG || typ == unix.DT_UNKNOWN) && keep(name) {
				ents = append(ents, Entry{Name: name, Regular: typ == unix.DT_REG, Dir: typ == unix.DT_DIR, Symlink: typ == unix.DT_LNK})
				size += len(name)
			}
		}
	}
	if len(ents) == 0 {
		return nil
	}
	var b strings.Builder // the names, out of the buffers (the first goes back to the pool)
	b.Grow(size)
	for _, e := range ents {
		b.WriteString(e.Name)
	}
	names, off := b.String(), 0
	for i := range ents {
		n := len(ents[i].Name)
		ents[i].Name = names[off : off+n]
		off += n
	}
	return ents
}

// direntRecords yields the offset of each whole getdents64 record in buf.
func direntRecords(buf []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		for off := 0; off+19 < len(buf); {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen == 0 || off+reclen > len(buf) || !yield(off) {
				return
			}
			off += reclen
		}
	}
}

// direntNameLen is the length of the name of the record at off, up to its NUL.
func direntNameLen(buf []byte, off int) int {
	reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
	name := buf[off+19 : off+reclen]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		return i
	}
	return len(name)
}

// ResolveDir returns dir (absolute) with every symlink resolved, failing when it is not a
// directory, and the directory open for lookups (nil when none is kept; the caller closes
// it). A directory reached without any symlink is already resolved: openat2 with
// RESOLVE_NO_SYMLINKS says so in one system call. Otherwise the kernel says where an open
// descriptor points (one readlink instead of one lstat per path element); without openat2 or
// /proc it falls back to ResolveDirSlow.
func ResolveDir(dir string) (string, *Dir, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	for err == unix.EINTR {
		fd, err = unix.Openat2(unix.AT_FDCWD, dir, &how)
	}
	switch err {
	case nil:
		dir = filepath.Clean(dir)
		return dir, &Dir{fd: fd, path: dir}, nil
	case unix.ENOENT, unix.ENOTDIR:
		return "", nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	// ELOOP: a symlink on the way; ENOSYS, EPERM: no openat2 here.
	fd, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT || err == unix.ENOTDIR {
		return "", nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	if err != nil {
		r, err := ResolveDirSlow(dir)
		return r, nil, err
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		unix.Close(fd)
		r, err := ResolveDirSlow(dir)
		return r, nil, err
	}
	r := filepath.Clean(string(buf[:n]))
	return r, &Dir{fd: fd, path: r}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Close closes the directory's descriptor; lookups then walk the full path.
func (d *Dir) Close() error {
	if d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// at returns the descriptor and path by which name is looked up.
func (d *Dir) at(name string) (int, string) {
	if d.fd >= 0 {
		return d.fd, name
	}
	return unix.AT_FDCWD, d.path + "/" + name
}

// statxMask asks only for what a freshness check and a type test use.
const statxMask = unix.STATX_TYPE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_CTIME | unix.STATX_INO

// noStatx is set when the kernel or a seccomp filter refuses statx; fstatat is used instead.
var noStatx atomic.Bool

// DisableStatx makes lookups behave as where the kernel refuses statx (they use fstatat),
// until the returned function is called. For tests of the fallback.
func DisableStatx() (restore func()) {
	noStatx.Store(true)
	return func() { noStatx.Store(false) }
}

// pathBufs holds the NUL-terminated copies of the paths statxPath passes to the kernel.
var pathBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// statxPath is unix.Statx without its allocation: the wrapper copies path to a new heap buffer
// on every call, which cost one allocation per probe and per listed transcript (about 1,000
// per listing, 150 per instruction load) and showed in both benchmarks; the copy goes into a
// pooled buffer instead. Same system call, same errors (a bare errno).
func statxPath(dirfd int, path string, flags, mask int, stx *unix.Statx_t) error {
	if strings.IndexByte(path, 0) >= 0 {
		return unix.EINVAL
	}
	bp := pathBufs.Get().(*[]byte)
	b := append(append((*bp)[:0], path...), 0)
	_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(&b[0])), uintptr(flags), uintptr(mask), uintptr(unsafe.Pointer(stx)), 0)
	*bp = b
	pathBufs.Put(bp)
	if e != 0 {
		return e
	}
	return nil
}

// openatPath is unix.Openat without the wrapper's heap copy of the path (see statxPath), retried
// on EINTR. The error is the bare errno.
func openatPath(dirfd int, path string, flags int) (int, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return -1, unix.EINVAL
	}
	bp := pathBufs.Get().(*[]byte)
	b := append(append((*bp)[:0], path...), 0)
	var fd uintptr
	var e unix.Errno
	for {
		fd, _, e = unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&b[0])), uintptr(flags), 0, 0, 0)
		if e != unix.EINTR {
			break
		}
	}
	*bp = b
	pathBufs.Put(bp)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// sysOpen opens path (relative to the working directory) with openatPath.
func sysOpen(path string, flags int) (int, error) { return openatPath(unix.AT_FDCWD, path, flags) }

// sysStat stats path (lstat with noFollow) with statx through a pooled path buffer.
func sysStat(path string, noFollow bool) (Info, error) {
	flags := 0
	if noFollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	return statxInfo(unix.AT_FDCWD, path, flags, statxMask)
}

// statx stats name relative to d (flags: 0 or AT_SYMLINK_NOFOLLOW) with statx, or fstatat
// where statx is refused. The error is the bare errno.
func (d *Dir) statx(name string, flags, mask int) (Info, error) {
	dirfd, p := d.at(name)
	return statxInfo(dirfd, p, flags, mask)
}

// statxInfo stats p relative to dirfd with statx, or fstatat where statx is refused. The error
// is the bare errno.
func statxInfo(dirfd int, p string, flags, mask int) (Info, error) {
	if !noStatx.Load() {
		var stx unix.Statx_t
		err := statxPath(dirfd, p, flags, mask, &stx)
		for err == unix.EINTR {
			err = statxPath(dirfd, p, flags, mask, &stx)
		}
		switch err {
		case nil:
			info := Info{Mode: modeOf(uint32(stx.Mode)), Size: int64(stx.Size), MTime: stx.Mtime.Sec*1e9 + int64(stx.Mtime.Nsec)}
			if stx.Mask&unix.STATX_CTIME != 0 {
				info.CTime = stx.Ctime.Sec*1e9 + int64(stx.Ctime.Nsec)
			}
			if stx.Mask&unix.STATX_INO != 0 {
				info.Ino = stx.Ino
				info.ID = FileID{unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino}
			}
			return info, nil
		case unix.ENOSYS, unix.EPERM: // no statx here (old kernel, seccomp)
			noStatx.Store(true)
		default:
			return Info{}, err
		}
	}
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, p, &st, flags)
	for err == unix.EINTR {
		err = unix.Fstatat(dirfd, p, &st, flags)
	}
	if err != nil {
		return Info{}, err
	}
	return infoOf(&st), nil
}

// Lstat returns what lstat says about name in d (size, times, inode and type), with statx
// where the kernel has it. The error is an *fs.PathError with the full path.
func (d *Dir) Lstat(name string) (Info, error) {
	info, err := d.statx(name, unix.AT_SYMLINK_NOFOLLOW, statxMask)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: filepath.Join(d.path, name), Err: err}
	}
	return info, nil
}

// Type returns the type bits of name in d (a clean relative path), following a final symlink
// unless noFollow. The error is the bare errno.
func (d *Dir) Type(name string, noFollow bool) (fs.FileMode, error) {
	flags := 0
	if noFollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	info, err := d.statx(name, flags, unix.STATX_TYPE)
	return info.Mode, err
}

// Open opens name in d (a clean relative path) like Open.
func (d *Dir) Open(name string, noFollow bool) (File, error) {
	flags := openFlags
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	dirfd, p := d.at(name)
	fd, err := openatPath(dirfd, p, flags)
	if err != nil {
		return File{fd: -1}, err
	}
	return File{fd: fd, name: p}, nil
}
