package memsync

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// Background defaults.
const (
	// DefaultDebounce is how long a store must stay unwritten before the background sync runs.
	DefaultDebounce = 5 * time.Second
	// DefaultRetry is how long after a sync that could not reach its upstream the next try is.
	DefaultRetry = 2 * time.Minute
	// DefaultCloseTimeout bounds Close's last syncs when its context has no deadline.
	DefaultCloseTimeout = 20 * time.Second
)

// BackgroundOptions configure a Background. Dirs is required.
type BackgroundOptions struct {
	// Dirs are the stores to sync: each the top of a git work tree with an upstream.
	Dirs []string
	// Debounce is how long a store must stay unwritten before it is synced (0:
	// DefaultDebounce); Poll how often the stores are looked at for writes (0: Debounce).
	Debounce, Poll time.Duration
	// Retry is the wait before trying again after the upstream could not be reached (0:
	// DefaultRetry).
	Retry time.Duration
	// Options are passed to Sync.
	Options Options
	// Sync runs one sync (nil: the package's Sync). Tests pass a fake.
	Sync func(ctx context.Context, dir string, o Options) (Report, error)
}

// Background syncs a session's stores without ever making it wait: every store once at Start,
// then again after the session (or its memory extractor, or anyone) wrote to it and it stayed
// unwritten for the debounce time. One goroutine per store runs its syncs one at a time (and
// Sync's lock keeps other processes out). A failure is one line given to Start's report
// function; the same line is not repeated until a sync succeeds again. Close runs the syncs
// still due and waits for the goroutines.
type Background struct {
	o      BackgroundOptions
	report func(string)
	nudges []chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	started  bool
	closed   bool
	closeCtx context.Context
}

// NewBackground returns a Background for the stores of o; nothing runs before Start.
func NewBackground(o BackgroundOptions) *Background {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Poll <= 0 {
		o.Poll = o.Debounce
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.Sync == nil {
		o.Sync = Sync
	}
	return &Background{o: o, stop: make(chan struct{})}
}

// Start begins: every store is synced now, in the background. report receives one line per
// failure (nil discards them); it is called from the background goroutines.
func (b *Background) Start(report func(line string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || b.closed {
		return
	}
	b.started = true
	if report == nil {
		report = func(string) {}
	}
	b.report = report
	for _, dir := range b.o.Dirs {
		nudge := make(chan struct{}, 1)
		b.nudges = append(b.nudges, nudge)
		b.wg.Go(func() { b.loop(dir, nudge) })
	}
}

// Nudge says a store may have been written: each store is looked at now instead of at the next
// poll. It never blocks.
func (b *Background) Nudge() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.nudges {
		select {
		case n <- struct{}{}:
		default:
		}
	}
}

// Close stops the background syncs: a store written since its last sync is synced once more
// (within ctx, or DefaultCloseTimeout when ctx has no deadline), then Close waits for every
// goroutine.
func (b *Background) Close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCloseTimeout)
		defer cancel()
	}
	b.closeCtx = ctx
	b.mu.Unlock()
	close(b.stop)
	b.wg.Wait()
	return nil
}

// loop is one store's goroutine.
func (b *Background) loop(dir string, nudge <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // Close's deadline ends a sync in flight
		<-b.stop
		b.mu.Lock()
		cctx := b.closeCtx
		b.mu.Unlock()
		select {
		case <-cctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	store, err := memdir.Open(dir, b.o.Options.Store)
	if err != nil {
		b.report(fmt.Sprintf("memory sync %s: %v", filepath.Base(dir), err))
		return
	}
	var snap memdir.Snapshot
	lastLine := ""
	retry := false // the last sync failed or could not reach the upstream
	syncNow := func(ctx context.Context) {
		// The stamps are taken before the sync: a file written while it runs (a session's
		// first write) is still a change afterwards, and is synced in its turn.
		_, _, before, stampErr := store.Changes(ctx, snap)
		rep, err := b.o.Sync(ctx, dir, b.o.Options)
		retry = err != nil || rep.Offline
		line := ""
		switch {
		case err != nil:
			line = fmt.Sprintf("memory sync %s: %v", dir, err)
		case rep.Offline:
			line = fmt.Sprintf("memory sync %s: %s could not be reached; changes are committed locally and will be pushed later", dir, rep.Upstream)
		case len(rep.HeldBack) > 0:
			line = fmt.Sprintf("memory sync %s: not shared, looks like a secret: %s", dir, rep.HeldBack[0])
		}
		for _, k := range rep.Conflicts {
			if k.Proposal != "" {
				b.report(fmt.Sprintf("memory sync %s: %s changed on both sides; theirs is kept as %s", dir, k.File, k.Proposal))
			}
		}
		if line != "" && line != lastLine {
			b.report(line)
		}
		lastLine = line
		if stampErr == nil {
			snap = before
		}
	}
	syncNow(ctx)
	var due <-chan time.Time // the debounce (or retry) timer, nil when nothing is due
	var timer *time.Timer
	arm := func(d time.Duration) {
		if timer != nil {
			timer.Stop()
		}
		timer = time.NewTimer(d)
		due = timer.C
	}
	if retry {
		arm(b.o.Retry)
	}
	poll := time.NewTicker(b.o.Poll)
	defer poll.Stop()
	check := func() {
		if ok, err := store.Unchanged(ctx, snap); err == nil && ok {
			return
		}
		changed, removed, next, err := store.Changes(ctx, snap)
		if err != nil || len(changed)+len(removed) == 0 {
			if err == nil {
				snap = next
			}
			return
		}
		snap = next
		arm(b.o.Debounce) // written: wait until it stays quiet
	}
	for {
		select {
		case <-b.stop:
			check()
			if due != nil {
				b.mu.Lock()
				cctx := b.closeCtx
				b.mu.Unlock()
				if cctx.Err() == nil {
					syncNow(ctx)
				}
			}
			return
		case <-nudge:
			check()
		case <-poll.C:
			check()
		case <-due:
			due = nil
			syncNow(ctx)
			if retry {
				arm(b.o.Retry)
			}
		}
	}
}
