package bench

import (
	"slices"
	"time"
)

// ms is d in milliseconds, to the microsecond: the unit of every figure the benchmarks print
// in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile returns the q-quantile of ds (nearest rank); 0 for none. ds is not changed.
// Every percentile a benchmark prints comes from here.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}
