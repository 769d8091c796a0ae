//go:build !linux

package instructions

// resolveDir returns dir (absolute) with every symlink resolved, failing when it is not a
// directory; no descriptor is kept (-1).
func resolveDir(dir string) (string, int, error) {
	r, err := resolveDirSlow(dir)
	return r, -1, err
}

// closeDir closes a descriptor resolveDir returned (there are none here).
func closeDir(fd int) {}
