//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detach puts c in a session of its own, so that Claude Code ending its hooks' process group
// does not end it.
func detach(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
