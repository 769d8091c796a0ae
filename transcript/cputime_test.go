package transcript

import "github.com/strata-mem/strata/internal/fastio"

// cpuTime returns the CPU time (user and system) this process has used, in ns (0 where it is
// not measured); on a loaded machine it is a steadier measure than wall time.
func cpuTime() int64 { return int64(fastio.CPUTime()) }
