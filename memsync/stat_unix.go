//go:build unix && !linux && !darwin

package memsync

import (
	"io/fs"
	"syscall"
)

// sysStamp is a file's inode (0 where the system does not say); ctime is left 0 (its field
// differs between Unix systems; size, mtime and inode with the racy window suffice).
func sysStamp(fi fs.FileInfo) (ino, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino), 0
	}
	return 0, 0
}
