package workspace

import (
	"path/filepath"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/sandbox"
)

// Sandbox returns the policy the agent's Bash commands run under (sandbox.Workspace on the
// working tree, the working dir and the user's home; STRATA_HOME, the managed settings and
// the git directories .git files point to read-only; the network as sandboxNetwork says) and
// whether the sandbox setting confines them at all.
func (w *Workspace) Sandbox(environ []string) (sandbox.Policy, bool) {
	if !w.settings.SandboxOn() {
		return sandbox.Policy{}, false
	}
	p := sandbox.Workspace(w.tree, w.cwd, w.env.UserHome, []string{w.env.Home, w.env.ManagedDir}, w.settings.SandboxNet(), environ)
	if w.root != w.tree {
		p.ReadOnly = append(p.ReadOnly, filepath.Join(w.root, ".git"))
	}
	for _, d := range []string{w.tree, w.cwd} { // where a .git file points ("gitdir: .bare")
		p.ReadOnly = append(p.ReadOnly, fsutil.GitDirs(d)[1:]...)
	}
	return p, true
}
