package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/toolcall"
)

// WorkerOptions configure NewWorker.
type WorkerOptions struct {
	// Store is the memory store; required.
	Store *memdir.Store
	// Extract turns memory extraction on, writing in Mode, every Every turns (see
	// SchedulerOptions), with at most MaxTurns requests a run (0: MaxTurns).
	Extract  bool
	Mode     WriteMode
	Every    int
	MaxTurns int
	// Dream, when set, turns auto-dream on: after a turn, when the gate says a dream is due
	// and the lock can be taken, Consolidate runs with Consolidate's options (its Now and
	// Lock are set per run).
	Dream       *Gate
	Consolidate ConsolidateOptions
	// Now is the clock (nil: time.Now); Logger receives warnings (nil discards them); Warn,
	// when set, is told about problems the user should see that do not stop a run.
	Now    func() time.Time
	Logger *slog.Logger
	Warn   func(msg string)
}

// WorkerStats say what a Worker did so far.
type WorkerStats struct {
	// Extractions counts runs that ran a fork; Skipped those skipped because the main agent
	// had written memory itself; Failed those that ended in an error.
	Extractions, Skipped, Failed int
	// Written are the memory files extraction wrote (or staged), relative to the memory dir;
	// Denied the extractor's refused calls, one line each.
	Written, Denied []string
	// Dreams counts automatic consolidations, DreamArchived the memories they archived (exact
	// duplicates only: an automatic run proposes everything else).
	Dreams, DreamArchived int
	// DreamReport is the latest automatic run's Consolidation.Summary ("" when it did nothing).
	DreamReport string
	// LastError is the latest failure's text, at LastErrorAt.
	LastError   string
	LastErrorAt time.Time
}

// Worker is a session's background memory work (layer 4), told about each finished turn:
//
//   - extraction: every Every turns a fork reads the part of the conversation it has not seen
//     (a cursor of messages, started over when a compaction rewrote them) and saves what is
//     worth remembering, under Policy: reads and read-only shell anywhere, writes only through
//     Confined. A run is skipped, and the cursor advanced, when the main agent wrote memory
//     itself since the last one (MemoryWritten). One runs at a time; a turn that ends during a
//     run causes one more run after it (Scheduler). Close drains it with a time limit.
//   - auto-dream: when the gate says a dream is due, the memory dir is consolidated under its
//     lock.
type Worker struct {
	o      WorkerOptions
	sched  *Scheduler // nil: extraction off
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // dream goroutines

	mu        sync.Mutex
	snap      compact.Snapshot // the latest turn's
	cursor    int              // messages extraction has seen
	cursorGen int              // the generation cursor belongs to
	memWrote  bool
	dreaming  bool
	closed    bool
	stats     WorkerStats
}

// NewWorker returns a Worker; it starts nothing until Turn.
func NewWorker(o WorkerOptions) *Worker {
	if o.MaxTurns <= 0 {
		o.MaxTurns = MaxTurns
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Worker{o: o}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if o.Extract {
		w.sched = NewScheduler(w.extractOnce, SchedulerOptions{Every: o.Every, Logger: o.Logger})
	}
	return w
}

// Turn is told about a finished turn: snap is the conversation at its end. It counts the turn
// for extraction and starts an auto-dream when one is due.
func (w *Worker) Turn(snap compact.Snapshot) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.snap = snap
	w.mu.Unlock()
	if w.sched != nil {
		w.sched.Turn()
	}
	if w.o.Dream != nil {
		w.maybeDream()
	}
}

// MemoryWritten records that the main agent changed the memory dir itself, so the next
// extraction is skipped.
func (w *Worker) MemoryWritten() {
	w.mu.Lock()
	w.memWrote = true
	w.mu.Unlock()
}

// Busy reports whether an extraction is running or queued.
func (w *Worker) Busy() bool { return w.sched != nil && w.sched.Busy() }

// Stats returns what the worker did so far.
func (w *Worker) Stats() WorkerStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.stats
	s.Written = append([]string(nil), s.Written...)
	s.Denied = append([]string(nil), s.Denied...)
	return s
}

