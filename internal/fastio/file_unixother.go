//go:build unix && !linux

package fastio

import "golang.org/x/sys/unix"

// sysOpen opens path with open(2), retried on EINTR. The error is the bare errno.
func sysOpen(path string, flags int) (int, error) {
	fd, err := unix.Open(path, flags, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, flags, 0)
	}
	return fd, err
}

// sysStat stats path (lstat with noFollow), retried on EINTR. The error is the bare errno.
func sysStat(path string, noFollow bool) (Info, error) {
	var st unix.Stat_t
	var err error
	for {
		if noFollow {
			err = unix.Lstat(path, &st)
		} else {
			err = unix.Stat(path, &st)
		}
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return Info{}, err
	}
	return infoOf(&st), nil
}
