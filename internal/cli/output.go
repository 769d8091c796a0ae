package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/strata-mem/strata/internal/fsutil"
)

// writeOutput is the one writer behind every -o/--output flag. "" and "-" write data to out
// (stdout). Any other path is replaced atomically (fsutil.WriteFile) when it does not exist or
// is a regular file; a symlink, FIFO, device, socket or directory there is refused with an
// error naming the path and what it is — never replaced by a file (a device such as /dev/full
// replaced by one, as root) and never written into. To write into one, use -o - and redirect.
// It reports whether it wrote a file.
func writeOutput(out io.Writer, path string, data []byte) (file bool, err error) {
	if path == "" || path == "-" {
		_, err := out.Write(data)
		return false, err
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s is %s: -o replaces only regular files; to write into it use -o - and redirect the output", path, fsutil.Kind(fi.Mode()))
	}
	if err := fsutil.WriteFile(path, data, fsutil.FileMode); err != nil {
		return false, err
	}
	return true, nil
}
