//go:build unix

package fastio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FileID identifies a file whatever name reached it: its device and inode.
type FileID struct{ dev, ino uint64 }

// File is an open file read with plain system calls: no poller registration (os.Open's
// set-up costs more than the reads of a small file) and pread at any offset.
type File struct {
	fd   int
	name string
}

// openFlags opens for reading, non-blocking (a FIFO or device never blocks the open) and
// closed on exec.
const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC

// Open opens path for reading without blocking. With noFollow a symlink as the last element
// fails (IsSymlinkErr). The error is the bare errno.
func Open(path string, noFollow bool) (File, error) {
	flags := openFlags
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := sysOpen(path, flags)
	if err != nil {
		return File{fd: -1}, err
	}
	return File{fd: fd, name: path}, nil
}

// Name is the name the file was opened by.
func (f File) Name() string { return f.name }

// Stat returns what fstat says about the file.
func (f File) Stat() (Info, error) {
	var st unix.Stat_t
	err := unix.Fstat(f.fd, &st)
	for err == unix.EINTR {
		err = unix.Fstat(f.fd, &st)
	}
	if err != nil {
		return Info{}, err
	}
	return infoOf(&st), nil
}

// Pread reads into b at offset off with one pread (retried on EINTR) and returns what it
// returned: fewer bytes than asked, and at least one, only at the end of a regular file;
// pipes, FIFOs, terminals and directories refuse it.
func (f File) Pread(b []byte, off int64) (int, error) {
	n, err := unix.Pread(f.fd, b, off)
	for err == unix.EINTR {
		n, err = unix.Pread(f.fd, b, off)
	}
	return n, err
}

// ReadAt reads len(b) bytes at off (io.ReaderAt): io.EOF when the file ends first.
func (f File) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Pread(b[n:], off+int64(n))
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// Close closes the file.
func (f File) Close() error { return unix.Close(f.fd) }

// IsSymlinkErr reports the error Open gives with noFollow on a symlink.
func IsSymlinkErr(err error) bool { return errors.Is(err, unix.ELOOP) }

// StatPath returns what stat (lstat with noFollow) says about path. It allocates nothing on
// Linux (the path goes to the kernel through a pooled buffer) and only the path's copy
// elsewhere: most calls are probes of names that do not exist. The error is the bare errno.
func StatPath(path string, noFollow bool) (Info, error) { return sysStat(path, noFollow) }

// ReadPrefix reads the start of the file at path into buf, up to len(buf) bytes or the end of
// the file, and returns how many bytes it read: three system calls (open, read, close).
func ReadPrefix(path string, buf []byte) (int, error) {
	f, err := Open(path, false)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	n, err := f.read(buf)
	return n, f.closeAfter(err)
}

// ReadHead reads the start of the regular file at path, at most limit bytes, into *buf
// (grown as needed and kept for the next file) and returns those bytes and what fstat said:
// four system calls (open, fstat, read, close). A file that is not regular gives
// ErrNotRegular, unread.
func ReadHead(path string, buf *[]byte, limit int64) ([]byte, Info, error) {
	f, err := Open(path, false)
	if err != nil {
		return nil, Info{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close() // the stat error is the one to report
		return nil, Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if !info.Mode.IsRegular() {
		f.Close() // nothing was read; the file is refused either way
		return nil, Info{}, ErrNotRegular
	}
	data := grow(buf, int(min(max(info.Size, 0), limit)))
	n, err := f.read(data)
	if err := f.closeAfter(err); err != nil {
		return nil, Info{}, err
	}
	return data[:n], info, nil
}

// read fills b from the file's current offset, up to its end; errors are *fs.PathError.
func (f File) read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := unix.Read(f.fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if k == 0 {
			break
		}
		n += k
	}
	return n, nil
}

// closeAfter closes f and returns err, or the close error when err is nil.
func (f File) closeAfter(err error) error {
	if cerr := f.Close(); err == nil && cerr != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: cerr}
	}
	return err
}

// CPUTime returns the CPU time (user and system) this process has used so far, 0 where it
// cannot be measured: on a busy machine a steadier measure of work than wall time.
func CPUTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func infoOf(st *unix.Stat_t) Info {
	return Info{
		Mode:  modeOf(uint32(st.Mode)),
		Size:  int64(st.Size),
		MTime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)).UnixNano(),
		CTime: time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)).UnixNano(),
		Ino:   uint64(st.Ino),
		ID:    FileID{uint64(st.Dev), uint64(st.Ino)},
	}
}

// modeOf turns the type bits of a stat mode into fs.FileMode's.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// MaxRSSKB returns the peak resident memory of the exited process ps in KB, as getrusage
// reports it (ok false when it does not).
func MaxRSSKB(ps *os.ProcessState) (kb float64, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return float64(ru.Maxrss) / 1024, true // bytes there
	}
	return float64(ru.Maxrss), true
}
