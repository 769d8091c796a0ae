//go:build !unix

package recall

import "os"

// mapFile reads the file at path whole (see the unix version, which maps it).
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

// unmapFile lets the garbage collector have data.
func unmapFile([]byte) {}
