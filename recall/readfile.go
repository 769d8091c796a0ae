package recall

import (
	"time"

	"github.com/strata-mem/strata/internal/fastio"
)

// readPrefix reads the start of the file at path into buf, up to len(buf) bytes or the end of
// the file, and returns how many bytes it read (fastio.ReadPrefix: three system calls, and a
// FIFO put in a file's place does not block the open; its read then fails instead). A cold
// build reads thousands of files.
func readPrefix(path string, buf []byte) (int, error) { return fastio.ReadPrefix(path, buf) }

// readStat reads the start of the regular file at path, at most limit bytes, into *buf
// (grown as needed and kept for the next file) and returns those bytes with the file's mtime
// and size (fastio.ReadHead: four system calls). A file that is not regular gives
// errNotRegular.
func readStat(path string, buf *[]byte, limit int64) (data []byte, mod time.Time, size int64, err error) {
	data, info, err := fastio.ReadHead(path, buf, limit)
	if err != nil {
		return nil, time.Time{}, 0, err
	}
	return data, time.Unix(0, info.MTime), info.Size, nil
}
