package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

// Compact compacts the conversation now (the /compact command): the history is replaced by a
// summary, the user's own messages (pinned ones first), and the re-injected files, todos, tasks
// and active instructions; the transcript gets a compact boundary and the new entries. instr are
// optional instructions for the summary. On error the conversation is left as it was; a
// compaction that would not make the context smaller is refused with an error matching
// compact.ErrNotSmaller. A success turns automatic compaction back on.
func (a *Agent) Compact(ctx context.Context, instr string) (*compact.Result, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	r, err := a.compact(ctx, compact.Manual, instr)
	a.breaker.Record(compact.Manual, err)
	return r, err
}

// compact runs one compaction; the caller holds runMu. compact.Run decides and returns the new
// context; the effects are applied here, and only after it succeeded: the instructions and the
// memory index re-read from disk, the read cache refilled with the re-injected views, recall's
// session reset, the transcript written and the token count restarted.
func (a *Agent) compact(ctx context.Context, trig compact.Trigger, instr string) (*compact.Result, error) {
	a.waitNotes(ctx, notesWaitBeforeCompact)
	// Re-read before anything changes, so that an error leaves everything as it was.
	fresh, err := a.reloadInstructions(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: compact: %w", err)
	}
	rules := reactivate(ctx, a.instr, fresh, a.cache.Recent(0))
	system := a.systemBlocksFor(fresh)
	var inPrompt []string
	for _, src := range fresh.Sources() { // the system prompt's pieces and the rules re-injected
		inPrompt = append(inPrompt, src.Path)
	}
	in := compact.Input{
		History:      a.history.Entries(),
		Trigger:      trig,
		Instructions: instr,
		Provider:     a.metered[UsageCompaction],
		Model:        a.opts.Model,
		Window:       a.window(),
		MaxOutput:    a.opts.MaxTokens,
		PrefixTokens: prefixOf(system, a.llmTools).total(),
		Tokens:       a.tokens.Tokens(),
		Reinject: compact.Reinject{
			Files:    a.reinjectFiles(inPrompt),
			InPrompt: inPrompt,
			Todos:    a.work.Todos.Get(a.sessionID),
			Tasks:    a.work.Tasks.List(),
			Rules:    rules,
		},
		Now:    a.now,
		Logger: a.log,
	}
	if a.journal != nil {
		in.LeafUUID = a.journal.Leaf()
		notes, err := compact.ReadSessionNotes(compact.NotesPath(a.journal.Path()))
		if err != nil {
			a.log.Warn("agent: compact: session notes only partly usable", "err", err)
		}
		in.Notes = notes
	}
	r, err := compact.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("agent: compact: %w", err)
	}
	h, err := conversation.NewHistory(r.Context)
	if err != nil {
		return nil, fmt.Errorf("agent: compact: %w", err)
	}
	a.history = h
	for _, e := range r.Entries {
		a.journalAppend(e)
	}
	a.mu.Lock() // Gitignored reads it without runMu
	a.instr = fresh
	a.mu.Unlock()
	a.system = system
	// The cache holds what the new context shows: the re-injected views (oldest first, so the
	// recency order stays) and the instruction files, seen in altered form.
	a.cache.Clear()
	for i := len(r.FileViews) - 1; i >= 0; i-- {
		if err := a.cache.Record(r.FileViews[i]); err != nil {
			a.log.Warn("agent: compact: read cache refill", "path", r.FileViews[i].Path, "err", err)
		}
	}
	for _, src := range a.instr.Sources() {
		a.recordInjected(src.Path, src.Text)
	}
	if a.recallS != nil {
		a.recallS.Reset()
	}
	a.mu.Lock()
	a.prevTail = -1
	a.mu.Unlock()
	a.warned = false
	a.resetTokens()
	a.compacted()
	a.saveWorkState()
	return r, nil
}

// reinjectFiles returns the read cache's views that compaction re-injects
// (compact.RecentFiles decides which), each with its content: a view restored on resume has
// none and one whose file changed since is stale, so those are read from disk now, as they are
// at this moment. A file that is gone, unreadable or binary is left out.
func (a *Agent) reinjectFiles(inPrompt []string) []conversation.FileState {
	var out []conversation.FileState
	for _, st := range compact.RecentFiles(a.cache.Recent(0), inPrompt) {
		fi, err := os.Stat(st.Path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if !st.HasContent || st.Partial || !fi.ModTime().Equal(st.ModTime) {
			data, err := fsutil.ReadRegular(st.Path, tool.ReadWholeMax) // a FIFO swapped in is refused
			if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
				continue
			}
			st.Content, st.HasContent, st.ModTime, st.Partial = string(data), true, fi.ModTime(), false
		}
		out = append(out, st)
	}
	return out
}

// promptSources are the instruction pieces the system prompt holds: those loaded at session
// start (with the memory index and enforced blocks), not those a touch added, which reach the
// model as attachments (and, after a compaction, in its re-injected instructions) — so no piece
// is in a request twice.
func promptSources(set *instructions.Set) []instructions.Source {
	var out []instructions.Source
	for _, src := range set.Sources() {
		if src.Trigger == "" {
			out = append(out, src)
		}
	}
	return out
}

