package memsync

import (
	"io/fs"
	"syscall"
)

// sysStamp is a file's inode and ctime in nanoseconds (ctime changes with every write and
// every touch, even one that sets mtime back).
func sysStamp(fi fs.FileInfo) (ino, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		sec, nsec := st.Ctimespec.Unix()
		return int64(st.Ino), sec*1e9 + nsec
	}
	return 0, 0
}
