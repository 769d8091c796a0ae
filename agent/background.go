package agent

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
	"github.com/strata-mem/strata/usage"
	"github.com/strata-mem/strata/workspace"
)

// Background work of a session (layer 4), started at the end of a finished turn and never
// waited for by the next one. The work itself lives in layer 4 (compact.NotesWorker,
// extract.Worker, each with its fork's policy); this file is the glue: it hands the workers a
// snapshot of the conversation per turn (a compact.Snapshot whose Forker is the agent's fork,
// fork.go) and closes them.
//
//   - session notes: once the context passes compact.NotesInitTokens, and then after enough
//     growth and tool calls, a fork updates the session's notes file (it may edit only that
//     file); compaction uses the notes as its summary;
//   - extraction: every MemoryExtractEvery turns a fork reads the new part of the
//     conversation and saves what is worth remembering (Write and Edit confined to the memory
//     dir through extract.Confined; reads and read-only shell anywhere; at most
//     ExtractMaxTurns requests). It is skipped, and its cursor advanced, when the main agent
//     wrote memory itself since the last run. One runs at a time; a turn that ends during a
//     run causes one more run after it. Close drains it within Options.DrainTimeout;
//   - auto-dream: when extract.Gate says a dream is due, the memory dir is consolidated under
//     its lock.

// Background defaults.
const (
	// ExtractMaxTurns caps the requests of one extraction.
	ExtractMaxTurns = extract.MaxTurns
	// NotesMaxTurns caps the requests of one session-notes update.
	NotesMaxTurns = compact.NotesMaxTurns
	// DefaultDrainTimeout is how long Close waits for background work by default.
	DefaultDrainTimeout = 20 * time.Second
	// notesWaitBeforeCompact is how long a compaction waits for a notes update in progress.
	notesWaitBeforeCompact = 15 * time.Second
)

// BackgroundStats says what a session's background work has done so far.
type BackgroundStats struct {
	// Extractions counts extraction runs that ran a fork; ExtractSkipped those skipped
	// because the main agent had written memory itself; ExtractFailed those that ended in an
	// error (LastError says the latest).
	Extractions    int `json:"extractions"`
	ExtractSkipped int `json:"extract_skipped"`
	ExtractFailed  int `json:"extract_failed"`
	// Written are the memory files extraction wrote (or, in confirm mode, staged in .inbox/),
	// relative to the memory dir, in order.
	Written []string `json:"written,omitempty"`
	// Denied are the extractor's refused tool calls, one line each: tool, input, why.
	Denied []string `json:"denied,omitempty"`
	// NotesUpdates and NotesFailed count session-notes updates.
	NotesUpdates int `json:"notes_updates"`
	NotesFailed  int `json:"notes_failed"`
	// Dreams counts automatic consolidations, and DreamArchived the memories they archived.
	Dreams        int `json:"dreams"`
	DreamArchived int `json:"dream_archived"`
	// DreamReport is the latest auto-dream's one-line report (what it archived, what it
	// proposes, how to undo it); "" when it did nothing.
	DreamReport string `json:"dream_report,omitempty"`
	LastError   string `json:"last_error,omitempty"`
}

// background is the glue between a session and its workers.
type background struct {
	notes   *compact.NotesWorker // nil: notes off
	extract *extract.Worker      // nil: extraction and auto-dream off

	mu         sync.Mutex
	generation int // bumped by every compaction, which rewrites the messages
	closed     bool
}

// startBackground sets up the session's background work as the workspace's policy says.
func (a *Agent) startBackground(p workspace.Policy) {
	bg := &background{}
	a.bg = bg
	if a.opts.NoBackground {
		return
	}
	if a.store != nil {
		o := extract.WorkerOptions{Store: a.store, Extract: p.Extract, Mode: p.Extraction, Every: p.ExtractEvery,
			MaxTurns: ExtractMaxTurns, Now: a.now, Logger: a.log, Warn: func(msg string) { a.warn("%s", msg) }}
		if co, err := a.opts.Workspace.ConsolidateOptions(); err != nil && p.Dream != nil {
			a.warn("auto-dream is off for this session: %v", err)
		} else if p.Dream != nil {
			co.Provider, co.Model, co.Distil = a.meter.Provider(usage.Dream), a.opts.Model, a.store.Mode() == memdir.ModeDailyLog
			o.Dream, o.Consolidate = p.Dream, co
		}
		if o.Extract || o.Dream != nil {
			bg.extract = extract.NewWorker(o)
		}
	}
	if a.sess.journal != nil && p.Notes {
		bg.notes = compact.NewNotesWorker(compact.NotesPath(a.sess.journal.Path()), compact.NotesWorkerOptions{MaxTurns: NotesMaxTurns, Logger: a.log})
	}
}

