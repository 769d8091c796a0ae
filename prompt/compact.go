package prompt

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tool"
)

// Pending is the prompt side of a compaction, prepared before compact.Run and applied after
// it succeeded, so that an error leaves everything as it was.
type Pending struct {
	fresh  *instructions.Set
	system []llm.SystemBlock
	// Rules are the conditional rules and nested instruction files that apply again;
	// InPrompt the instruction files the new system prompt and Rules hold; Files the read
	// cache's views compaction may re-inject, each with its content.
	Rules    []instructions.Source
	InPrompt []string
	Files    []conversation.FileState
	// PrefixTokens estimates the new request prefix (system prompt, instructions, tools).
	PrefixTokens int
}

// Prepare re-reads the instructions from disk (fresh, as a session start loads them),
// touches in them every path that made a rule apply and every file read or written, renders
// the new system prompt and collects the files to re-inject.
func (c *Context) Prepare(ctx context.Context, fresh *instructions.Set) *Pending {
	p := &Pending{fresh: fresh}
	p.Rules = reactivate(ctx, c.Instructions(), fresh, c.cache.Recent(0))
	c.mu.Lock()
	p.system = c.render(fresh)
	c.mu.Unlock()
	for _, src := range fresh.Sources() { // the system prompt's pieces and the rules re-injected
		p.InPrompt = append(p.InPrompt, src.Path)
	}
	p.Files = reinjectFiles(c.cache.Recent(0), p.InPrompt)
	p.PrefixTokens = prefixOf(p.system, c.tools).Total()
	return p
}

// Apply applies a compaction's result: the new history, the fresh instructions and system
// prompt, the read cache refilled with the re-injected views and the instruction files (seen
// in altered form), recall's session reset and the token count restarted.
func (c *Context) Apply(p *Pending, r *compact.Result) error {
	h, err := conversation.NewHistory(r.Context)
	if err != nil {
		return fmt.Errorf("prompt: apply compaction: %w", err)
	}
	c.mu.Lock()
	c.history, c.instr, c.system, c.tail = h, p.fresh, p.system, -1
	c.mu.Unlock()
	// The cache holds what the new context shows: the re-injected views (oldest first, so the
	// recency order stays) and the instruction files.
	c.cache.Clear()
	for i := len(r.FileViews) - 1; i >= 0; i-- {
		if err := c.cache.Record(r.FileViews[i]); err != nil {
			c.opts.Logger.Warn("prompt: read cache refill", "path", r.FileViews[i].Path, "err", err)
		}
	}
	for _, src := range p.fresh.Sources() {
		c.RecordInjected(src.Path, src.Text)
	}
	if c.opts.Recall != nil {
		c.opts.Recall.Reset()
	}
	c.ResetTokens()
	return nil
}

// reinjectFiles returns the views that compaction may re-inject (compact.RecentFiles
// decides which), each with its content: a view restored on resume has none and one whose
// file changed since is stale, so those are read from disk now, bounded as Read bounds a
// whole read. A file that is gone, unreadable, too large or binary is left out.
func reinjectFiles(views []conversation.FileState, inPrompt []string) []conversation.FileState {
	var out []conversation.FileState
	for _, st := range compact.RecentFiles(views, inPrompt) {
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
