package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the policy of the agent's Bash tool in workspace-write mode: write the project
// tree, the working dir, the temp dirs and the build tools' caches; keep the project's .git
// and .claude and the protected dirs (STRATA_HOME, the managed settings) read-only; the
// environment without secrets (ScrubEnv).
func Workspace(project, cwd, home string, protected []string, network bool, environ []string) Policy {
	p := Policy{Network: network, Env: ScrubEnv(environ)}
	p.Write = append(p.Write, project, cwd)
	p.Write = append(p.Write, TempDirs()...)
	p.Write = append(p.Write, Caches(home, environ)...)
	for _, d := range []string{project, cwd} {
		p.ReadOnly = append(p.ReadOnly, filepath.Join(d, ".git"), filepath.Join(d, ".claude"))
	}
	p.ReadOnly = append(p.ReadOnly, protected...)
	return p
}

// Unattended is the policy of a command no one watches (a background fork's): write only
// the dirs given (the memory dir and a private temp dir) but their .git (a team store is a
// git clone), no network, MinimalEnv.
func Unattended(write []string, environ []string) Policy {
	p := Policy{Write: write, Env: MinimalEnv(environ)}
	for _, d := range write {
		p.ReadOnly = append(p.ReadOnly, filepath.Join(d, ".git"))
	}
	return p
}

// TempDirs are the shared temp dirs: $TMPDIR (or /tmp), /var/tmp, /dev/shm.
func TempDirs() []string {
	return []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"}
}

// Caches are the build tools' caches under home, and those environ moves elsewhere: Go's
// build and module caches, ~/.cache (pip, go-build, and most XDG caches), npm, yarn, pnpm,
// cargo, rustup, gradle and maven.
func Caches(home string, environ []string) []string {
	get := func(name string) string {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	var out []string
	if home != "" {
		for _, d := range []string{".cache", "go/pkg/mod", ".npm", ".yarn", ".local/share/pnpm", ".cargo/registry", ".cargo/git",
			".rustup", ".gradle", ".m2/repository", ".local/share/virtualenvs"} {
			out = append(out, filepath.Join(home, d))
		}
	}
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "XDG_CACHE_HOME", "npm_config_cache", "PIP_CACHE_DIR"} {
		if v := get(name); filepath.IsAbs(v) {
			out = append(out, v)
		}
	}
	if v := get("CARGO_HOME"); filepath.IsAbs(v) {
		out = append(out, filepath.Join(v, "registry"), filepath.Join(v, "git"))
	}
	if gp := get("GOPATH"); gp != "" {
		for _, d := range filepath.SplitList(gp) {
			if filepath.IsAbs(d) {
				out = append(out, filepath.Join(d, "pkg", "mod"))
			}
		}
	}
	return out
}
