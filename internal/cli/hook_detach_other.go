//go:build !unix

package cli

import "os/exec"

// detach does nothing where there are no sessions to leave.
func detach(*exec.Cmd) {}
