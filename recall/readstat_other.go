//go:build !linux

package recall

import (
	"io"
	"os"
	"time"
)

// readStat reads the start of the regular file at path, at most limit bytes, into *buf
// (grown as needed and kept for the next file) and returns those bytes with the file's mtime
// and size. A file that is not regular gives errNotRegular.
func readStat(path string, buf *[]byte, limit int64) (data []byte, mod time.Time, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, time.Time{}, 0, errNotRegular
	}
	want := int(min(max(fi.Size(), 0), limit))
	if cap(*buf) < want {
		*buf = make([]byte, max(want, 4<<10))
	}
	data = (*buf)[:want]
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, time.Time{}, 0, err
	}
	return data[:n], fi.ModTime(), fi.Size(), nil
}
