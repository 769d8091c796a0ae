package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/toolcall"
)

// Background work of a session (layer 4), started at the end of a finished turn and never
// waited for by the next one:
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
	ExtractMaxTurns = 5
	// NotesMaxTurns caps the requests of one session-notes update.
	NotesMaxTurns = 4
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
	Dreams        int    `json:"dreams"`
	DreamArchived int    `json:"dream_archived"`
	LastError     string `json:"last_error,omitempty"`
}

// background is the state of a session's background work; its fields after the first
// group are guarded by mu.
type background struct {
	ctx    context.Context // cancelled by Close after the drain
	cancel context.CancelFunc
	wg     sync.WaitGroup // notes and dream goroutines

	mode      extract.WriteMode
	sched     *extract.Scheduler    // nil: extraction off
	notes     *compact.NotesTracker // nil: notes off
	notesPath string
	gate      *extract.Gate // nil: auto-dream off
	root      string        // the project root (a.instr is replaced by compaction; this is not)

	mu           sync.Mutex
	cursor       int  // base messages extraction has seen
	generation   int  // bumped by every compaction, which rewrites the messages
	cursorGen    int  // the generation cursor belongs to
	memWrote     bool // the main agent wrote memory since the last extraction
	notesRunning chan struct{}
	dreaming     bool
	closed       bool
	stats        BackgroundStats
}

// startBackground sets up the session's background work from the settings.
func (a *Agent) startBackground() error {
	bg := &background{}
	bg.ctx, bg.cancel = context.WithCancel(context.Background())
	if a.store != nil {
		mode, on, err := extractionMode(a.settings.MemoryExtraction)
		if err != nil {
			return err
		}
		if on && !a.opts.NoBackground {
			bg.mode = mode
			bg.sched = extract.NewScheduler(a.extractOnce, extract.SchedulerOptions{Every: a.settings.MemoryExtractEvery, Logger: a.log})
		}
		bg.root = a.instr.ProjectRoot()
		if a.settings.AutoDream() && !a.opts.NoBackground {
			root := bg.root
			bg.gate = &extract.Gate{MemDir: a.store.Dir(), SessionsDir: filepath.Join(a.opts.Env.ProjectsDir(), config.Slug(root)), Subdirs: true}
		}
	}
	if a.journal != nil && a.settings.SessionNotes() && !a.opts.NoBackground {
		bg.notes = &compact.NotesTracker{}
		bg.notesPath = compact.NotesPath(a.journal.Path())
	}
	a.bg = bg
	return nil
}

// extractionMode parses the memoryExtraction setting: the write mode, and whether
// extraction runs at all ("off" and "read-only" do not run it).
func extractionMode(s string) (extract.WriteMode, bool, error) {
	switch strings.TrimSpace(s) {
	case "off":
		return "", false, nil
	}
	m, err := extract.ParseWriteMode(s)
	if err != nil {
		return "", false, fmt.Errorf("agent: setting memoryExtraction: %w", err)
	}
	return m, m != extract.WriteReadOnly, nil
}

// Background returns what the session's background work has done so far.
func (a *Agent) Background() BackgroundStats {
	bg := a.bg
	if bg == nil {
		return BackgroundStats{}
	}
	bg.mu.Lock()
	defer bg.mu.Unlock()
	s := bg.stats
	s.Written = append([]string(nil), s.Written...)
	s.Denied = append([]string(nil), s.Denied...)
	return s
}

// BackgroundBusy reports whether a memory extraction or a session-notes update is running
// (Close would wait for the extraction), so a caller can say why it is waiting.
func (a *Agent) BackgroundBusy() bool {
	bg := a.bg
	if bg == nil {
		return false
	}
	bg.mu.Lock()
	notes := bg.notesRunning != nil
	bg.mu.Unlock()
	return notes || bg.sched != nil && bg.sched.Busy()
}

