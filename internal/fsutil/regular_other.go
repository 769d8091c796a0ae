//go:build !unix

package fsutil

import "os"

// setBlocking has nothing to do where opens do not block on a FIFO.
func setBlocking(*os.File) error { return nil }