// Background returns what the session's background work has done so far.
func (a *Agent) Background() BackgroundStats {
	var s BackgroundStats
	bg := a.bg
	if bg == nil {
		return s
	}
	var at time.Time
	if bg.extract != nil {
		e := bg.extract.Stats()
		s.Extractions, s.ExtractSkipped, s.ExtractFailed = e.Extractions, e.Skipped, e.Failed
		s.Written, s.Denied = e.Written, e.Denied
		s.Dreams, s.DreamArchived, s.DreamReport = e.Dreams, e.DreamArchived, e.DreamReport
		s.LastError, at = e.LastError, e.LastErrorAt
	}
	if bg.notes != nil {
		n := bg.notes.Stats()
		s.NotesUpdates, s.NotesFailed = n.Updates, n.Failed
		if n.LastError != "" && !n.LastErrorAt.Before(at) {
			s.LastError = n.LastError
		}
	}
	return s
}

// BackgroundBusy reports whether a memory extraction or a session-notes update is running
// (Close would wait for the extraction), so a caller can say why it is waiting.
func (a *Agent) BackgroundBusy() bool {
	bg := a.bg
	if bg == nil {
		return false
	}
	return bg.notes != nil && bg.notes.Busy() || bg.extract != nil && bg.extract.Busy()
}

// afterTurn hands the workers the conversation at the end of a finished turn; the caller
// holds runMu.
func (a *Agent) afterTurn(res Result) {
	if a.opts.Sync != nil {
		a.opts.Sync.Nudge() // the turn may have written a synced store
	}
	bg := a.bg
	if bg == nil || bg.notes == nil && bg.extract == nil {
		return
	}
	bg.mu.Lock()
	closed := bg.closed
	bg.mu.Unlock()
	if closed {
		return
	}
	snap := a.snapshotBase() // a pass over the whole history: only when a worker may use it
	if bg.notes != nil {
		_, n, _ := a.ContextLevel()
		bg.notes.Turn(snap.As(usage.Notes), n, res.ToolCalls)
	}
	if bg.extract != nil {
		bg.extract.Turn(snap.As(usage.Extraction))
	}
}

// Extract runs one memory extraction now, in the foreground, over the conversation's messages
// from index from on (0: all of them; past the end, as after a compaction: all of them),
// writing in mode; the model calls count as extraction.
// `strata memory extract` uses it on a finished session, which it resumes without a
// transcript and without background work. It returns the messages the conversation has (the
// next run's from) with what the run did.
func (a *Agent) Extract(ctx context.Context, mode extract.WriteMode, from int) (int, extract.OnceResult, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if a.store == nil {
		return 0, extract.OnceResult{}, errors.New("auto-memory is off here: there is no memory to extract into")
	}
	snap := a.snapshotBase().As(usage.Extraction)
	if from < 0 || from > snap.Messages {
		from = 0 // the conversation is shorter than last time: a compaction rewrote it
	}
	if from == snap.Messages {
		return snap.Messages, extract.OnceResult{}, nil
	}
	res, err := extract.Once(ctx, extract.WorkerOptions{Store: a.store, Mode: mode, MaxTurns: ExtractMaxTurns, Now: a.now,
		Warn: func(msg string) { a.warn("%s", msg) }}, snap, from)
	return snap.Messages, res, err
}

// noteMemoryWrite records that the main agent changed the memory dir itself, so the next
// extraction is skipped. Called after a successful tool call.
func (a *Agent) noteMemoryWrite(t *tool.Tool, c toolcall.Call) {
	if a.bg == nil || a.bg.extract == nil || a.store == nil {
		return
	}
	wrote := false
	switch {
	case t.Class == permission.ClassMemory:
		wrote = true
	case t.Class == permission.ClassEdit:
		p := permission.SubjectOf(c).Path
		dir := a.store.Dir()
		wrote = p != "" && (p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)))
	}
	if wrote {
		a.bg.extract.MemoryWritten()
	}
}

// compacted tells the background work that the conversation was rewritten.
func (a *Agent) compacted() {
	if a.bg == nil {
		return
	}
	a.bg.mu.Lock()
	a.bg.generation++
	a.bg.mu.Unlock()
}

// waitNotes waits up to d for a notes update in progress, so a compaction uses fresh notes.
func (a *Agent) waitNotes(ctx context.Context, d time.Duration) {
	if a.bg != nil && a.bg.notes != nil {
		a.bg.notes.Wait(ctx, d)
	}
}

// drainBackground ends the background work: extraction gets up to timeout to finish its
// run and the one queued, the rest up to timeout more before it is cancelled and waited for.
func (a *Agent) drainBackground(timeout time.Duration) error {
	bg := a.bg
	if bg == nil {
		return nil
	}
	bg.mu.Lock()
	bg.closed = true
	bg.mu.Unlock()
	var err error
	if bg.extract != nil {
		err = bg.extract.Close(timeout)
	}
	if bg.notes != nil {
		bg.notes.Close(timeout)
	}
	return err
}
