package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
)

// Errors of OpenRegular and ReadRegular, wrapped with the path.
var (
	// ErrNotRegular is returned for a FIFO, device, socket or directory: reading one could
	// block forever (a FIFO with no writer) or never end (/dev/zero).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is returned for a file over the caller's size cap (a huge sparse file).
	ErrTooLarge = errors.New("file too large")
)

// OpenRegular opens path for reading only if it is a regular file of at most max bytes, and
// returns it with what fstat said. The open is non-blocking, so a FIFO without a writer cannot
// hang it; the type is checked on the open descriptor (fstat), so a name swapped between a stat
// and the open cannot slip a device in; O_NONBLOCK is cleared again before the file is
// returned. A symlink is followed and its target checked. Errors name the path and wrap
// ErrNotRegular or ErrTooLarge when the file is refused.
func OpenRegular(path string, max int64) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, path, max)
}

// OpenRegularIn is OpenRegular for name inside root: the name cannot leave the root, symlinks
// included (os.Root's rules).
func OpenRegularIn(root *os.Root, name string, max int64) (*os.File, os.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, name, max)
}

// ReadRegular reads the regular file at path, at most max bytes (see OpenRegular). A file that
// grows past max while it is read is refused too.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path, max)
	if err != nil {
		return nil, err
	}
	return readCapped(f, fi, path, max)
}

// ReadRegularIn is ReadRegular for name inside root.
func ReadRegularIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, fi, err := OpenRegularIn(root, name, max)
	if err != nil {
		return nil, err
	}
	return readCapped(f, fi, name, max)
}

// checkRegular refuses f unless it is a regular file within max bytes, and makes it blocking.
// It closes f whenever it returns an error.
func checkRegular(f *os.File, name string, max int64) (*os.File, os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close() // the stat error is the one to report
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close() // unread; refused either way
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))}
	}
	if fi.Size() > max {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, fi.Size(), max)}
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f, fi, nil
}

// readCapped reads f (stat-ed as fi) to its end, refusing more than max bytes, and closes it.
func readCapped(f *os.File, fi os.FileInfo, name string, max int64) ([]byte, error) {
	defer f.Close()
	limit := max // one byte more than the cap, to see a file that grew past it
	if limit < math.MaxInt64 {
		limit++
	}
	buf := make([]byte, 0, min(fi.Size(), max)+1) // one byte more, to see the end in one read
	data, err := readAllInto(buf, io.LimitReader(f, limit))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: grew past the limit of %d bytes while read", ErrTooLarge, max)}
	}
	return data, nil
}

// readAllInto is io.ReadAll appending to buf.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// Kind names a file's type for a message ("a FIFO", "a symlink" …): the one wording every
// refusal of a file that is not regular uses.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}
