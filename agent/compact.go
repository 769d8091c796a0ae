package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/usage"
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
	r, err := a.compact(ctx, compact.Manual, instr, 0)
	a.breaker.Record(compact.Manual, err)
	return r, err
}

// compact runs one compaction; the caller holds runMu. compact.Run decides and returns the new
// context; the effects are applied here, and only after it succeeded: the instructions and the
// memory index re-read from disk, the read cache refilled with the re-injected views, recall's
// session reset, the transcript written and the token count restarted.
// atLeast is what the context is known to hold at least (the recorded usage may understate
// it); 0 trusts the count.
func (a *Agent) compact(ctx context.Context, trig compact.Trigger, instr string, atLeast int) (*compact.Result, error) {
	a.waitNotes(ctx, notesWaitBeforeCompact)
	// Re-read before anything changes, so that an error leaves everything as it was.
	fresh, err := a.opts.Workspace.Instructions(ctx, workspace.SetOptions{})
	if err != nil {
		return nil, fmt.Errorf("agent: compact: reload instructions: %w", err)
	}
	p := a.prompt.Prepare(ctx, fresh)
	in := compact.Input{
		History:      a.prompt.Entries(),
		Trigger:      trig,
		Instructions: instr,
		Provider:     a.meter.Provider(usage.Compaction),
		Model:        a.opts.Model,
		Window:       a.window(),
		MaxOutput:    a.opts.MaxTokens,
		PrefixTokens: p.PrefixTokens,
		Tokens:       max(a.prompt.Tokens(), atLeast),
		Reinject: compact.Reinject{
			Files:    p.Files,
			InPrompt: p.InPrompt,
			Todos:    a.sess.work.Todos.Get(a.sess.id),
			Tasks:    a.sess.work.Tasks.List(),
			Rules:    p.Rules,
		},
		Now:    a.now,
		Logger: a.log,
	}
	if a.sess.journal != nil {
		in.LeafUUID = a.sess.journal.Leaf()
		notes, err := compact.ReadSessionNotes(compact.NotesPath(a.sess.journal.Path()))
		if err != nil {
			a.log.Warn("agent: compact: session notes only partly usable", "err", err)
		}
		in.Notes = notes
	}
	r, err := compact.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("agent: compact: %w", err)
	}
	if err := a.prompt.Apply(p, r); err != nil {
		return nil, fmt.Errorf("agent: compact: %w", err)
	}
	for _, e := range r.Entries {
		a.sess.append(e)
	}
	a.warned = false
	a.compacted()
	a.sess.saveWork()
	return r, nil
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
	n := a.prompt.Tokens()
	// A tokenizer may count fewer tokens than the estimate, but not fewer than a whole window:
	// an estimate past the window means the recorded usage understates the context (a
	// resumed or rewritten transcript), and the estimate counts.
	if est := a.prompt.Size().Total(); est > th.Window {
		n = max(n, est)
	}
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
		r, err := a.compact(ctx, compact.Auto, "", n)
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
