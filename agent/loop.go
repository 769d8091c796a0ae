package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
)

// Result is what one Run produced.
type Result struct {
	// Text is the text of the model's last message.
	Text string
	// StopReason is the last reply's stop reason.
	StopReason llm.StopReason
	// Turns counts the model requests made.
	Turns int
	// ToolCalls counts the tool calls run (denied ones included).
	ToolCalls int
	// Usage sums the usage of every request of this Run.
	Usage llm.Usage
	// Interrupted is true when the context was cancelled during the Run.
	Interrupted bool
}

// handler is what differs between the main agent's turn (turn.go) and a fork's run (fork.go):
// where requests come from, where messages go and who decides a tool call.
type handler interface {
	// request returns request number n (from 1).
	request(ctx context.Context, n int) (*llm.Request, error)
	// record keeps a message of the walk: a reply (with its reported usage) or tool results.
	record(ctx context.Context, m conversation.Message, u *conversation.Usage)
	// failed handles a request that failed with err (resp: what arrived, nil when nothing
	// did; done: the tool calls whose input is complete), or a walk cancelled before a request
	// (resp nil). It returns the walk's error, or retry to send the request again.
	failed(ctx context.Context, resp *llm.Response, done map[string]bool, err error, n int) (retry bool, _ error)
	// decide says whether call c of t may run; when not, out and isErr are its result.
	decide(ctx context.Context, t *tool.Tool, call *ToolCall, c toolcall.Call, n int) (run bool, out string, isErr bool)
	// ran is told of a call that ran.
	ran(t *tool.Tool, c toolcall.Call, isErr bool)
}

// loop is the walk of the main agent and of every fork: request, reply, tool calls, results,
// and again until the model stops, the turn limit, an error or ctx's end.
type loop struct {
	provider llm.Provider
	whole    bool // deliver no events before the reply is whole (llm.Complete: every failure is retried)
	tools    tool.Box
	env      tool.Env
	maxTurns int
	sink     Sink
	h        handler
}

// run walks until the model stops calling tools. The turn limit ends it with an error
// wrapping ErrMaxTurns.
func (l *loop) run(ctx context.Context) (res Result, err error) {
	for {
		if res.Turns == l.maxTurns {
			return res, fmt.Errorf("%w (%d model requests); the last tool results are in the conversation, send another message to go on", ErrMaxTurns, l.maxTurns)
		}
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			_, err = l.h.failed(ctx, nil, nil, err, res.Turns)
			return res, err
		}
		res.Turns++
		req, err := l.h.request(ctx, res.Turns)
		if err != nil {
			return res, err
		}
		l.sink(Event{Kind: EventRequest, Turn: res.Turns})
		resp, done, err := l.send(ctx, req, res.Turns)
		if resp != nil {
			res.Usage = res.Usage.Add(resp.Usage)
			l.sink(Event{Kind: EventUsage, Turn: res.Turns, Usage: resp.Usage})
		}
		if err != nil {
			retry, err := l.h.failed(ctx, resp, done, err, res.Turns)
			if retry {
				continue
			}
			res.Interrupted = ctx.Err() != nil
			if resp != nil {
				res.Text = resp.Message.TextOf()
			}
			return res, err
		}
		res.StopReason = resp.StopReason
		if len(resp.Message.Content) == 0 {
			return res, nil // nothing to record: the APIs reject empty messages
		}
		l.h.record(ctx, resp.Message, reported(resp.Usage))
		res.Text = resp.Message.TextOf()
		l.sink(Event{Kind: EventAssistant, Turn: res.Turns, Text: res.Text})
		calls := resp.ToolCalls()
		if len(calls) == 0 {
			if resp.StopReason == llm.StopPause {
				continue // a long turn paused: sending it back lets the model go on
			}
			return res, nil
		}
		results := conversation.Message{Role: conversation.User}
		for _, c := range calls {
			out, isErr := "Interrupted: the turn was interrupted before this tool call ran.", true
			if ctx.Err() == nil {
				out, isErr = l.call(ctx, &ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}, res.Turns)
			}
			results.Content = append(results.Content, conversation.Block{Type: conversation.ToolResult, ToolUseID: c.ID, IsError: isErr,
				Content: []conversation.Block{{Type: conversation.Text, Text: out}}})
		}
		res.ToolCalls += len(calls)
		l.h.record(ctx, results, nil)
	}
}

// send sends req and forwards its events. It returns the reply so far (nil when nothing
// arrived), the ids of tool calls whose input is complete, and the error.
func (l *loop) send(ctx context.Context, req *llm.Request, n int) (*llm.Response, map[string]bool, error) {
	if l.whole {
		resp, err := llm.Complete(ctx, l.provider, req)
		return resp, nil, err
	}
	s, err := l.provider.Stream(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	done := map[string]bool{}
	for s.Next() {
		ev := s.Event()
		switch ev.Type {
		case llm.EventText:
			l.sink(Event{Kind: EventText, Turn: n, Text: ev.Text})
		case llm.EventThinking:
			l.sink(Event{Kind: EventThinking, Turn: n, Text: ev.Text})
		case llm.EventRetry:
			l.sink(Event{Kind: EventRetry, Turn: n, Err: ev.Err, Wait: ev.Wait})
		case llm.EventBlockStop:
			if ev.Block != nil && ev.Block.Type == conversation.ToolUse {
				done[ev.Block.ID] = true
			}
		}
	}
	return s.Response(), done, s.Err()
}

// call decodes one tool call, asks the handler and runs it; the result is capped at
// tool.MaxOutput.
func (l *loop) call(ctx context.Context, call *ToolCall, n int) (string, bool) {
	t := l.tools.Get(call.Name)
	if t == nil {
		return fmt.Sprintf("There is no tool called %q. The tools are: %s.", call.Name, strings.Join(l.tools.Names(), ", ")), true
	}
	c, err := t.Decode(l.env, call.Input)
	if err != nil {
		return err.Error(), true
	}
	run, out, isErr := l.h.decide(ctx, t, call, c, n)
	if !run {
		return tool.CapOutput(out, tool.MaxOutput), isErr
	}
	l.sink(Event{Kind: EventToolStart, Turn: n, Tool: call})
	start := time.Now()
	out, err = t.Run(permission.WithChecked(ctx, permission.SubjectOf(c)), l.env, c)
	isErr = err != nil
	switch {
	case ctx.Err() != nil:
		out, isErr = "Interrupted: the turn was interrupted while this tool call ran"+partialOutput(out), true
	case err != nil:
		out = err.Error()
	}
	out = tool.CapOutput(out, tool.MaxOutput)
	l.env.Logger().Debug("agent: tool", "name", call.Name, "error", isErr, "took", time.Since(start))
	l.h.ran(t, c, isErr)
	l.sink(Event{Kind: EventToolEnd, Turn: n, Tool: call, Output: out, IsError: isErr})
	return out, isErr
}

func partialOutput(out string) string {
	if strings.TrimSpace(out) == "" {
		return "."
	}
	return "; output so far:\n" + out
}

// reported is the usage recorded on a reply's entry: nil when the provider reported none.
func reported(u llm.Usage) *conversation.Usage {
	if !u.Reported() {
		return nil
	}
	return &u
}

func describe(tool string, s permission.Subject) string {
	switch {
	case s.Command != "":
		return fmt.Sprintf("the command %q", s.Command)
	case s.Path != "":
		return fmt.Sprintf("%s on %s", tool, s.Path)
	}
	return tool
}
