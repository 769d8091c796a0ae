package agent

import (
	"context"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/prompt"
)

// touch tells the instruction set that a tool accessed path and queues what newly applies.
func (a *Agent) touch(ctx context.Context, path string) { a.prompt.Touch(ctx, path) }

// boundary runs at every request boundary: it takes a finished recall and the queued
// attachments and appends them to the history as one isMeta user message.
func (a *Agent) boundary(sink Sink, turn int) {
	a.recallDone(sink, turn)
	m, taken, ok := a.prompt.Boundary()
	if !ok {
		return
	}
	for _, p := range taken {
		sink(Event{Kind: EventAttachment, Turn: turn, Source: p.Source, Text: p.Text})
	}
	a.appendMessage(m, true)
}

// request builds the next request; what the request check repaired is reported once.
func (a *Agent) request() *llm.Request {
	req, fixes := a.prompt.Request(a.opts.MaxTokens)
	for _, f := range fixes {
		a.warn("request repaired before sending: %s", f)
	}
	return req
}

// Context returns the estimated size of each part of the next request.
func (a *Agent) Context() prompt.Size { return a.prompt.Size() }
