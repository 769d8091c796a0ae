//go:build unix

package recall

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the file at path privately into memory: pages are read as they are used, and a
// write (compacting a posting list in place) goes to a private copy, never to the file. The
// base is only ever replaced by a rename, so the mapping stays valid for the process's life.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > 1<<40 {
		return nil, fmt.Errorf("%w: %s is not a saved index", errCache, path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("recall: map %s: %w", path, err)
	}
	return data, nil
}

// unmapFile releases a mapping nothing points into.
func unmapFile(data []byte) { _ = syscall.Munmap(data) }
