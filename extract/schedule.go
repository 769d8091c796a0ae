package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// SchedulerOptions configure a Scheduler. The zero value runs at every turn.
type SchedulerOptions struct {
	// Every is how many turns pass between runs: 1 (the default, also for 0 or less) runs at
	// every turn, 3 at every third (setting memoryExtractEvery).
	Every int
	// Logger receives a line per failed run; nil discards.
	Logger *slog.Logger
}

// SchedulerStats count what a Scheduler did.
type SchedulerStats struct {
	Runs      int   // runs started
	Queued    int   // requests that arrived during a run and were kept for one more run
	Coalesced int   // requests merged into an already queued run
	Failed    int   // runs that returned an error (or panicked)
	Cancelled int   // runs or queued runs cut short by Drain's time limit
	LastErr   error // the last failure, nil when none
}

// ErrDrainTimeout is wrapped by the error Drain returns when the runs did not finish in time
// and were cancelled.
var ErrDrainTimeout = errors.New("extraction still running at the drain time limit")

// Scheduler decides when extraction runs: every Every-th turn, one run at a time, in a
// goroutine it owns. A request that arrives while a run is in flight is kept and causes exactly
// one more run after it; further requests fold into that one. Drain waits for the runs with a
// time limit at exit. It is safe for concurrent use.
type Scheduler struct {
	run   func(ctx context.Context) error
	every int
	log   *slog.Logger

	ctx    context.Context // the runs' context, cancelled by Drain's time limit
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	turns   int
	running bool
	queued  bool
	closed  bool
	stats   SchedulerStats
}

// NewScheduler returns a Scheduler for run. run gets a context that is cancelled only when
// Drain runs out of time.
func NewScheduler(run func(ctx context.Context) error, opts SchedulerOptions) *Scheduler {
	if opts.Every < 1 {
		opts.Every = 1
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Scheduler{run: run, every: opts.Every, log: log, ctx: ctx, cancel: cancel}
}

// Turn is called at the end of each main-agent turn. Every Every-th call starts a run, or, when
// one is in flight, queues one more (at most one). It never blocks on a run. After Drain it
// does nothing.
func (s *Scheduler) Turn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.turns++
	if s.turns%s.every != 0 {
		return
	}
	if s.running {
		if s.queued {
			s.stats.Coalesced++
		} else {
			s.queued = true
			s.stats.Queued++
		}
		return
	}
	s.running = true
	s.wg.Go(s.loop)
}

// loop runs until no run is queued.
// Busy reports whether a run is in flight (or queued after it).
func (s *Scheduler) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func (s *Scheduler) loop() {
	for {
		s.mu.Lock()
		s.stats.Runs++
		s.mu.Unlock()
		err := s.runOnce()
		s.mu.Lock()
		if err != nil {
			if s.ctx.Err() != nil {
				s.stats.Cancelled++
			} else {
				s.stats.Failed++
			}
			s.stats.LastErr = err
			s.log.Warn("extract: extraction failed", "err", err)
		}
		if s.queued && s.ctx.Err() == nil {
			s.queued = false
			s.mu.Unlock()
			continue
		}
		if s.queued {
			s.queued = false
			s.stats.Cancelled++
		}
		s.running = false
		s.mu.Unlock()
		return
	}
}

// runOnce calls run, turning a panic into an error so that one bad run does not end the
// process or leave the Scheduler marked running.
func (s *Scheduler) runOnce() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("extract: extraction panicked: %v", r)
		}
	}()
	return s.run(s.ctx)
}

// Drain stops new runs, then waits up to timeout for the running and the queued run. If they
// are not done by then, their context is cancelled and Drain waits for them to return; the
// error then wraps ErrDrainTimeout. A second Drain returns at once.
func (s *Scheduler) Drain(timeout time.Duration) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
		s.cancel()
		return nil
	case <-timer.C:
	}
	s.cancel()
	<-done
	return fmt.Errorf("extract: %w (%s); cancelled", ErrDrainTimeout, timeout)
}

// Stats returns the counts so far.
func (s *Scheduler) Stats() SchedulerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
