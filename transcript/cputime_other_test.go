//go:build !unix

package transcript

// cpuTime is 0 where getrusage does not exist; benchmarks then report no CPU time.
func cpuTime() int64 { return 0 }
