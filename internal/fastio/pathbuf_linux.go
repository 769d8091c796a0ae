package fastio

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// OpenAt is Open of the path in p: relative to d, or, when d is nil, to the working directory
// (an absolute path then). The path goes to the kernel from p's own buffer. The File's Name
// is "": the caller, who spelled the path, knows it.
func OpenAt(d *Dir, p *PathBuf, noFollow bool) (File, error) {
	flags := openFlags | unix.O_LARGEFILE
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	dirfd := unix.AT_FDCWD
	if d != nil {
		if d.fd < 0 {
			return d.Open(p.String(), noFollow)
		}
		dirfd = d.fd
	}
	c := p.cstr()
	if c == nil {
		fd, err := openatPath(dirfd, p.String(), flags)
		if err != nil {
			return File{fd: -1}, err
		}
		return File{fd: fd}, nil
	}
	for {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(c)), uintptr(flags), 0, 0, 0)
		switch e {
		case 0:
			return File{fd: int(fd)}, nil
		case unix.EINTR:
			continue
		}
		return File{fd: -1}, e
	}
}

// TypeAt is Dir.Type (StatPath's type bits when d is nil) of the path in p, which goes to the
// kernel from p's own buffer.
func TypeAt(d *Dir, p *PathBuf, noFollow bool) (fs.FileMode, error) {
	flags := 0
	if noFollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	dirfd := unix.AT_FDCWD
	if d != nil {
		if d.fd < 0 {
			return d.Type(p.String(), noFollow)
		}
		dirfd = d.fd
	}
	if c := p.cstr(); c != nil && !noStatx.Load() {
		var stx unix.Statx_t
		for {
			_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(dirfd), uintptr(unsafe.Pointer(c)), uintptr(flags),
				unix.STATX_TYPE, uintptr(unsafe.Pointer(&stx)), 0)
			switch e {
			case 0:
				return modeOf(uint32(stx.Mode)), nil
			case unix.EINTR:
				continue
			case unix.ENOSYS, unix.EPERM: // no statx here: statxInfo takes the fstatat route
			default:
				return 0, e
			}
			break
		}
	}
	info, err := statxInfo(dirfd, p.String(), flags, unix.STATX_TYPE)
	return info.Mode, err
}
