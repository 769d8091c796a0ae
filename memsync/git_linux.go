package memsync

import "syscall"

// setDeathSignal has the kernel kill git when the process that started it dies (kill -9
// included), so that no git of a killed sync keeps locks in the repository.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
