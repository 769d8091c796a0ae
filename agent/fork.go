package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
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
	// model is the session's model when the snapshot was taken (SetModel may change it).
	model string
	// usage is the kind the forks' model calls are counted as (UsageExtraction by default).
	usage UsageKind
	// a is the agent forks of this base run on (only fields that never change after New
	// are read, besides the session's deny patterns under a.mu).
	a *Agent
}

// Fork implements compact.Forker (and so extract's worker's forker): it runs a fork from b
// whose every call is decided by policy; its model calls count as b's usage kind.
func (b *forkBase) Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	return b.a.runFork(ctx, b, forkSpec{kind: "fork", usage: b.usage, prompt: instruction, maxTurns: maxTurns, handle: b.a.policyHandler(policy)})
}

// forkSnapshot is the workers' snapshot of a forkBase (see snapshotBase).
type forkSnapshot struct {
	compact.Snapshot
	base *forkBase
}

// As returns the snapshot for a worker whose forks' model calls count as kind k.
func (s forkSnapshot) As(k UsageKind) compact.Snapshot {
	b := *s.base
	b.usage = k
	out := s.Snapshot
	out.Forker = &b
	return out
}

// policyHandler turns a layer-4 policy into a fork's handler: a Run verdict runs the tool in
// the fork's env unless the session's deny patterns forbid it.
func (a *Agent) policyHandler(policy toolcall.Policy) forkHandler {
	return func(ctx context.Context, fe tool.Env, t *tool.Tool, c toolcall.Call) (string, bool, bool) {
		v := policy(ctx, c)
		if v.Run {
			return a.runForkCall(ctx, fe, t, c)
		}
		return v.Output, v.IsError, v.Denied
	}
}

// runForkCall runs a call of a fork unless the session's deny patterns forbid it: what the
// user denied the main agent, a fork may not do either.
func (a *Agent) runForkCall(ctx context.Context, fe tool.Env, t *tool.Tool, c toolcall.Call) (string, bool, bool) {
	s := permission.SubjectOf(c)
	a.mu.Lock()
	d, why := a.perms.Check(t.Name, t.Class, s)
	a.mu.Unlock()
	if d == permission.Deny {
		return fmt.Sprintf("Permission denied: %s is %s.", describe(t.Name, s), why), true, true
	}
	if t.Class == permission.ClassEdit {
		if why := a.perms.Protects(s); why != "" {
			return fmt.Sprintf("Permission denied: %s is refused to a background fork: %s.", describe(t.Name, s), why), true, true
		}
	}
	out, err := t.Run(ctx, fe, c)
	if err != nil {
		return err.Error(), true, false
	}
	return out, false, false
}

// forkHandler runs one decoded tool call c of tool t in fe (the fork's own restricted env)
// or refuses it. denied reports a refusal by the fork's rules (not a failed call).
type forkHandler func(ctx context.Context, fe tool.Env, t *tool.Tool, c toolcall.Call) (out string, isErr, denied bool)

// forkSpec describes one fork run.
type forkSpec struct {
	kind     string    // names the fork in logs and errors
	usage    UsageKind // what its model calls count as
	prompt   string    // the fork's instruction, sent as a user message after the main conversation
	maxTurns int       // model requests at most
	handle   forkHandler
}

// snapshotBase records what a fork would start from now and returns it as the workers'
// snapshot (As gives each worker its usage kind); the caller holds runMu.
func (a *Agent) snapshotBase() forkSnapshot {
	entries := a.history.Entries()
	b := &forkBase{system: a.system, tools: a.llmTools, msgs: messages(entries), entries: len(entries), usage: UsageExtraction, model: a.opts.Model, a: a}
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
	a.mu.Unlock()
	return forkSnapshot{compact.Snapshot{Forker: b, Messages: len(b.msgs), LastUUID: b.lastUUID, Generation: b.gen}, b}
}

// runFork runs spec from base until the fork stops calling tools, its turn limit, an error
// or ctx's end.
func (a *Agent) runFork(ctx context.Context, base *forkBase, spec forkSpec) (toolcall.ForkResult, error) {
	var res toolcall.ForkResult
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
			res.TurnLimit = true
			a.log.Debug("agent: "+spec.kind+": turn limit reached", "requests", spec.maxTurns)
			return res, nil
		}
		res.Turns++
		req := &llm.Request{Model: base.model, System: base.system, Tools: base.tools, Messages: msgs, MaxTokens: a.opts.MaxTokens}
		req.CachePoints = append(slices.Clone(base.points), llm.CacheAfter(len(msgs)-1))
		p := a.metered[spec.usage]
		if p == nil {
			p = a.metered[UsageExtraction]
		}
		resp, err := llm.Complete(ctx, p, req)
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
			} else if dc, err := tool.Decode(fe, t.Name, call.Input); err != nil {
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
				Content: []conversation.Block{{Type: conversation.Text, Text: tool.CapOutput(out, tool.MaxOutput)}}})
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
