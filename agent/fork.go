package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/toolcall"
)

// A fork is a background conversation that continues from the main agent's messages: the
// session-notes writer and the memory extractor. It sends the main agent's system prompt and
// tool list unchanged and the main conversation as its first messages, with the same cache
// markers, so its first request shares the main agent's cached prefix byte for byte; only its
// own instruction (a user message) and its turns are new. Every tool call it makes goes
// through its handler, which decides what the fork may do; the fork never touches the main
// agent's history, read cache, todos or pending attachments.

// forkBase is what a fork starts from: the parts of the main agent's last request, taken at
// the end of a turn, plus the assistant reply that ended it.
type forkBase struct {
	system []llm.SystemBlock
	tools  []llm.Tool
	msgs   []conversation.Message
	// points are the cache markers of the main agent's last request (indexes into msgs).
	points []llm.CachePoint
	// entries is the number of history entries msgs was built from; lastUUID the uuid of
	// the last one (what a notes update covers).
	entries  int
	lastUUID string
	// gen is the compaction generation the messages belong to (see background.generation).
	gen int
}

// forkHandler runs one decoded tool call c of tool t in fe (the fork's own restricted env)
// or refuses it. denied reports a refusal by the fork's rules (not a failed call).
type forkHandler func(ctx context.Context, fe env, t *tool, c toolcall.Call) (out string, isErr, denied bool)

// forkSpec describes one fork run.
type forkSpec struct {
	kind     string // "extract" or "notes", for logs
	prompt   string // the fork's instruction, sent as a user message after the main conversation
	maxTurns int    // model requests at most
	handle   forkHandler
}

// forkResult is what a fork run did.
type forkResult struct {
	Turns     int
	ToolCalls int
	Denied    []string // one line per refused call: tool, input summary, why
	Text      string   // the fork's last text
	Usage     llm.Usage
}

// errForkTurns ends a fork that was still calling tools at its turn limit.
var errForkTurns = errors.New("turn limit reached")

// snapshotBase records what a fork would start from now; the caller holds runMu.
func (a *Agent) snapshotBase() {
	entries := a.history.Entries()
	b := &forkBase{system: a.system, tools: a.llmTools, msgs: messages(entries), entries: len(entries)}
	if len(entries) > 0 {
		b.lastUUID = entries[len(entries)-1].UUID
	}
	if a.bg != nil {
		a.bg.mu.Lock()
		b.gen = a.bg.generation
		a.bg.mu.Unlock()
	}
	a.mu.Lock()
	b.points = slices.Clone(a.lastPoints)
	a.base = b
	a.mu.Unlock()
}

// currentBase returns the latest snapshot (nil before the first finished turn).
func (a *Agent) currentBase() *forkBase {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.base
}

// runFork runs spec from base until the fork stops calling tools, its turn limit, an error
// or ctx's end.
func (a *Agent) runFork(ctx context.Context, base *forkBase, spec forkSpec) (forkResult, error) {
	var res forkResult
	msgs := slices.Clone(base.msgs)
	prompt := conversation.NewText(conversation.User, spec.prompt)
	if n := len(msgs); n > 0 && msgs[n-1].Role == conversation.User {
		last := msgs[n-1]
		last.Content = append(slices.Clone(last.Content), prompt.Content...)
		msgs[n-1] = last
	} else {
		msgs = append(msgs, prompt)
	}
	fe := a.forkEnv()
	for {
		if res.Turns == spec.maxTurns {
			return res, fmt.Errorf("agent: %s: %w (%d requests)", spec.kind, errForkTurns, spec.maxTurns)
		}
		res.Turns++
		req := &llm.Request{Model: a.opts.Model, System: base.system, Tools: base.tools, Messages: msgs, MaxTokens: a.opts.MaxTokens}
		req.CachePoints = append(slices.Clone(base.points), llm.CacheAfter(len(msgs)-1))
		resp, err := llm.Complete(ctx, a.provider, req)
		if resp != nil {
			res.Usage = res.Usage.Add(resp.Usage)
		}
		if err != nil {
			return res, fmt.Errorf("agent: %s: %w", spec.kind, err)
		}
		if len(resp.Message.Content) == 0 {
			return res, nil
		}
		msgs = append(msgs, resp.Message)
		res.Text = resp.Message.TextOf()
		calls := resp.ToolCalls()
		if len(calls) == 0 {
			if resp.StopReason == llm.StopPause {
				continue
			}
			return res, nil
		}
		results := conversation.Message{Role: conversation.User}
		for _, c := range calls {
			call := &ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}
			out, isErr, denied := "", true, false
			if ctx.Err() != nil {
				out = "Interrupted: the session is ending."
			} else if t := a.byName[call.Name]; t == nil {
				out = fmt.Sprintf("There is no tool called %q.", call.Name)
			} else if dc, err := decode(fe, t.name, call.Input); err != nil {
				out = err.Error()
			} else {
				out, isErr, denied = spec.handle(ctx, fe, t, dc)
			}
			res.ToolCalls++
			if denied {
				if !strings.HasPrefix(out, "Denied") && !strings.HasPrefix(out, "Permission denied") {
					out = "Denied: " + out
				}
				line := fmt.Sprintf("%s %s: %s", call.Name, inputSummary(call.Input), out)
				res.Denied = append(res.Denied, line)
				a.log.Warn("agent: "+spec.kind+": tool call denied", "tool", call.Name, "why", out)
			}
			results.Content = append(results.Content, conversation.Block{Type: conversation.ToolResult, ToolUseID: c.ID, IsError: isErr,
				Content: []conversation.Block{{Type: conversation.Text, Text: capOutput(out, MaxToolOutput)}}})
		}
		msgs = append(msgs, results)
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("agent: %s: %w", spec.kind, err)
		}
	}
}

// inputSummary is a short one-line rendering of a tool input for reports.
func inputSummary(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return "(input not a JSON object)"
	}
	for _, k := range []string{"file_path", "command", "path", "name", "pattern", "query"} {
		if v, ok := m[k].(string); ok {
			if len(v) > 120 {
				v = v[:120] + "…"
			}
			return fmt.Sprintf("%s=%q", k, strings.ToValidUTF8(v, "?"))
		}
	}
	return ""
}
