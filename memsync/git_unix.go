//go:build unix

package memsync

import (
	"os/exec"
	"syscall"
)

// detach starts git in a session of its own, without a controlling terminal, so that nothing
// it runs (ssh asking for a passphrase or a host key) can prompt on the user's terminal: it
// fails instead. A timeout kills the whole process group, ssh included.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
