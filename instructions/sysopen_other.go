//go:build unix && !linux

package instructions

import "syscall"

// openAt opens dir/name (dir clean and absolute, name clean and relative) like syscall.Open.
func openAt(dir, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(under(dir, name), flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
