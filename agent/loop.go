package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
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

// interruptNote is appended (isMeta) when a turn is cancelled, so the model knows on the next
// message that its previous reply was cut.
const interruptNote = "[The user interrupted the previous response.]"

// Run sends one user message and runs the loop until the model stops, the turn limit is hit
// (ErrMaxTurns) or ctx is cancelled (ctx's error, with Result.Interrupted). Events go to sink
// (nil: none) as they happen. Whatever happens, the history and the transcript are left
// consistent and the transcript is synced before Run returns.
func (a *Agent) Run(ctx context.Context, prompt string, sink Sink) (Result, error) {
	return a.RunInput(ctx, conversation.TypedInput(prompt), sink)
}

// RunInput is Run for a message whose parts' origins (typed, pasted, attached, command
// output) and pin are known; the transcript records them, and compaction carries the user's
// words by them.
func (a *Agent) RunInput(ctx context.Context, in conversation.Input, sink Sink) (res Result, err error) {
	prompt := in.Text()
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if sink == nil {
		sink = func(Event) {}
	}
	if strings.TrimSpace(prompt) == "" {
		return res, errors.New("agent: empty message")
	}
	a.mu.Lock()
	tools := a.toolsUsed
	a.toolsUsed = nil
	a.mu.Unlock()
	a.appendEntry(conversation.Entry{Message: conversation.NewText(conversation.User, prompt), Provenance: in.Provenance()})
	a.syncJournal(ctx) // the prompt is durable before the request leaves
	a.breaker.Turn()
	a.prompt.StartRecall(ctx, prompt, tools)
	defer func() {
		a.endTurn(ctx)
		if err == nil {
			a.afterTurn(res)
		}
	}()

	max := a.opts.MaxTurns
	if max <= 0 {
		max = DefaultMaxTurns
	}
	retried := false // a request refused as too large was compacted and sent again
	for {
		if res.Turns == max {
			return res, fmt.Errorf("%w (%d model requests); the last tool results are in the conversation, send another message to go on", ErrMaxTurns, max)
		}
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			a.appendMessage(conversation.NewText(conversation.User, interruptNote), true)
			return res, err
		}
		res.Turns++
		if err := a.autoCompact(ctx, sink, res.Turns); err != nil {
			return res, err
		}
		a.boundary(sink, res.Turns)
		req := a.request()
		sink(Event{Kind: EventRequest, Turn: res.Turns})
		resp, done, err := a.stream(ctx, req, sink, res.Turns)
		if resp != nil {
			res.Usage = res.Usage.Add(resp.Usage)
			sink(Event{Kind: EventUsage, Turn: res.Turns, Usage: resp.Usage})
		}
		if err != nil && (resp == nil || len(resp.Message.Content) == 0) && !retried && llm.TooLarge(err) {
			retried = true
			if a.compactTooLarge(ctx, err, sink, res.Turns) == nil {
				continue
			}
		}
		if err != nil {
			res.Interrupted = ctx.Err() != nil
			a.recordPartial(resp, done, ctx.Err() != nil)
			if resp != nil {
				res.Text = resp.Message.TextOf()
			}
			return res, err
		}
		res.StopReason = resp.StopReason
		if len(resp.Message.Content) == 0 {
			return res, nil // nothing to record: the APIs reject empty messages
		}
		a.appendEntry(conversation.Entry{Message: resp.Message, Usage: reported(resp.Usage)})
		res.Text = resp.Message.TextOf()
		sink(Event{Kind: EventAssistant, Turn: res.Turns, Text: res.Text})
		calls := resp.ToolCalls()
		if len(calls) == 0 {
			if resp.StopReason == llm.StopPause {
				continue // a long turn paused: sending it back lets the model go on
			}
			return res, nil
		}
		a.syncJournal(ctx) // a crash in a tool must not lose the prompt or the calls
		results := a.runTools(ctx, calls, sink, res.Turns)
		res.ToolCalls += len(calls)
		a.appendMessage(results, false)
	}
}

