package extract

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// gatedRun is a run function that blocks until released, counting its calls.
type gatedRun struct {
	mu      sync.Mutex
	calls   int
	started chan struct{}
	release chan struct{}
	err     error
}

func newGatedRun() *gatedRun {
	return &gatedRun{started: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gatedRun) run(ctx context.Context) error {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	g.started <- struct{}{}
	select {
	case <-g.release:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gatedRun) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

func TestSchedulerCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedRun()
		s := NewScheduler(g.run, SchedulerOptions{})
		s.Turn()
		<-g.started
		for range 3 {
			s.Turn() // never blocks, though the run is in flight
		}
		g.release <- struct{}{}
		<-g.started // exactly one more run
		g.release <- struct{}{}
		synctest.Wait()
		if n := g.count(); n != 2 {
			t.Errorf("runs = %d; want 2", n)
		}
		st := s.Stats()
		if st.Runs != 2 || st.Queued != 1 || st.Coalesced != 2 || st.Failed != 0 {
			t.Errorf("stats = %+v; want 2 runs, 1 queued, 2 coalesced", st)
		}
		if err := s.Drain(time.Second); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSchedulerEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		runs := 0
		s := NewScheduler(func(context.Context) error { mu.Lock(); runs++; mu.Unlock(); return nil }, SchedulerOptions{Every: 3})
		for range 7 {
			s.Turn()
			synctest.Wait()
		}
		if err := s.Drain(time.Minute); err != nil {
			t.Fatal(err)
		}
		if runs != 2 {
			t.Errorf("runs after 7 turns with Every=3 = %d; want 2", runs)
		}
	})
}

func TestSchedulerDrainWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedRun()
		g.err = errors.New("model said no")
		s := NewScheduler(g.run, SchedulerOptions{})
		if s.Busy() {
			t.Error("Busy before any Turn")
		}
		s.Turn()
		<-g.started
		if !s.Busy() {
			t.Error("not Busy during a run")
		}
		s.Turn() // queued
		go func() {
			time.Sleep(10 * time.Second)
			g.release <- struct{}{}
			<-g.started
			g.release <- struct{}{}
		}()
		if err := s.Drain(time.Minute); err != nil {
			t.Fatalf("Drain = %v; want nil (the runs finished in time)", err)
		}
		if s.Busy() {
			t.Error("Busy after Drain")
		}
		st := s.Stats()
		if st.Runs != 2 || st.Failed != 2 || st.LastErr == nil || st.Cancelled != 0 {
			t.Errorf("stats = %+v; want 2 failed runs, none cancelled", st)
		}
		s.Turn() // after Drain: nothing
		synctest.Wait()
		if g.count() != 2 {
			t.Errorf("a Turn after Drain started a run")
		}
		if err := s.Drain(time.Second); err != nil {
			t.Errorf("second Drain = %v", err)
		}
	})
}

func TestSchedulerDrainTimeoutCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGatedRun()
		s := NewScheduler(g.run, SchedulerOptions{})
		s.Turn()
		<-g.started
		s.Turn() // queued: must not run once cancelled
		err := s.Drain(5 * time.Second)
		if !errors.Is(err, ErrDrainTimeout) {
			t.Fatalf("Drain = %v; want ErrDrainTimeout", err)
		}
		if g.count() != 1 {
			t.Errorf("runs = %d; want 1 (the queued run is dropped once cancelled)", g.count())
		}
		st := s.Stats()
		if st.Cancelled != 2 || !errors.Is(st.LastErr, context.Canceled) {
			t.Errorf("stats = %+v; want the run and the queued run counted as cancelled", st)
		}
		// synctest.Test fails if any goroutine the Scheduler started is still alive here.
	})
}

func TestSchedulerPanicIsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewScheduler(func(context.Context) error { panic("boom") }, SchedulerOptions{})
		s.Turn()
		synctest.Wait()
		s.Turn()
		if err := s.Drain(time.Second); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Runs != 2 || st.Failed != 2 {
			t.Errorf("stats = %+v; want 2 failed runs", st)
		}
	})
}
