//go:build !unix

package recall

import (
	"io"
	"os"
)

// readPrefix reads the start of the file at path into buf, up to len(buf) bytes or the end of
// the file, and returns how many bytes it read.
func readPrefix(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
