//go:build !linux

package fastio

import "io/fs"

// OpenAt is Open of the path in p: relative to d, or, when d is nil, to the working directory
// (an absolute path then). The File's Name is the path.
func OpenAt(d *Dir, p *PathBuf, noFollow bool) (File, error) {
	if d != nil {
		return d.Open(p.String(), noFollow)
	}
	return Open(p.String(), noFollow)
}

// TypeAt is Dir.Type (StatPath's type bits when d is nil) of the path in p.
func TypeAt(d *Dir, p *PathBuf, noFollow bool) (fs.FileMode, error) {
	if d != nil {
		return d.Type(p.String(), noFollow)
	}
	info, err := StatPath(p.String(), noFollow)
	return info.Mode, err
}
