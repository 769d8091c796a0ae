package compact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/toolcall"
)

// Forker continues the main conversation in the background: a fork that sends the main
// conversation unchanged plus instruction, runs at most maxTurns model requests, and hands
// every tool call it makes, decoded, to policy. The agent implements it; the background
// workers of compact and extract decide what their fork may do.
type Forker interface {
	Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error)
}

// Snapshot is the main conversation at the end of a finished turn, as a background worker
// needs it: a Forker that continues from it and what the worker tracks about it.
type Snapshot struct {
	Forker Forker
	// Messages is the number of messages the conversation has (what a fork continues from).
	Messages int
	// LastUUID is the uuid of its last entry ("" for none): what a notes update covers.
	LastUUID string
	// Generation counts the compactions before it; a compaction rewrites the messages.
	Generation int
	// Sources, when set, returns the text the user typed in the conversation and the text
	// tools returned there: the extractor saves live only memories that draw on the former
	// (extract.Grounded).
	Sources func() (user, tools string)
}

// NotesMaxTurns caps the requests of one session-notes update.
const NotesMaxTurns = 4

// NotesStats says what a NotesWorker did so far.
type NotesStats struct {
	Updates, Failed int
	// LastError is the latest failure's text, at LastErrorAt.
	LastError   string
	LastErrorAt time.Time
}

// NotesWorker keeps a session's notes file current in the background: after a finished turn,
// when NotesTracker says an update is due, a fork updates the file, allowed only to Read it
// and to Edit or Write it through Notes (Policy). One update runs at a time; Close cancels
// the one in progress after a time limit and waits for it.
type NotesWorker struct {
	path     string
	maxTurns int
	log      *slog.Logger
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	tracker NotesTracker
	running chan struct{} // closed when the update in progress ends; nil when none runs
	closed  bool
	stats   NotesStats
}

// NotesWorkerOptions configure NewNotesWorker.
type NotesWorkerOptions struct {
	// MaxTurns caps each update's model requests (0: NotesMaxTurns).
	MaxTurns int
	// Logger receives warnings (nil discards them).
	Logger *slog.Logger
}

// NewNotesWorker returns a worker for the notes file at path (NotesPath of the transcript).
func NewNotesWorker(path string, opts NotesWorkerOptions) *NotesWorker {
	w := &NotesWorker{path: path, maxTurns: opts.MaxTurns, log: opts.Logger}
	if w.maxTurns <= 0 {
		w.maxTurns = NotesMaxTurns
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	return w
}

// Turn is told about each finished turn: the context size in tokens and the tool calls the
// turn made. It starts an update from snap when one is due and none is running, and reports
// whether it started one.
func (w *NotesWorker) Turn(snap Snapshot, ctxTokens, toolCalls int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || snap.Forker == nil || !w.tracker.Due(ctxTokens, toolCalls) || w.running != nil {
		return false
	}
	w.tracker.Started(ctxTokens)
	done := make(chan struct{})
	w.running = done
	w.wg.Go(func() {
		err := w.update(w.ctx, snap)
		w.mu.Lock()
		if err != nil {
			w.stats.Failed++
			w.stats.LastError, w.stats.LastErrorAt = err.Error(), time.Now()
		} else {
			w.stats.Updates++
		}
		w.running = nil
		w.mu.Unlock()
		close(done)
		if err != nil {
			w.log.Warn("compact: session notes update failed", "err", err)
		}
	})
	return true
}

func (w *NotesWorker) update(ctx context.Context, snap Snapshot) error {
	n, err := OpenNotes(w.path)
	if err != nil {
		return fmt.Errorf("compact: session notes: %w", err)
	}
	cur, err := n.Read()
	if err != nil {
		return fmt.Errorf("compact: session notes: %w", err)
	}
	if _, err := snap.Forker.Fork(ctx, NotesPrompt(n.Path(), cur), w.maxTurns, n.Policy()); err != nil {
		return err
	}
	// Compaction keeps every message after the last one the notes cover.
	if snap.LastUUID != "" {
		if err := n.MarkCovered(snap.LastUUID); err != nil {
			return fmt.Errorf("compact: session notes: %w", err)
		}
	}
	return nil
}

// Policy is the notes fork's policy: Read of the notes file runs as usual, Edit and Write
// go through n (which refuses any other path and any change that makes CheckNotes worse);
// every other call is denied.
func (n *Notes) Policy() toolcall.Policy {
	deny := "Denied: the session-notes writer may only read and edit " + n.Path() + "."
	return func(ctx context.Context, call toolcall.Call) toolcall.Verdict {
		switch c := call.(type) {
		case *toolcall.Read:
			if c.FilePath != n.Path() {
				return toolcall.Deny(deny)
			}
			return toolcall.Verdict{Run: true}
		case *toolcall.Edit, *toolcall.Write:
			msg, err := n.Apply(c)
			if err != nil {
				return toolcall.Verdict{Output: strings.TrimPrefix(err.Error(), "compact: "), IsError: true, Denied: errors.Is(err, ErrNotesOnly)}
			}
			return toolcall.Verdict{Output: msg}
		}
		return toolcall.Deny(deny)
	}
}

// Wait waits up to d for an update in progress (so a compaction uses fresh notes), or until
// ctx is done.
func (w *NotesWorker) Wait(ctx context.Context, d time.Duration) {
	w.mu.Lock()
	done := w.running
	w.mu.Unlock()
	if done == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Busy reports whether an update is running.
func (w *NotesWorker) Busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running != nil
}

// Stats returns what the worker did so far.
func (w *NotesWorker) Stats() NotesStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Close starts no more updates, gives the one in progress up to timeout, then cancels it and
// waits for it to end.
func (w *NotesWorker) Close(timeout time.Duration) {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	WaitOrCancel(&w.wg, timeout, w.cancel)
	w.cancel()
}

// WaitOrCancel is how a background worker closes: it waits up to timeout for the work wg
// counts, then cancels it (cancel) and waits for it to stop. The notes worker and extraction's
// worker (extract.Worker) both close this way.
func WaitOrCancel(wg *sync.WaitGroup, timeout time.Duration, cancel func()) {
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(timeout):
		cancel()
		<-waited
	}
}
