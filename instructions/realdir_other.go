//go:build !linux

package instructions

// resolveDir returns dir (absolute) with every symlink resolved, failing when it is not a
// directory.
func resolveDir(dir string) (string, error) { return resolveDirSlow(dir) }
