//go:build !unix

package memsync

import "io/fs"

// sysStamp is 0, 0 where there are no inodes: size and mtime alone say a file is unchanged.
func sysStamp(fi fs.FileInfo) (ino, ctime int64) { return 0, 0 }
