package recall

import (
	"io/fs"
	"syscall"
	"time"
)

// readStat reads the start of the regular file at path, at most limit bytes, into *buf
// (grown as needed and kept for the next file) and returns those bytes with the file's mtime
// and size. Four system calls (open, fstat, read, close); see readPrefix. A file that is not
// regular gives errNotRegular.
func readStat(path string, buf *[]byte, limit int64) (data []byte, mod time.Time, size int64, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, time.Time{}, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd) // the stat error is the one to report
		return nil, time.Time{}, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd) // nothing was read; the file is refused either way
		return nil, time.Time{}, 0, errNotRegular
	}
	want := int(min(max(st.Size, 0), limit))
	if cap(*buf) < want {
		*buf = make([]byte, max(want, 4<<10))
	}
	data = (*buf)[:want]
	n := 0
	for n < len(data) {
		k, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd) // the read error is the one to report
			return nil, time.Time{}, 0, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if k == 0 {
			break
		}
		n += k
	}
	if err := syscall.Close(fd); err != nil {
		return nil, time.Time{}, 0, &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return data[:n], time.Unix(st.Mtim.Unix()), st.Size, nil
}
