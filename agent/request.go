package agent

import (
	"context"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
)

// attachment is text queued for the next request.
type attachment struct {
	source string // "instructions", "recall", "note"
	text   string
}

// touch tells the instruction set that a tool accessed path and queues what newly applies.
func (a *Agent) touch(ctx context.Context, path string) {
	srcs := a.instr.Touch(ctx, path)
	if len(srcs) == 0 {
		return
	}
	for _, s := range srcs {
		a.recordInjected(s.Path, s.Text)
	}
	text := "These instructions now apply because " + path + " was accessed. Follow them from now on.\n\n" + instructions.RenderSources(srcs)
	a.mu.Lock()
	a.pending = append(a.pending, attachment{source: "instructions", text: text})
	a.mu.Unlock()
}

// boundary runs at every request boundary: it takes a finished recall and the queued
// attachments and appends them to the history as one isMeta user message.
func (a *Agent) boundary(sink Sink, turn int) {
	a.recallDone(sink, turn)
	a.mu.Lock()
	pend := a.pending
	a.pending = nil
	a.mu.Unlock()
	if len(pend) == 0 {
		return
	}
	m := conversation.Message{Role: conversation.User}
	for _, p := range pend {
		m.Content = append(m.Content, conversation.Block{Type: conversation.Text, Text: "<system-reminder>\n" + strings.TrimRight(p.text, "\n") + "\n</system-reminder>"})
		sink(Event{Kind: EventAttachment, Turn: turn, Source: p.source, Text: p.text})
	}
	a.appendMessage(m, true)
}

// messages returns the history as the provider gets it (see checked).
func messages(entries []conversation.Entry) []conversation.Message {
	msgs, _ := checked(entries)
	return msgs
}

// checked turns the history into a request's messages: consecutive messages of one role merged
// into one (tool results first, as the APIs require), so each request is the previous one plus
// a tail, then conversation.Repair, so that a history left inconsistent (a crash between a
// tool call and its result, a damaged transcript) is never sent broken. It returns what the
// repair changed.
func checked(entries []conversation.Entry) ([]conversation.Message, []conversation.Fix) {
	msgs := make([]conversation.Message, 0, len(entries))
	for _, e := range entries {
		if len(e.Message.Content) > 0 {
			msgs = append(msgs, e.Message)
		}
	}
	return conversation.Repair(conversation.Merge(msgs))
}

// request builds the next request and remembers its tail for the next one's cache marker.
// What the request check repaired is reported once (a warning), not at every request.
func (a *Agent) request() *llm.Request {
	msgs, fixes := checked(a.history.Entries())
	for _, f := range fixes {
		a.mu.Lock()
		seen := a.fixed[f.String()]
		if !seen {
			if a.fixed == nil {
				a.fixed = map[string]bool{}
			}
			a.fixed[f.String()] = true
		}
		a.mu.Unlock()
		if !seen {
			a.warn("request repaired before sending: %s", f)
		}
	}
	req := &llm.Request{Model: a.opts.Model, System: a.system, Tools: a.llmTools, Messages: msgs, MaxTokens: a.opts.MaxTokens}
	a.mu.Lock()
	prev := a.prevTail
	a.prevTail = len(msgs) - 1
	a.mu.Unlock()
	if prev >= 0 && prev < len(msgs)-1 && cacheable(msgs[prev]) {
		req.CachePoints = append(req.CachePoints, llm.CacheAfter(prev))
	}
	if n := len(msgs); n > 0 && cacheable(msgs[n-1]) {
		req.CachePoints = append(req.CachePoints, llm.CacheAfter(n-1))
	}
	a.mu.Lock()
	a.lastPoints = req.CachePoints
	a.mu.Unlock()
	return req
}

// cacheable reports whether the last block of m can carry a cache marker.
func cacheable(m conversation.Message) bool {
	if len(m.Content) == 0 {
		return false
	}
	switch m.Content[len(m.Content)-1].Type {
	case conversation.Text, conversation.ToolResult, conversation.ToolUse, conversation.Image:
		return true
	}
	return false
}

// Context describes what the model sees now, by source, for a /context view.
type Context struct {
	System       int `json:"system_tokens"`
	Instructions int `json:"instructions_tokens"`
	Tools        int `json:"tools_tokens"`
	Messages     int `json:"messages_tokens"`
	// Sources are the instruction pieces, session start first, then those touches added.
	Sources []instructions.Source `json:"sources"`
}

// Context returns the estimated size of each part of the next request.
func (a *Agent) Context() Context {
	c := a.prefixTokens()
	c.Messages = conversation.EstimateMessages(messages(a.history.Entries())...)
	c.Sources = a.instr.Sources()
	return c
}

// prefixTokens estimates the parts of a request before the history: the system prompt, the
// instruction block and the tools.
func (a *Agent) prefixTokens() Context { return prefixOf(a.system, a.llmTools) }

// prefixOf estimates a request prefix of system blocks and tools.
func prefixOf(system []llm.SystemBlock, tools []llm.Tool) Context {
	var c Context
	c.System = conversation.EstimateMessages(conversation.NewText(conversation.User, system[0].Text))
	if len(system) > 1 {
		c.Instructions = conversation.EstimateMessages(conversation.NewText(conversation.User, system[1].Text))
	}
	for _, t := range tools {
		c.Tools += conversation.EstimateMessages(conversation.NewText(conversation.User, t.Description+string(t.InputSchema)))
	}
	return c
}

func (c Context) total() int { return c.System + c.Instructions + c.Tools + c.Messages }
