//go:build unix

package transcript

import "syscall"

// cpuTime returns the CPU time (user and system) this process has used, in ns; on a loaded
// machine it is a steadier measure than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
