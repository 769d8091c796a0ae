package bench

import (
	"time"

	"github.com/strata-mem/strata/internal/fastio"
)

// cpuTime returns the CPU time (user + system) this process has used so far (0 where it is not
// measured), so benchmarks can report work done apart from time spent waiting for a busy
// machine.
func cpuTime() time.Duration { return fastio.CPUTime() }
