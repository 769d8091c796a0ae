//go:build unix

package memsync

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// detach starts git in a session of its own, without a controlling terminal, so that nothing
// it runs (ssh asking for a passphrase or a host key) can prompt on the user's terminal: it
// fails instead. A timeout kills the whole process group, ssh included; on Linux git is also
// killed when strata dies (setDeathSignal).
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// endGroup kills the process group pgid a killed sync left, and reports whether it did. Where
// /proc tells, the group's leader must still be a git command: a number recycled for another
// program is left alone.
func endGroup(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	if runtime.GOOS == "linux" {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pgid))
		if err != nil || !bytes.HasPrefix(comm, []byte("git")) {
			return false
		}
	} else {
		return false // no cheap way to check what the number names now
	}
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return false
	}
	for i := 0; i < 100 && syscall.Kill(-pgid, 0) == nil; i++ {
		time.Sleep(10 * time.Millisecond) // gone before its locks are taken for stale
	}
	return true
}
