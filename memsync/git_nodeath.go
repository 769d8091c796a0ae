//go:build unix && !linux

package memsync

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal: the next sync ends
// what a killed one left (endGroup).
func setDeathSignal(*syscall.SysProcAttr) {}
