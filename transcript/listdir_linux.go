//go:build linux

package transcript

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sessionDir is a project directory as listing reads it: the names of its session files in
// the directory's own order (the order getdents returns, stable while the directory does not
// change) and, while open, a descriptor so that each file is stat-ed relative to it with the
// name still NUL-terminated in the getdents buffer: one short path walk and no allocation per
// file. On this kind of machine a system call costs microseconds, so listing is mostly the
// count of calls; the whole directory is read with a buffer big enough for a thousand names
// in one or two calls.
type sessionDir struct {
	path  string
	fd    int      // -1 once closed (stat then walks the full path)
	raw   []byte   // getdents64 records; names NUL-terminated in place
	names []string // session file names, sharing raw's bytes
	off   []int32  // offset of names[i] in raw
	known []bool   // the directory entry said names[i] is a regular file

	pooled *[]byte // raw's buffer, back to direntPool at release
}

// direntPool keeps getdents buffers between listings (a chat or a benchmark lists often).
var direntPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// openSessionDir reads the session file names of dir. A missing dir is (nil, nil).
func openSessionDir(dir string) (*sessionDir, error) {
	dir = filepath.Clean(dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, nil
		}
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	d := &sessionDir{path: dir, fd: fd, pooled: direntPool.Get().(*[]byte)}
	buf := (*d.pooled)[:0]
	for {
		if cap(buf)-len(buf) < 4<<10 {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := unix.Getdents(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			d.raw = buf
			d.release()
			return nil, &os.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	d.raw = buf
	var all string // buf as a string: it is not written to again, so names can share it
	if len(buf) > 0 {
		all = unsafe.String(&buf[0], len(buf))
	}
	for off := 0; off+19 < len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen == 0 || off+reclen > len(buf) {
			break
		}
		typ := buf[off+18]
		name := all[off+19 : off+reclen]
		if i := strings.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if (typ == unix.DT_REG || typ == unix.DT_UNKNOWN) && isSessionFile(name) {
			d.names = append(d.names, name)
			d.off = append(d.off, int32(off+19))
			d.known = append(d.known, typ == unix.DT_REG)
		}
		off += reclen
	}
	return d, nil
}

// close releases the descriptor; the names stay usable and stat walks the full path.
func (d *sessionDir) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// release closes d and gives its buffer back: its names must not be used afterwards (nothing
// listing returns holds them; paths are built with filepath.Join, which copies).
func (d *sessionDir) release() {
	d.close()
	if d.pooled != nil {
		*d.pooled = d.raw[:0]
		direntPool.Put(d.pooled)
		d.pooled, d.raw, d.names = nil, nil, nil
	}
}

// statxMask asks only for what the freshness check and the type test use.
const statxMask = unix.STATX_TYPE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_CTIME | unix.STATX_INO

// noStatx is set when the kernel or a seccomp filter refuses statx; fstatat is used instead.
var noStatx atomic.Bool

// stat returns the key of names[i] without following a symlink, and whether it is a regular
// file. scratch is a buffer of the caller's, reused for the full path when the directory has
// been closed.
func (d *sessionDir) stat(i int, scratch *[]byte) (fileKey, bool, error) {
	dirfd := d.fd
	var name *byte
	if dirfd >= 0 {
		name = &d.raw[d.off[i]]
	} else {
		b := append(append(append((*scratch)[:0], d.path...), '/'), d.names[i]...)
		*scratch = append(b, 0)
		name, dirfd = &(*scratch)[0], unix.AT_FDCWD
	}
	if !noStatx.Load() {
		var stx unix.Statx_t
		for {
			_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(name)),
				unix.AT_SYMLINK_NOFOLLOW, statxMask, uintptr(unsafe.Pointer(&stx)), 0)
			switch e {
			case 0:
				k := fileKey{Size: int64(stx.Size), MTime: stx.Mtime.Sec*1e9 + int64(stx.Mtime.Nsec)}
				if stx.Mask&unix.STATX_CTIME != 0 {
					k.CTime = stx.Ctime.Sec*1e9 + int64(stx.Ctime.Nsec)
				}
				if stx.Mask&unix.STATX_INO != 0 {
					k.Ino = stx.Ino
				}
				return k, stx.Mode&unix.S_IFMT == unix.S_IFREG, nil
			case unix.EINTR:
				continue
			case unix.ENOSYS, unix.EPERM:
				noStatx.Store(true)
			default:
				return fileKey{}, false, d.statErr(i, e)
			}
			break
		}
	}
	var st unix.Stat_t
	var err error
	for {
		if d.fd >= 0 {
			err = unix.Fstatat(dirfd, d.names[i], &st, unix.AT_SYMLINK_NOFOLLOW)
		} else {
			err = unix.Lstat(d.file(i), &st)
		}
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fileKey{}, false, d.statErr(i, err)
	}
	k := fileKey{Size: st.Size, MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano(), Ino: st.Ino}
	return k, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

func (d *sessionDir) statErr(i int, err error) error {
	return &os.PathError{Op: "stat", Path: d.file(i), Err: err}
}

// file returns the path of names[i].
func (d *sessionDir) file(i int) string { return filepath.Join(d.path, d.names[i]) }
