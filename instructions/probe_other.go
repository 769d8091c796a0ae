//go:build !linux

package instructions

import (
	"io/fs"
)

// statAt returns the type bits of dir/name, following a final symlink unless noFollow.
func statAt(b *base, dir, name string, noFollow bool) (fs.FileMode, error) {
	return statType(under(dir, name), noFollow)
}
