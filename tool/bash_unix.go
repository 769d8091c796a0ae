//go:build unix

package tool

import (
	"os/exec"
	"syscall"
)

// killTree makes cmd run in a process group of its own and, when its context ends, kills the
// whole group: a shell's children must not outlive the call.
func killTree(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