// extractOnce is one extraction run (on the scheduler's goroutine).
func (w *Worker) extractOnce(ctx context.Context) error {
	w.mu.Lock()
	snap, from := w.snap, w.cursor
	if snap.Forker == nil || snap.Generation < w.cursorGen {
		w.mu.Unlock()
		return nil // no turn yet, or a snapshot from before a compaction the cursor has passed
	}
	if snap.Generation != w.cursorGen || from > snap.Messages {
		from = 0 // a compaction rewrote the conversation: all of it is new to the extractor
	}
	wrote := w.memWrote
	w.memWrote = false
	w.cursor, w.cursorGen = snap.Messages, snap.Generation
	if wrote {
		w.stats.Skipped++
	}
	w.mu.Unlock()
	if wrote {
		w.o.Logger.Debug("extract: skipped, the main agent wrote memory itself")
		return nil
	}
	if from >= snap.Messages {
		return nil
	}
	res, err := Once(ctx, w.o, snap, from)
	w.mu.Lock()
	w.stats.Extractions++
	w.stats.Written = append(w.stats.Written, res.Written...)
	w.stats.Denied = append(w.stats.Denied, res.Denied...)
	w.mu.Unlock()
	if err != nil {
		return w.failed(err)
	}
	return nil
}

// OnceResult is what one extraction run did.
type OnceResult struct {
	// Written are the memory files written (or staged), relative to the memory dir; Denied
	// the extractor's refused calls, one line each.
	Written, Denied []string
}

