//go:build unix && !linux

package instructions

import "syscall"

// openAt opens dir/name like syscall.Open.
func openAt(b *base, dir, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(under(dir, name), flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
