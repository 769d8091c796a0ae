//go:build !unix

package transcript

import (
	"os"
	"time"
)

func openForStat(path string) (*os.File, int64, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, time.Time{}, err
	}
	return f, fi.Size(), fi.ModTime(), nil
}
