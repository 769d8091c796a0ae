package tool

import "os/exec"

// killTree leaves exec's own cancellation in place: when cmd's context ends, the shell
// process is killed. Windows has no process groups to signal; children the shell started
// are left to the WaitDelay that bounds the wait for their output.
func killTree(cmd *exec.Cmd) {}