// compactTooLarge compacts after the API refused a request as larger than the context window
// (its count of the conversation is above what the recorded usage said), so that the request
// can be sent once more; the caller holds runMu.
func (a *Agent) compactTooLarge(ctx context.Context, refusal error, sink Sink, turn int) error {
	// The API counted more than the recorded usage said: strata's estimate is the better floor.
	r, err := a.compact(ctx, compact.Auto, "", a.prompt.Size().Total())
	if note := a.breaker.Record(compact.Auto, err); note != "" {
		a.warn("%s", note)
	}
	if err != nil {
		a.log.Warn("agent: compaction after a too-large refusal failed", "err", err, "refusal", refusal)
		sink(Event{Kind: EventCompact, Turn: turn, Text: "the model's API refused the request as too large, and compaction failed: " + err.Error()})
		return err
	}
	sink(Event{Kind: EventCompact, Turn: turn, Text: fmt.Sprintf("conversation compacted automatically: the model's API refused the request as too large (%d tokens after; %s)", r.PostTokens, r.Method)})
	return nil
}

// stream sends req and forwards its events. It returns the reply so far (nil when nothing
// arrived), the ids of tool calls whose input is complete, and the stream's error.
func (a *Agent) stream(ctx context.Context, req *llm.Request, sink Sink, turn int) (*llm.Response, map[string]bool, error) {
	s, err := a.metered[UsageMain].Stream(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	done := map[string]bool{}
	for s.Next() {
		ev := s.Event()
		switch ev.Type {
		case llm.EventText:
			sink(Event{Kind: EventText, Turn: turn, Text: ev.Text})
		case llm.EventThinking:
			sink(Event{Kind: EventThinking, Turn: turn, Text: ev.Text})
		case llm.EventRetry:
			sink(Event{Kind: EventRetry, Turn: turn, Err: ev.Err, Wait: ev.Wait})
		case llm.EventBlockStop:
			if ev.Block != nil && ev.Block.Type == conversation.ToolUse {
				done[ev.Block.ID] = true
			}
		}
	}
	return s.Response(), done, s.Err()
}

// recordPartial keeps what a failed or cancelled stream showed: its text, signed thinking and
// complete tool calls (each answered as interrupted), so the conversation stays valid.
func (a *Agent) recordPartial(resp *llm.Response, done map[string]bool, cancelled bool) {
	var kept []conversation.Block
	var calls []conversation.Block
	if resp != nil {
		for _, b := range resp.Message.Content {
			switch {
			case b.Type == conversation.Text && b.Text != "":
				kept = append(kept, b)
			case b.Type == conversation.Thinking && b.Signature != "":
				kept = append(kept, b)
			case b.Type == conversation.ToolUse && done[b.ID] && len(b.Input) > 0:
				kept = append(kept, b)
				calls = append(calls, b)
			}
		}
	}
	if len(kept) > 0 {
		a.appendEntry(conversation.Entry{Message: conversation.Message{Role: conversation.Assistant, Content: kept}, Usage: reported(resp.Usage)})
	}
	if len(calls) > 0 {
		why := "the reply stream failed before the call could run"
		if cancelled {
			why = "the user interrupted the turn"
		}
		a.appendMessage(interruptedResults(calls, why), false)
	}
	if cancelled {
		a.appendMessage(conversation.NewText(conversation.User, interruptNote), true)
	}
}

// reported is the usage recorded on a reply's entry: nil when the provider reported none.
func reported(u llm.Usage) *conversation.Usage {
	if !u.Reported() {
		return nil
	}
	return &u
}

// runTools runs the calls in order and returns the user message with their results. After ctx
// is cancelled, the call in progress and every later one get an "interrupted" result.
func (a *Agent) runTools(ctx context.Context, calls []conversation.Block, sink Sink, turn int) conversation.Message {
	m := conversation.Message{Role: conversation.User}
	for _, c := range calls {
		call := &ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}
		var out string
		var isErr bool
		if ctx.Err() != nil {
			out, isErr = "Interrupted: the user interrupted the turn before this tool call ran.", true
		} else {
			out, isErr = a.runTool(ctx, call, sink, turn)
		}
		m.Content = append(m.Content, conversation.Block{Type: conversation.ToolResult, ToolUseID: c.ID, IsError: isErr,
			Content: []conversation.Block{{Type: conversation.Text, Text: out}}})
	}
	return m
}

