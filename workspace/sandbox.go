package workspace

import (
	"path/filepath"

	"github.com/strata-mem/strata/internal/sandbox"
)

// Sandbox returns the policy the agent's Bash commands run under (sandbox.Workspace on the
// working tree, the working dir and the user's home; STRATA_HOME and the managed settings
// read-only; the network as sandboxNetwork says) and whether the sandbox setting confines
// them at all.
func (w *Workspace) Sandbox(environ []string) (sandbox.Policy, bool) {
	if !w.settings.SandboxOn() {
		return sandbox.Policy{}, false
	}
	p := sandbox.Workspace(w.tree, w.cwd, w.env.UserHome, []string{w.env.Home, w.env.ManagedDir}, w.settings.SandboxNet(), environ)
	if w.root != w.tree {
		p.ReadOnly = append(p.ReadOnly, filepath.Join(w.root, ".git"))
	}
	return p, true
}
