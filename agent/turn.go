package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
	"github.com/strata-mem/strata/usage"
)

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
	if strings.TrimSpace(prompt) == "" {
		return res, errors.New("agent: empty message")
	}
	a.mu.Lock()
	tools := a.toolsUsed
	a.toolsUsed = nil
	a.mu.Unlock()
	a.appendEntry(conversation.Entry{Message: conversation.NewText(conversation.User, prompt), Provenance: in.Provenance()})
	a.sess.sync(ctx) // the prompt is durable before the request leaves
	a.breaker.Turn()
	a.prompt.StartRecall(ctx, prompt, tools)
	defer func() {
		a.endTurn(ctx)
		if err == nil {
			a.afterTurn(res)
		}
	}()
	return a.loop(sink).run(ctx)
}

// loop returns the main agent's walk for one turn, events to sink (nil: none).
func (a *Agent) loop(sink Sink) *loop {
	if sink == nil {
		sink = func(Event) {}
	}
	max := a.opts.MaxTurns
	if max <= 0 {
		max = DefaultMaxTurns
	}
	return &loop{provider: a.meter.Provider(usage.Main), tools: a.tools, env: sessionEnv{a}, maxTurns: max, sink: sink, h: &turn{a: a, sink: sink}}
}

// turn is the main agent's handler: requests from the prompt, messages to the history and
// the transcript, tool calls decided by the permissions and the Approver.
type turn struct {
	a       *Agent
	sink    Sink
	retried bool // a request refused as too large was compacted and sent again
}

func (t *turn) request(ctx context.Context, n int) (*llm.Request, error) {
	if err := t.a.autoCompact(ctx, t.sink, n); err != nil {
		return nil, err
	}
	// At every request boundary a finished recall and the queued attachments join the history
	// as one isMeta user message.
	t.a.recallDone(t.sink, n)
	if m, taken, ok := t.a.prompt.Boundary(); ok {
		for _, p := range taken {
			t.sink(Event{Kind: EventAttachment, Turn: n, Source: p.Source, Text: p.Text})
		}
		t.a.appendMessage(m, true)
	}
	req, fixes := t.a.prompt.Request(t.a.opts.MaxTokens)
	for _, f := range fixes {
		t.a.warn("request repaired before sending: %s", f)
	}
	return req, nil
}

func (t *turn) record(ctx context.Context, m conversation.Message, u *conversation.Usage) {
	t.a.appendEntry(conversation.Entry{Message: m, Usage: u})
	if m.Role == conversation.Assistant && slices.ContainsFunc(m.Content, isToolUse) {
		t.a.sess.sync(ctx) // a crash in a tool must not lose the prompt or the calls
	}
}

func isToolUse(b conversation.Block) bool { return b.Type == conversation.ToolUse }

func (t *turn) failed(ctx context.Context, resp *llm.Response, done map[string]bool, err error, n int) (bool, error) {
	if (resp == nil || len(resp.Message.Content) == 0) && !t.retried && llm.TooLarge(err) {
		t.retried = true
		if t.a.compactTooLarge(ctx, err, t.sink, n) == nil {
			return true, nil
		}
	}
	t.a.recordPartial(resp, done, ctx.Err() != nil)
	return false, err
}

func (t *turn) decide(ctx context.Context, tl *tool.Tool, call *ToolCall, c toolcall.Call, n int) (bool, string, bool) {
	precheck := func() error { return tl.Precheck(sessionEnv{t.a}, c) }
	ok, msg, err := t.a.permit(ctx, tl, call, permission.SubjectOf(c), precheck)
	switch {
	case err != nil: // refused as the tool would refuse it, before the user was asked
		t.sink(Event{Kind: EventToolEnd, Turn: n, Tool: call, Output: err.Error(), IsError: true})
		return false, err.Error(), true
	case !ok:
		t.sink(Event{Kind: EventPermission, Turn: n, Tool: call, Text: msg})
		return false, msg, true
	}
	return true, "", false
}

func (t *turn) ran(tl *tool.Tool, c toolcall.Call, isErr bool) {
	if isErr {
		return
	}
	t.a.mu.Lock()
	t.a.toolsUsed = append(t.a.toolsUsed, tl.Name)
	t.a.mu.Unlock()
	t.a.noteMemoryWrite(tl, c)
}

