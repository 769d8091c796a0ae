//go:build unix

package recall

import (
	"io/fs"
	"syscall"
)

// readPrefix reads the start of the file at path into buf, up to len(buf) bytes or the end of
// the file, and returns how many bytes it read. It makes three system calls (open, read,
// close): os.Open also sets the descriptor non-blocking and tries to register it with the
// network poller, four more calls that a regular file does not need and that add up on a cold
// build of thousands of files. O_NONBLOCK keeps a FIFO put in a file's place from blocking
// the open (its read then fails instead).
func readPrefix(path string, buf []byte) (int, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	n := 0
	for n < len(buf) {
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd) // the read error is the one to report
			return n, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if k == 0 {
			break
		}
		n += k
	}
	if err := syscall.Close(fd); err != nil {
		return n, &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return n, nil
}