// reloadInstructions loads the instruction set afresh from disk, with the memory index as its
// automem layer, as a session start does.
func (a *Agent) reloadInstructions(ctx context.Context) (*instructions.Set, error) {
	set, err := a.opts.Workspace.Instructions(ctx, workspace.SetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reload instructions: %w", err)
	}
	return set, nil
}

// reactivate touches in fresh every path that made a conditional rule or a nested instruction
// file apply in old, and every file the agent read or wrote in views (a resumed session's old
// set has had no touches), and returns what applies again, as re-read from disk.
func reactivate(ctx context.Context, old, fresh *instructions.Set, views []conversation.FileState) []instructions.Source {
	seen := map[string]bool{}
	var active []instructions.Source
	touch := func(path string) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		active = append(active, fresh.Touch(ctx, path)...)
	}
	for _, src := range old.Sources() {
		touch(src.Trigger)
	}
	for i := len(views) - 1; i >= 0; i-- { // oldest first, as the session touched them
		if views[i].Source != conversation.SourceInjected {
			touch(views[i].Path)
		}
	}
	return active
}

// EventCompact reports an automatic compaction, its failure, or that auto-compaction stopped
// (Text says which).
const EventCompact EventKind = "compact"

// ErrContextFull is returned by Run when the conversation has reached the point where new
// requests are refused and automatic compaction could not make room.
var ErrContextFull = errors.New("agent: the conversation is too long for the model's context window; compact it (/compact in chat, strata sessions compact ID otherwise) or, if the last message alone is too long, start a session with a shorter one")

// ContextLevel returns how full the context is, by compact's thresholds for the model's window.
// The size is the provider's usage reported for the last request plus an estimate of what was
// appended since; estimated throughout (request prefix and history) while no usage was
// reported, as at the start of a session, after a compaction, or with a provider that reports
// none.
func (a *Agent) ContextLevel() (compact.Level, int, compact.Thresholds) {
	th := compact.ThresholdsFor(a.window(), a.opts.MaxTokens)
	n := a.tokens.Tokens()
	return th.Level(n), n, th
}

// resetTokens restarts the token count from the request prefix (system prompt, instructions and
// tools, estimated) and the history (its last reported usage, which covers the prefix too,
// plus estimates after it). Call it whenever the history or the prefix is replaced.
func (a *Agent) resetTokens() {
	a.tokens.Reset()
	a.tokens.AddTokens(a.prefixTokens().total())
	a.tokens.Append(a.history.Entries()...)
}

// window is Options.ContextWindow, or the model family's default.
func (a *Agent) window() int {
	if a.opts.ContextWindow > 0 {
		return a.opts.ContextWindow
	}
	w, _ := llm.DefaultContextWindow(a.opts.Model)
	return w
}

// autoCompact compacts before a request when Options.ContextWindow is set, the context is past
// the automatic threshold and the breaker allows it (not stopped by failures or thrash); the
// caller holds runMu.
func (a *Agent) autoCompact(ctx context.Context, sink Sink, turn int) error {
	if a.opts.ContextWindow <= 0 {
		return nil
	}
	level, n, th := a.ContextLevel()
	if level == compact.LevelWarn && !a.warned {
		a.warned = true
		sink(Event{Kind: EventCompact, Turn: turn, Text: fmt.Sprintf("context at about %d of %d tokens; the conversation will be compacted automatically past %d (/compact does it now)", n, th.Window, th.Auto)})
	}
	if level < compact.LevelAuto {
		return nil
	}
	due, note := a.breaker.Due()
	if note != "" {
		a.warn("%s", note)
		sink(Event{Kind: EventCompact, Turn: turn, Text: note})
	}
	if due {
		r, err := a.compact(ctx, compact.Auto, "")
		if note := a.breaker.Record(compact.Auto, err); note != "" {
			a.warn("%s", note)
			sink(Event{Kind: EventCompact, Turn: turn, Text: note})
		}
		switch {
		case err == nil:
			text := fmt.Sprintf("conversation compacted automatically (%d tokens before, %d after, threshold %d; %s)", n, r.PostTokens, th.Auto, r.Method)
			if r.Note != "" {
				text += ". " + r.Note
			}
			sink(Event{Kind: EventCompact, Turn: turn, Text: text})
			level, _, _ = a.ContextLevel()
		case errors.Is(err, compact.ErrNotSmaller):
			sink(Event{Kind: EventCompact, Turn: turn, Text: "automatic compaction skipped: " + errors.Unwrap(err).Error()})
		default:
			a.log.Warn("agent: auto-compaction failed", "err", err)
			sink(Event{Kind: EventCompact, Turn: turn, Text: "automatic compaction failed: " + err.Error()})
		}
	}
	if level == compact.LevelBlocked {
		return ErrContextFull
	}
	return nil
}