// Once runs one extraction over the messages of snap from index from on: a fork reads them
// and saves what is worth remembering, in o.Mode, under Policy. Of o it uses Store, Mode,
// MaxTurns (0: MaxTurns), Now and Warn. The Worker runs it in the background; `strata memory
// extract` runs it once over a finished session.
func Once(ctx context.Context, o WorkerOptions, snap compact.Snapshot, from int) (OnceResult, error) {
	if o.MaxTurns <= 0 {
		o.MaxTurns = MaxTurns
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	st := o.Store
	conf, err := OpenConfined(st, o.Mode)
	if err != nil {
		return OnceResult{}, err
	}
	defer conf.Close()
	if snap.Sources != nil {
		conf.HoldUngrounded(snap.Sources)
	}
	guidance, err := Guidance(st.Dir())
	if err != nil && o.Warn != nil {
		o.Warn(fmt.Sprintf("memory extraction: %v (going on without it)", err))
	}
	var manifest string
	if mems, _, err := st.List(ctx); err == nil {
		manifest = recall.Manifest(mems, recall.MaxManifestEntries)
	}
	if o.Mode == WriteConfirm {
		// Proposals still waiting for the user: update them rather than propose them again.
		if staged, err := Inbox(ctx, st); err == nil {
			for _, s := range staged {
				manifest += fmt.Sprintf("- [%s] %s (proposed, awaiting the user's confirmation): %s\n", s.Type, s.File, s.Description)
			}
		}
	}
	prompt := Prompt(PromptInput{MemDir: st.Dir(), Mode: o.Mode, NewMessages: snap.Messages - from, Guidance: guidance, Manifest: manifest})
	res, err := snap.Forker.Fork(ctx, prompt, o.MaxTurns, Policy(conf, o.Now))
	return OnceResult{Written: conf.Written(), Denied: res.Denied}, err
}

func (w *Worker) failed(err error) error {
	w.mu.Lock()
	w.stats.Failed++
	w.stats.LastError, w.stats.LastErrorAt = err.Error(), time.Now()
	w.mu.Unlock()
	w.o.Logger.Warn("extract: memory extraction failed", "err", err)
	return err
}

// Policy is the extractor's policy: reading and searching anywhere and read-only shell
// commands (ReadOnlyCommand) run as usual; Write, Edit and memory_save go through conf, which
// confines them to the memory dir (now dates memory_save's file); anything else is denied.
func Policy(conf *Confined, now func() time.Time) toolcall.Policy {
	return func(ctx context.Context, call toolcall.Call) toolcall.Verdict {
		var msg string
		var err error
		switch c := call.(type) {
		case *toolcall.Read, *toolcall.Glob, *toolcall.Grep, *toolcall.MemorySearch:
			return toolcall.Verdict{Run: true}
		case *toolcall.Bash:
			if ok, why := ReadOnlyCommand(c.Command); !ok {
				return toolcall.Deny("Denied: the memory extractor may run read-only commands only (" + why + ").")
			}
			return toolcall.Verdict{Run: true}
		case *toolcall.Write:
			msg, err = conf.Write(ctx, c.FilePath, c.Content)
		case *toolcall.Edit:
			msg, err = conf.Edit(ctx, c.FilePath, c.OldString, c.NewString, c.ReplaceAll)
		case *toolcall.MemorySave:
			in := memdir.Input{Name: c.Name, Description: c.Description, Type: memdir.Type(c.Type), Body: c.Body}
			if err := memdir.ValidateName(in.Name); err != nil {
				return toolcall.Deny("Denied: " + strings.TrimPrefix(err.Error(), "memdir: "))
			}
			data, rerr := memdir.Render(in, now())
			if rerr != nil {
				return toolcall.Verdict{Output: strings.TrimPrefix(rerr.Error(), "memdir: "), IsError: true}
			}
			msg, err = conf.Write(ctx, filepath.Join(conf.Dir(), memdir.FileName(in.Name)), string(data))
		default:
			return toolcall.Deny(fmt.Sprintf("Denied: %s is not available to the memory extractor. It may read and search anything, run read-only shell commands, and write memory files in %s with Write, Edit or memory_save.", call.Tool(), conf.Dir()))
		}
		if err != nil {
			return toolcall.Verdict{Output: strings.TrimPrefix(err.Error(), "extract: "), IsError: true, Denied: errors.Is(err, ErrDenied)}
		}
		return toolcall.Verdict{Output: msg}
	}
}

// maybeDream consolidates the memory dir in the background when the gate says a dream is
// due and the lock can be taken.
func (w *Worker) maybeDream() {
	w.mu.Lock()
	if w.dreaming || w.closed {
		w.mu.Unlock()
		return
	}
	w.dreaming = true
	w.mu.Unlock()
	w.wg.Go(func() {
		defer func() {
			w.mu.Lock()
			w.dreaming = false
			w.mu.Unlock()
		}()
		now := w.o.Now()
		due, why, err := w.o.Dream.Check(now)
		if err != nil || !due {
			w.o.Logger.Debug("extract: auto-dream not run", "why", why, "err", err)
			return
		}
		lock, err := AcquireLock(w.o.Store.Dir(), now, LockOptions{})
		if err != nil {
			w.o.Logger.Debug("extract: auto-dream not run", "err", err)
			return
		}
		co := w.o.Consolidate
		// Never archive silently what is not provably redundant: the rest is proposed.
		co.Now, co.Lock, co.ExactOnly = now, lock, true
		if co.Budget == 0 {
			co.Budget = AutoDreamBudget // a background run holds a core for so long at most
		}
		c, err := Consolidate(w.ctx, w.o.Store, co)
		w.mu.Lock()
		defer w.mu.Unlock()
		if err != nil {
			w.stats.LastError, w.stats.LastErrorAt = err.Error(), time.Now()
			w.o.Logger.Warn("extract: auto-dream failed", "err", err)
			return
		}
		w.stats.Dreams++
		w.stats.DreamReport = c.Summary()
		for _, act := range c.Plan.Actions {
			if act.Done {
				w.stats.DreamArchived++
			}
		}
	})
}

// Close ends the background work: extraction gets up to timeout to finish its run and the
// one queued (the error wraps ErrDrainTimeout when it did not), then a dream still running
// gets up to timeout more before it is cancelled and waited for.
func (w *Worker) Close(timeout time.Duration) error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	var err error
	if w.sched != nil {
		err = w.sched.Drain(timeout)
	}
	compact.WaitOrCancel(&w.wg, timeout, w.cancel)
	w.cancel()
	return err
}
