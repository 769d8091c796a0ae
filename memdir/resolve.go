package memdir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/config"
)

// EnvVar is the environment variable that overrides the memory directory.
const EnvVar = "STRATA_MEMORY_DIR"

// Location is what decides a project's memory directory besides the environment.
type Location struct {
	// Flag is the --memory-dir flag, relative to the working directory ("" when not given).
	Flag string
	// Setting is the autoMemoryDirectory setting, relative to the project root ("" when not set).
	Setting string
	// Root is the project root; "" means config.ProjectRoot(cwd).
	Root string
}

// Resolve returns the memory directory for the project containing cwd, the first set of:
// loc.Flag (relative to cwd), STRATA_MEMORY_DIR (relative to cwd), loc.Setting (relative to
// the project root), else $STRATA_HOME/projects/<config.Slug of the root>/memory, the root
// being loc.Root or config.ProjectRoot(cwd) (the main working tree, shared by worktrees).
// "~/" means env.UserHome. The result is absolute and clean; nothing is created.
func Resolve(env config.Env, cwd string, loc Location) (dir string, err error) {
	if cwd == "" {
		return "", fmt.Errorf("memdir: resolve memory dir: no working directory")
	}
	cwd, err = filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("memdir: resolve memory dir: %w", err)
	}
	abs := func(p, base string) string {
		if p == "~" {
			return filepath.Clean(env.UserHome)
		}
		if strings.HasPrefix(p, "~/") && env.UserHome != "" {
			return filepath.Join(env.UserHome, p[2:])
		}
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	if loc.Flag != "" {
		return abs(loc.Flag, cwd), nil
	}
	if v := env.Var(EnvVar); v != "" {
		return abs(v, cwd), nil
	}
	root := loc.Root
	if root == "" {
		root = config.ProjectRoot(cwd)
	}
	if loc.Setting != "" {
		return abs(loc.Setting, root), nil
	}
	if env.Home == "" {
		return "", fmt.Errorf("memdir: resolve memory dir: STRATA_HOME is not set")
	}
	return filepath.Join(env.ProjectsDir(), config.Slug(root), "memory"), nil
}