// compactTooLarge compacts after the API refused a request as larger than the context window
// (its count of the conversation is above what the recorded usage said), so that the request
// can be sent once more; the caller holds runMu.
func (a *Agent) compactTooLarge(ctx context.Context, refusal error, sink Sink, n int) error {
	// The API counted more than the recorded usage said: strata's estimate is the better floor.
	r, err := a.compact(ctx, compact.Auto, "", a.prompt.Size().Total())
	if note := a.breaker.Record(compact.Auto, err); note != "" {
		a.warn("%s", note)
	}
	if err != nil {
		a.log.Warn("agent: compaction after a too-large refusal failed", "err", err, "refusal", refusal)
		sink(Event{Kind: EventCompact, Turn: n, Text: "the model's API refused the request as too large, and compaction failed: " + err.Error()})
		return err
	}
	sink(Event{Kind: EventCompact, Turn: n, Text: fmt.Sprintf("conversation compacted automatically: the model's API refused the request as too large (%d tokens after; %s)", r.PostTokens, r.Method)})
	return nil
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
		a.appendMessage(conversation.InterruptedResults(calls, why), false)
	}
	if cancelled {
		a.appendMessage(conversation.NewText(conversation.User, interruptNote), true)
	}
}

// permit decides a call whose decoded input has subject s; the message explains a denial to
// the model. A call the rules leave to the user is first prechecked: its refusal is returned
// as the error, and no one is asked.
func (a *Agent) permit(ctx context.Context, t *tool.Tool, call *ToolCall, s permission.Subject, precheck func() error) (bool, string, error) {
	a.mu.Lock()
	d, why := a.perms.Check(t.Name, t.Class, s)
	a.mu.Unlock()
	switch d {
	case permission.Allow:
		return true, "", nil
	case permission.Deny:
		return false, fmt.Sprintf("Permission denied: %s is %s. Do not try to achieve the same effect another way; tell the user what you wanted to do.", describe(t.Name, s), why), nil
	}
	sug := permission.Suggest(t.Name, s, a.cwd)
	summary := describe(t.Name, s)
	if why != "" {
		summary += " (asked because " + why + ")"
	}
	if a.opts.Approver == nil {
		if a.perms.Protects(s) != "" {
			return false, fmt.Sprintf("Permission denied: %s needs the user's approval in every mode, and this session cannot ask. Tell the user what you wanted to do.", summary), nil
		}
		return false, fmt.Sprintf("Permission denied: %s needs the user's approval, and this session cannot ask (non-interactive, permission mode %s). The user can allow it with --allow '%s' or the setting permissions.allow, or with --permission-mode. Tell the user what you wanted to do.", summary, a.perms.Mode, sug), nil
	}
	req := permission.Request{Tool: t.Name, Input: call.Input, Summary: summary, Suggest: sug}
	req.Always, req.AlwaysSaved = permission.AlwaysRule(t.Name, s.Command)
	if r := permission.ReadAlways(t.Name, s); r != "" {
		req.Always, req.AlwaysSaved = r, false
	}
	if a.perms.Protects(s) != "" {
		req.Always, req.Suggest = "", "" // no rule allows a protected file
	}
	if err := precheck(); err != nil {
		return false, "", err
	}
	ans, err := a.opts.Approver(ctx, req)
	if err != nil {
		return false, fmt.Sprintf("Permission was not given: %v", err), nil
	}
	if !ans.Allow {
		if fb := strings.TrimSpace(ans.Feedback); fb != "" {
			return false, fmt.Sprintf("Permission denied: the user declined %s and said what to do instead:\n%s", describe(t.Name, s), fb), nil
		}
		return false, fmt.Sprintf("Permission denied: the user declined %s. Ask them how to proceed, or do something else.", describe(t.Name, s)), nil
	}
	if ans.Always && req.Always != "" {
		if err := a.allowAlways(req.Always, req.AlwaysSaved); err != nil {
			a.warn("don't ask again for %s: %v", req.Always, err)
		}
	}
	return true, "", nil
}

// endTurn runs when Run returns: it stores the working memory if it changed, and flushes and
// syncs the transcript with a context that outlives a cancelled turn.
func (a *Agent) endTurn(ctx context.Context) {
	a.sess.saveWork()
	a.sess.sync(ctx)
}
