//go:build linux

package instructions

import (
	"syscall"
	"unsafe"
)

// atFDCWD is AT_FDCWD as a variable, so that it converts to a uintptr.
var atFDCWD = -100

// openAt opens dir/name (dir clean and absolute, name clean and relative) like syscall.Open,
// but builds the NUL-terminated path in a buffer on the stack: a load probes dozens of names
// that do not exist, and this way a probe allocates nothing.
func openAt(dir, name string, flags int) (int, error) {
	var buf [512]byte
	n := len(dir) + 1 + len(name)
	if n >= len(buf) || hasNUL(dir) || hasNUL(name) {
		return syscall.Open(under(dir, name), flags, 0)
	}
	i := copy(buf[:], dir)
	if i == 0 || buf[i-1] != '/' {
		buf[i] = '/'
		i++
	}
	i += copy(buf[i:], name)
	buf[i] = 0
	for {
		fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(flags|syscall.O_LARGEFILE), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

func hasNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
