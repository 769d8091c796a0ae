package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
)

// Compact compacts the conversation now (the /compact command): the history is replaced by a
// summary, the user's own messages, and the re-injected files, todos, tasks and active
// instructions; the transcript gets a compact boundary and the new entries. instr are
// optional instructions for the summary. On error the conversation is left as it was.
func (a *Agent) Compact(ctx context.Context, instr string) (*compact.Result, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	return a.compact(ctx, compact.Manual, instr)
}

// compact runs one compaction; the caller holds runMu.
func (a *Agent) compact(ctx context.Context, trig compact.Trigger, instr string) (*compact.Result, error) {
	window, _ := llm.DefaultContextWindow(a.opts.Model)
	in := compact.Input{
		History:      a.history.Entries(),
		Trigger:      trig,
		Instructions: instr,
		Provider:     a.provider,
		Model:        a.opts.Model,
		Window:       window,
		MaxOutput:    a.opts.MaxTokens,
		ReadCache:    a.cache,
		Work:         a.work,
		Agent:        a.sessionID,
		Rules:        a.instr,
		RulesOptions: instructions.Options{Env: a.opts.Env, Settings: a.opts.Settings, Logger: a.opts.Logger},
		Memory:       a.store,
		Recall:       a.recallS,
		Now:          a.now,
		Logger:       a.log,
	}
	if a.journal != nil {
		in.LeafUUID = a.journal.Leaf()
		in.NotesPath = filepath.Join(strings.TrimSuffix(a.journal.Path(), ".jsonl"), "session-memory", "summary.md")
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
	a.saveWorkState()
	return r, nil
}
