package compact

import (
	"errors"
	"fmt"
	"sync"
)

// MaxFailures is how many automatic compactions in a row may fail before auto-compaction stops.
const MaxFailures = 3

// Thrash detection: when the context is past the automatic threshold again within RefillTurns
// user turns of the last compaction, MaxRefills times in a row, compacting once more would only
// repeat that, and auto-compaction stops.
const (
	MaxRefills  = 3
	RefillTurns = 2
)

// Trigger says who asked for a compaction.
type Trigger string

// Triggers; the values are written into the boundary entry's compactMetadata.
const (
	Auto   Trigger = "auto"
	Manual Trigger = "manual"
)

// Breaker is the small state machine the agent holds to stop automatic compaction when it
// does not help: after MaxFailures consecutive failures (a compaction that would not shrink
// the context counts as one), or when the context refills past the threshold within
// RefillTurns turns of a compaction MaxRefills times in a row (thrash). Manual compaction is
// always allowed; a manual success resets both counts and re-enables auto-compaction. Safe for
// concurrent use; the zero value is ready.
type Breaker struct {
	mu        sync.Mutex
	turn      int  // user turns so far (Turn)
	compacted int  // the turn of the last successful compaction (when any is set)
	any       bool // a compaction succeeded
	counted   bool // this compaction's refill was counted already
	refills   int  // rapid refills in a row
	failures  int
	stopped   bool
}

// Turn records that a user turn began.
func (b *Breaker) Turn() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.turn++
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

// Refills returns the number of rapid refills in a row.
func (b *Breaker) Refills() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refills
}

// Due is called when the context is past the automatic threshold. It reports whether to
// compact automatically now. A refill within RefillTurns turns of the last compaction counts
// (once per compaction; a slower one resets the count); at the MaxRefills-th in a row,
// auto-compaction stops and Due returns false with the message for the user.
func (b *Breaker) Due() (bool, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return false, ""
	}
	if b.any && !b.counted {
		b.counted = true
		if b.turn-b.compacted <= RefillTurns {
			b.refills++
		} else {
			b.refills = 0
		}
	}
	if b.refills >= MaxRefills {
		b.stopped = true
		return false, fmt.Sprintf("Automatic compaction is now off for this session: %d times in a row the context filled up again within %d turns of being compacted, so compacting again would only repeat that (and cost a model call each time). What a compaction keeps — your pinned instructions, your latest message, the files re-read — takes most of the room the window leaves. Run /compact to compact by hand (a success turns automatic compaction back on), start a new session, or use a model with a larger context window.", b.refills, RefillTurns)
	}
	return true, ""
}

// Record notes the outcome of a compaction triggered by t. It returns a message for the user
// when auto-compaction has just been stopped by MaxFailures automatic failures in a row ("" otherwise).
// A success restarts the refill watch from this turn; a manual success also resets the counts
// and turns auto-compaction back on.
func (b *Breaker) Record(t Trigger, err error) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		b.failures = 0
		b.any, b.compacted, b.counted = true, b.turn, false
		if t == Manual {
			b.refills, b.stopped = 0, false
		}
		return ""
	}
	if t == Manual {
		return "" // a failed /compact is reported to whoever ran it and stops nothing
	}
	b.failures++
	if b.failures >= MaxFailures && !b.stopped {
		b.stopped = true
		what := "failed"
		if errors.Is(err, ErrNotSmaller) {
			what = "failed or could not make the context smaller"
		}
		return fmt.Sprintf("Automatic compaction %s %d times in a row and is now off for this session (last error: %v). Run /compact to compact by hand; a success turns automatic compaction back on.", what, b.failures, err)
	}
	return ""
}
