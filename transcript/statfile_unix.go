//go:build unix

package transcript

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// rawFile reads a file with plain pread calls: listing opens thousands of files, and os.Open's
// set-up for the runtime poller costs more than the reads themselves.
type rawFile struct {
	fd   int
	path string
}

func openForStat(path string) (*rawFile, int64, time.Time, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, time.Time{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, 0, time.Time{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return &rawFile{fd: fd, path: path}, st.Size, time.Unix(st.Mtim.Unix()), nil
}

func (f *rawFile) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Pread(f.fd, b[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }
