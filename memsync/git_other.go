//go:build !unix

package memsync

import "os/exec"

// detach does nothing where there are no sessions: GIT_TERMINAL_PROMPT=0 is the only guard
// against prompts there.
func detach(cmd *exec.Cmd) {}

// endGroup does nothing where there are no process groups.
func endGroup(int) bool { return false }
