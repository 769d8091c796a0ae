package compact

import (
	"fmt"
	"sync"
)

// MaxFailures is how many automatic compactions in a row may fail before auto-compaction stops.
const MaxFailures = 3

// Trigger says who asked for a compaction.
type Trigger string

// Triggers; the values are written into the boundary entry's compactMetadata.
const (
	Auto   Trigger = "auto"
	Manual Trigger = "manual"
)

// Breaker is the small state machine the agent holds to stop auto-compaction after MaxFailures
// consecutive failures. Manual compaction is always allowed; a success of either kind resets
// the count and re-enables auto-compaction. Safe for concurrent use; the zero value is ready.
type Breaker struct {
	mu       sync.Mutex
	failures int
	stopped  bool
}

// AllowAuto reports whether an automatic compaction may be attempted.
func (b *Breaker) AllowAuto() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.stopped
}

// Failures returns the number of consecutive failures.
func (b *Breaker) Failures() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures
}

// Record notes the outcome of a compaction. It returns a message for the user when
// auto-compaction has just been stopped ("" otherwise).
func (b *Breaker) Record(err error) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		b.failures, b.stopped = 0, false
		return ""
	}
	b.failures++
	if b.failures >= MaxFailures && !b.stopped {
		b.stopped = true
		return fmt.Sprintf("Automatic compaction failed %d times in a row and is now off for this session (last error: %v). Run /compact to compact by hand; a success turns automatic compaction back on.", b.failures, err)
	}
	return ""
}