// afterTurn starts the background work due after a finished turn; the caller holds runMu.
func (a *Agent) afterTurn(res Result) {
	bg := a.bg
	if bg == nil {
		return
	}
	bg.mu.Lock()
	closed := bg.closed
	bg.mu.Unlock()
	if closed {
		return
	}
	if bg.notes != nil || bg.sched != nil {
		a.snapshotBase() // only forks need it: a pass over the whole history
	}
	if bg.notes != nil {
		_, n, _ := a.ContextLevel()
		if bg.notes.Due(n, res.ToolCalls) && a.startNotes(a.currentBase()) {
			bg.notes.Started(n)
		}
	}
	if bg.sched != nil {
		bg.sched.Turn()
	}
	if bg.gate != nil {
		a.maybeDream()
	}
}

// noteMemoryWrite records that the main agent changed the memory dir itself, so the next
// extraction is skipped. Called after a successful tool call.
func (a *Agent) noteMemoryWrite(t *tool, c toolcall.Call) {
	if a.bg == nil || a.store == nil {
		return
	}
	wrote := false
	switch {
	case t.name == memorySaveTool.name || t.name == memoryForgetTool.name:
		wrote = true
	case t.class == classEdit:
		p := subjectOf(c).path
		dir := a.store.Dir()
		wrote = p != "" && (p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)))
	}
	if wrote {
		a.bg.mu.Lock()
		a.bg.memWrote = true
		a.bg.mu.Unlock()
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

// extractOnce is one extraction run (called by the scheduler's goroutine).
func (a *Agent) extractOnce(ctx context.Context) error {
	bg := a.bg
	base := a.currentBase()
	if base == nil {
		return nil
	}
	bg.mu.Lock()
	from := bg.cursor
	if base.gen < bg.cursorGen {
		bg.mu.Unlock()
		return nil // a snapshot from before a compaction the cursor has already moved past
	}
	if base.gen != bg.cursorGen || from > len(base.msgs) {
		from = 0 // a compaction rewrote the conversation: all of it is new to the extractor
	}
	wrote := bg.memWrote
	bg.memWrote = false
	bg.cursor, bg.cursorGen = len(base.msgs), base.gen
	if wrote {
		bg.stats.ExtractSkipped++
	}
	bg.mu.Unlock()
	if wrote {
		a.log.Debug("agent: extract: skipped, the main agent wrote memory itself")
		return nil
	}
	if from >= len(base.msgs) {
		return nil
	}
	conf, err := extract.OpenConfined(a.store, bg.mode)
	if err != nil {
		return a.extractFailed(err)
	}
	defer conf.Close()
	guidance, err := extract.Guidance(a.store.Dir())
	if err != nil {
		a.warn("memory extraction: %v (going on without it)", err)
	}
	var manifest string
	if mems, _, err := a.store.List(ctx); err == nil {
		manifest = recall.Manifest(mems, recall.MaxManifestEntries)
	}
	if bg.mode == extract.WriteConfirm {
		// Proposals still waiting for the user: update them rather than propose them again.
		if staged, err := extract.Inbox(ctx, a.store); err == nil {
			for _, st := range staged {
				manifest += fmt.Sprintf("- [%s] %s (proposed, awaiting the user's confirmation): %s\n", st.Type, st.File, st.Description)
			}
		}
	}
	prompt := extract.Prompt(extract.PromptInput{MemDir: a.store.Dir(), Mode: bg.mode, NewMessages: len(base.msgs) - from, Guidance: guidance, Manifest: manifest})
	res, err := a.runFork(ctx, base, forkSpec{kind: "extract", prompt: prompt, maxTurns: ExtractMaxTurns, handle: a.extractHandler(conf)})
	bg.mu.Lock()
	bg.stats.Extractions++
	bg.stats.Written = append(bg.stats.Written, conf.Written()...)
	bg.stats.Denied = append(bg.stats.Denied, res.Denied...)
	bg.mu.Unlock()
	if err != nil && !errors.Is(err, errForkTurns) {
		return a.extractFailed(err)
	}
	return nil
}

func (a *Agent) extractFailed(err error) error {
	a.bg.mu.Lock()
	a.bg.stats.ExtractFailed++
	a.bg.stats.LastError = err.Error()
	a.bg.mu.Unlock()
	a.log.Warn("agent: memory extraction failed", "err", err)
	return err
}

// extractHandler is the extractor's permission policy: reading and searching anywhere (the
// session's deny patterns still apply), read-only shell commands, and writes only through
// conf, which confines them to the memory dir.
func (a *Agent) extractHandler(conf *extract.Confined) forkHandler {
	return func(ctx context.Context, fe env, t *tool, c toolcall.Call) (string, bool, bool) {
		var msg string
		var err error
		switch c := c.(type) {
		case *toolcall.Write:
			msg, err = conf.Write(ctx, c.FilePath, c.Content)
		case *toolcall.Edit:
			msg, err = conf.Edit(ctx, c.FilePath, c.OldString, c.NewString, c.ReplaceAll)
		case *toolcall.MemorySave:
			in := memdir.Input{Name: c.Name, Description: c.Description, Type: memdir.Type(c.Type), Body: c.Body}
			if err := memdir.ValidateName(in.Name); err != nil {
				return "Denied: " + strings.TrimPrefix(err.Error(), "memdir: "), true, true
			}
			data, rerr := memdir.Render(in, a.now())
			if rerr != nil {
				return strings.TrimPrefix(rerr.Error(), "memdir: "), true, false
			}
			msg, err = conf.Write(ctx, filepath.Join(a.store.Dir(), memdir.FileName(in.Name)), string(data))
		case *toolcall.Bash:
			if ok, why := extract.ReadOnlyCommand(c.Command); !ok {
				return "Denied: the memory extractor may run read-only commands only (" + why + ").", true, true
			}
			return a.runForkRead(ctx, fe, t, c)
		default:
			if t.class == classRead {
				return a.runForkRead(ctx, fe, t, c)
			}
			return fmt.Sprintf("Denied: %s is not available to the memory extractor. It may read and search anything, run read-only shell commands, and write memory files in %s with Write, Edit or memory_save.", t.name, a.store.Dir()), true, true
		}
		if err != nil {
			return strings.TrimPrefix(err.Error(), "extract: "), true, errors.Is(err, extract.ErrDenied)
		}
		return msg, false, false
	}
}

// runForkRead runs a reading call of a fork unless the session's deny patterns forbid it:
// what the user denied the main agent, the fork may not do either.
func (a *Agent) runForkRead(ctx context.Context, fe env, t *tool, c toolcall.Call) (string, bool, bool) {
	s := subjectOf(c)
	a.mu.Lock()
	d, why := a.perms.check(t.name, t.class, s)
	a.mu.Unlock()
	if d == Deny {
		return fmt.Sprintf("Permission denied: %s is %s.", describe(t.name, s), why), true, true
	}
	out, err := t.run(ctx, fe, c)
	if err != nil {
		return err.Error(), true, false
	}
	return out, false, false
}

// startNotes starts a session-notes update from base unless one is running; it reports
// whether it started one.
func (a *Agent) startNotes(base *forkBase) bool {
	bg := a.bg
	if base == nil {
		return false
	}
	bg.mu.Lock()
	if bg.notesRunning != nil || bg.closed {
		bg.mu.Unlock()
		return false
	}
	done := make(chan struct{})
	bg.notesRunning = done
	bg.mu.Unlock()
	bg.wg.Go(func() {
		defer func() {
			bg.mu.Lock()
			bg.notesRunning = nil
			bg.mu.Unlock()
			close(done)
		}()
		err := a.updateNotes(bg.ctx, base)
		bg.mu.Lock()
		if err != nil {
			bg.stats.NotesFailed++
			bg.stats.LastError = err.Error()
		} else {
			bg.stats.NotesUpdates++
		}
		bg.mu.Unlock()
		if err != nil {
			a.log.Warn("agent: session notes update failed", "err", err)
		}
	})
	return true
}

func (a *Agent) updateNotes(ctx context.Context, base *forkBase) error {
	n, err := compact.OpenNotes(a.bg.notesPath)
	if err != nil {
		return fmt.Errorf("agent: session notes: %w", err)
	}
	cur, err := n.Read()
	if err != nil {
		return fmt.Errorf("agent: session notes: %w", err)
	}
	_, err = a.runFork(ctx, base, forkSpec{kind: "notes", prompt: compact.NotesPrompt(n.Path(), cur), maxTurns: NotesMaxTurns, handle: notesHandler(n)})
	if err != nil && !errors.Is(err, errForkTurns) {
		return err
	}
	// Compaction keeps every message after the last one the notes cover.
	if base.lastUUID != "" {
		if err := n.MarkCovered(base.lastUUID); err != nil {
			return fmt.Errorf("agent: session notes: %w", err)
		}
	}
	return nil
}

// notesHandler is the notes writer's permission policy: Read of its one file, and Edit and
// Write of it through compact.Notes (which refuses any other path); nothing else.
func notesHandler(n *compact.Notes) forkHandler {
	deny := "Denied: the session-notes writer may only read and edit " + n.Path() + "."
	return func(ctx context.Context, fe env, t *tool, c toolcall.Call) (string, bool, bool) {
		switch c := c.(type) {
		case *toolcall.Read:
			if c.FilePath != n.Path() {
				return deny, true, true
			}
			text, err := n.Read()
			if err != nil {
				return err.Error(), true, false
			}
			out, _ := numberLines(text, 0, 0)
			return out, false, false
		case *toolcall.Edit, *toolcall.Write:
			msg, err := n.Apply(c)
			if err != nil {
				return strings.TrimPrefix(err.Error(), "compact: "), true, errors.Is(err, compact.ErrNotesOnly)
			}
			return msg, false, false
		}
		return deny, true, true
	}
}

// waitNotes waits up to d for a notes update in progress, so a compaction uses fresh notes.
func (a *Agent) waitNotes(ctx context.Context, d time.Duration) {
	if a.bg == nil {
		return
	}
	a.bg.mu.Lock()
	done := a.bg.notesRunning
	a.bg.mu.Unlock()
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

// maybeDream consolidates the memory dir in the background when the gate says a dream is
// due and the lock can be taken.
func (a *Agent) maybeDream() {
	bg := a.bg
	bg.mu.Lock()
	if bg.dreaming || bg.closed {
		bg.mu.Unlock()
		return
	}
	bg.dreaming = true
	bg.mu.Unlock()
	bg.wg.Go(func() {
		defer func() {
			bg.mu.Lock()
			bg.dreaming = false
			bg.mu.Unlock()
		}()
		now := a.now()
		due, why, err := bg.gate.Check(now)
		if err != nil || !due {
			a.log.Debug("agent: auto-dream not run", "why", why, "err", err)
			return
		}
		lock, err := extract.AcquireLock(a.store.Dir(), now, extract.LockOptions{})
		if err != nil {
			a.log.Debug("agent: auto-dream not run", "err", err)
			return
		}
		c, err := extract.Consolidate(bg.ctx, a.store, extract.ConsolidateOptions{Root: bg.root, Now: now, Settings: a.settings,
			Provider: a.provider, Model: a.opts.Model, Distil: a.store.Mode() == "daily-log", Lock: lock, Logger: a.opts.Logger})
		bg.mu.Lock()
		defer bg.mu.Unlock()
		if err != nil {
			bg.stats.LastError = err.Error()
			a.log.Warn("agent: auto-dream failed", "err", err)
			return
		}
		bg.stats.Dreams++
		for _, act := range c.Plan.Actions {
			if act.Done {
				bg.stats.DreamArchived++
			}
		}
	})
}

// drainBackground ends the background work: extraction gets up to timeout to finish its
// run and the one queued, then the rest is cancelled and waited for.
func (a *Agent) drainBackground(timeout time.Duration) error {
	bg := a.bg
	if bg == nil {
		return nil
	}
	bg.mu.Lock()
	bg.closed = true
	bg.mu.Unlock()
	var err error
	if bg.sched != nil {
		err = bg.sched.Drain(timeout)
	}
	waited := make(chan struct{})
	go func() { bg.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(timeout):
		bg.cancel()
		<-waited
	}
	bg.cancel()
	return err
}
