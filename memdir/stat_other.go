//go:build !unix

package memdir

import "io/fs"

// inode is not available here; size and mtime alone detect changes.
func inode(fs.FileInfo) uint64 { return 0 }
