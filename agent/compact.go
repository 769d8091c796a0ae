package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// Compact compacts the conversation now (the /compact command): the history is replaced by a
// summary, the user's own messages, and the re-injected files, todos, tasks and active
// instructions; the transcript gets a compact boundary and the new entries. instr are
// optional instructions for the summary. On error the conversation is left as it was.
func (a *Agent) Compact(ctx context.Context, instr string) (*compact.Result, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	r, err := a.compact(ctx, compact.Manual, instr)
	if err == nil {
		a.breaker.Record(nil) // a success turns auto-compaction back on
	}
	return r, err
}

// compact runs one compaction; the caller holds runMu.
func (a *Agent) compact(ctx context.Context, trig compact.Trigger, instr string) (*compact.Result, error) {
	a.waitNotes(ctx, notesWaitBeforeCompact)
	in := compact.Input{
		History:      a.history.Entries(),
		Trigger:      trig,
		Instructions: instr,
		Provider:     a.provider,
		Model:        a.opts.Model,
		Window:       a.window(),
		MaxOutput:    a.opts.MaxTokens,
		ReadCache:    a.cache,
		Work:         a.work,
		Agent:        a.sessionID,
		Rules:        a.instr,
		RulesOptions: a.opts.Workspace.InstructionsOptions(),
		Memory:       a.store,
		Recall:       a.recallS,
		Now:          a.now,
		Logger:       a.log,
	}
	if a.journal != nil {
		in.LeafUUID = a.journal.Leaf()
		in.NotesPath = compact.NotesPath(a.journal.Path())
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
	if r.Rules != nil {
		a.instr = r.Rules
		if r.Index.Exists {
			a.instr.AddAutomem(r.Index.Path, r.Index.Content(), r.Index.Truncated)
		}
		a.system = a.systemBlocks()
		for _, src := range a.instr.Sources() {
			a.recordInjected(src.Path, src.Text)
		}
	}
	a.mu.Lock()
	a.prevTail = -1
	a.mu.Unlock()
	a.warned = false
	a.compacted()
	a.saveWorkState()
	return r, nil
}

// EventCompact reports an automatic compaction, its failure, or that auto-compaction stopped
// (Text says which).
const EventCompact EventKind = "compact"

// ErrContextFull is returned by Run when the conversation has reached the point where new
// requests are refused and automatic compaction could not make room.
var ErrContextFull = errors.New("agent: the conversation is too long for the model's context window; run /compact")

// ContextLevel returns how full the context is, by compact's thresholds for the model's window.
func (a *Agent) ContextLevel() (compact.Level, int, compact.Thresholds) {
	th := compact.ThresholdsFor(a.window(), a.opts.MaxTokens)
	c := a.Context()
	n := c.System + c.Instructions + c.Tools + c.Messages
	return th.Level(n), n, th
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
// the automatic threshold and auto-compaction has not been stopped; the caller holds runMu.
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
	if a.breaker.AllowAuto() {
		r, err := a.compact(ctx, compact.Auto, "")
		if note := a.breaker.Record(err); note != "" {
			a.warn("%s", note)
			sink(Event{Kind: EventCompact, Turn: turn, Text: note})
		}
		if err == nil {
			sink(Event{Kind: EventCompact, Turn: turn, Text: fmt.Sprintf("conversation compacted automatically (%d tokens before, threshold %d; %s)", n, th.Auto, r.Method)})
			level, _, _ = a.ContextLevel()
		} else {
			a.log.Warn("agent: auto-compaction failed", "err", err)
			sink(Event{Kind: EventCompact, Turn: turn, Text: "automatic compaction failed: " + err.Error()})
		}
	}
	if level == compact.LevelBlocked {
		return ErrContextFull
	}
	return nil
}