func (a *Agent) runTool(ctx context.Context, call *ToolCall, sink Sink, turn int) (string, bool) {
	t := a.byName[call.Name]
	if t == nil {
		return fmt.Sprintf("There is no tool called %q. The tools are: %s.", call.Name, strings.Join(a.Tools(), ", ")), true
	}
	e := sessionEnv{a}
	c, err := tool.Decode(e, t.Name, call.Input)
	if err != nil {
		return err.Error(), true
	}
	s := permission.SubjectOf(c)
	if ok, msg := a.permit(ctx, t, call, s); !ok {
		sink(Event{Kind: EventPermission, Turn: turn, Tool: call, Text: msg})
		return msg, true
	}
	sink(Event{Kind: EventToolStart, Turn: turn, Tool: call})
	start := time.Now()
	out, err := t.Run(permission.WithChecked(ctx, s), e, c)
	isErr := err != nil
	switch {
	case ctx.Err() != nil:
		out, isErr = "Interrupted: the user interrupted the turn while this tool call ran"+partialOutput(out), true
	case err != nil:
		out = err.Error()
	}
	out = tool.CapOutput(out, tool.MaxOutput)
	a.log.Debug("agent: tool", "name", call.Name, "error", isErr, "took", time.Since(start))
	if !isErr {
		a.mu.Lock()
		a.toolsUsed = append(a.toolsUsed, call.Name)
		a.mu.Unlock()
		a.noteMemoryWrite(t, c)
	}
	sink(Event{Kind: EventToolEnd, Turn: turn, Tool: call, Output: out, IsError: isErr})
	return out, isErr
}

func partialOutput(out string) string {
	if strings.TrimSpace(out) == "" {
		return "."
	}
	return "; output so far:\n" + out
}

// permit decides a call whose decoded input has subject s; the message explains a denial to
// the model.
func (a *Agent) permit(ctx context.Context, t *tool.Tool, call *ToolCall, s permission.Subject) (bool, string) {
	a.mu.Lock()
	d, why := a.perms.Check(t.Name, t.Class, s)
	a.mu.Unlock()
	switch d {
	case permission.Allow:
		return true, ""
	case permission.Deny:
		return false, fmt.Sprintf("Permission denied: %s is %s. Do not try to achieve the same effect another way; tell the user what you wanted to do.", describe(t.Name, s), why)
	}
	sug := permission.Suggest(t.Name, s, a.cwd)
	summary := describe(t.Name, s)
	if why != "" {
		summary += " (asked because " + why + ")"
	}
	if a.opts.Approver == nil {
		if a.perms.Protects(s) != "" {
			return false, fmt.Sprintf("Permission denied: %s needs the user's approval in every mode, and this session cannot ask. Tell the user what you wanted to do.", summary)
		}
		return false, fmt.Sprintf("Permission denied: %s needs the user's approval, and this session cannot ask (non-interactive, permission mode %s). The user can allow it with --allow '%s' or the setting permissions.allow, or with --permission-mode. Tell the user what you wanted to do.", summary, a.perms.Mode, sug)
	}
	req := permission.Request{Tool: t.Name, Input: call.Input, Summary: summary, Suggest: sug}
	req.Always, req.AlwaysSaved = permission.AlwaysRule(t.Name, s.Command)
	if r := permission.ReadAlways(t.Name, s); r != "" {
		req.Always, req.AlwaysSaved = r, false
	}
	if a.perms.Protects(s) != "" {
		req.Always, req.Suggest = "", "" // no rule allows a protected file
	}
	ans, err := a.opts.Approver(ctx, req)
	if err != nil {
		return false, fmt.Sprintf("Permission was not given: %v", err)
	}
	if !ans.Allow {
		if fb := strings.TrimSpace(ans.Feedback); fb != "" {
			return false, fmt.Sprintf("Permission denied: the user declined %s and said what to do instead:\n%s", describe(t.Name, s), fb)
		}
		return false, fmt.Sprintf("Permission denied: the user declined %s. Ask them how to proceed, or do something else.", describe(t.Name, s))
	}
	if ans.Always && req.Always != "" {
		if err := a.allowAlways(req.Always, req.AlwaysSaved); err != nil {
			a.warn("don't ask again for %s: %v", req.Always, err)
		}
	}
	return true, ""
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

// syncJournal makes the transcript durable up to now (before tools run: a tool that
// crashes or gets the process killed must not take the turn's prompt with it), with a
// context that outlives a cancelled turn.
func (a *Agent) syncJournal(ctx context.Context) {
	if a.journal == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := a.journal.Sync(sctx); err != nil {
		a.saveFailed(err)
	}
}

// endTurn runs when Run returns: it stores the working memory if it changed, and flushes and
// syncs the transcript with a context that outlives a cancelled turn.
func (a *Agent) endTurn(ctx context.Context) {
	a.saveWorkState()
	a.syncJournal(ctx)
}
