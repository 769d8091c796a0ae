package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/prompt"
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
	// Snapshot is what the main conversation's last request showed: its prefix, messages
	// and cache points, the entries they were built from and the model.
	prompt.Snapshot
	// gen is the compaction generation the messages belong to (see background.generation).
	gen int
	// usage is the kind the forks' model calls are counted as (UsageExtraction by default).
	usage UsageKind
	// f runs the forks of this base.
	f *forker
}

// forker is what a fork uses of the session, fixed when the session starts: no *Agent, so a
// fork cannot reach the main conversation's history, read cache, todos or attachments.
type forker struct {
	providers map[UsageKind]llm.Provider // metered per kind
	maxTokens int
	tools     map[string]*tool.Tool
	perms     *permission.Set // the session's rules; read under mu (AllowPattern appends)
	mu        *sync.Mutex
	log       *slog.Logger
	// transcripts is the session's transcript dir, which a fork may read (ForkRefuses).
	transcripts string
	// newEnv returns a fork's own tool.Env (tool.NewForkEnv over fixed values).
	newEnv func() tool.Env
}

// newForker returns the forker of a, once its permissions, tools and providers are set.
func (a *Agent) newForker() *forker {
	cwd, home, log, now, timeout, rk, perms, mem := a.cwd, a.opts.Env.UserHome, a.log, a.now, a.opts.BashTimeout, a.ranker, a.perms, a.memoryDir()
	return &forker{providers: a.metered, maxTokens: a.opts.MaxTokens, tools: a.byName, perms: a.perms, mu: &a.mu, log: a.log,
		transcripts: a.opts.Workspace.TranscriptDir(),
		newEnv:      func() tool.Env { return tool.NewForkEnv(cwd, home, log, now, timeout, rk, perms, mem) }}
}

// Fork implements compact.Forker (and so extract's worker's forker): it runs a fork from b
// whose every call is decided by policy; its model calls count as b's usage kind.
func (b *forkBase) Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	return b.f.run(ctx, b, forkSpec{kind: "fork", usage: b.usage, prompt: instruction, maxTurns: maxTurns, handle: b.f.policyHandler(policy)})
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
func (f *forker) policyHandler(policy toolcall.Policy) forkHandler {
	return func(ctx context.Context, fe tool.Env, t *tool.Tool, c toolcall.Call) (string, bool, bool) {
		v := policy(ctx, c)
		if v.Run {
			return f.runCall(ctx, fe, t, c)
		}
		return v.Output, v.IsError, v.Denied
	}
}

// runCall runs a call of a fork unless the session's deny patterns forbid it (what the
// user denied the main agent, a fork may not do either) or it would need a yes no one can
// give (permission.Set.ForkRefuses).
func (f *forker) runCall(ctx context.Context, fe tool.Env, t *tool.Tool, c toolcall.Call) (string, bool, bool) {
	s := permission.SubjectOf(c)
	f.mu.Lock()
	d, why := f.perms.Check(t.Name, t.Class, s)
	f.mu.Unlock()
	if d == permission.Deny {
		return fmt.Sprintf("Permission denied: %s is %s.", describe(t.Name, s), why), true, true
	}
	if why := f.perms.ForkRefuses(t.Class, s, f.transcripts); why != "" {
		return fmt.Sprintf("Permission denied: %s is refused to a background fork: %s.", describe(t.Name, s), why), true, true
	}
	out, err := t.Run(permission.WithChecked(ctx, s), fe, c)
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
	b := &forkBase{Snapshot: a.prompt.Snapshot(), usage: UsageExtraction, f: a.forks}
	if a.bg != nil {
		a.bg.mu.Lock()
		b.gen = a.bg.generation
		a.bg.mu.Unlock()
	}
	return forkSnapshot{compact.Snapshot{Forker: b, Messages: len(b.Messages), LastUUID: b.LastUUID, Generation: b.gen, Sources: b.sources}, b}
}

// sources are the texts of the conversation the fork starts from: what the user typed (text
// blocks of user messages) and what tools returned (tool results).
func (b *forkBase) sources() (user, tools string) {
	var u, t strings.Builder
	for _, m := range b.Messages {
		if m.Role != conversation.User {
			continue
		}
		for _, bl := range m.Content {
			switch bl.Type {
			case conversation.Text:
				u.WriteString(bl.Text)
				u.WriteByte('\n')
			case conversation.ToolResult:
				for _, c := range bl.Content {
					t.WriteString(c.Text)
					t.WriteByte('\n')
				}
			}
		}
	}
	return u.String(), t.String()
}

// run runs spec from base until the fork stops calling tools, its turn limit, an error
// or ctx's end.
func (f *forker) run(ctx context.Context, base *forkBase, spec forkSpec) (toolcall.ForkResult, error) {
	var res toolcall.ForkResult
	msgs := slices.Clone(base.Messages)
	prompt := conversation.NewText(conversation.User, spec.prompt)
	if n := len(msgs); n > 0 && msgs[n-1].Role == conversation.User {
		last := msgs[n-1]
		last.Content = append(slices.Clone(last.Content), prompt.Content...)
		msgs[n-1] = last
	} else {
		msgs = append(msgs, prompt)
	}
	fe := f.newEnv()
	for {
		if res.Turns == spec.maxTurns {
			res.TurnLimit = true
			f.log.Debug("agent: "+spec.kind+": turn limit reached", "requests", spec.maxTurns)
			return res, nil
		}
		res.Turns++
		req := &llm.Request{Model: base.Model, System: base.System, Tools: base.Tools, Messages: msgs, MaxTokens: f.maxTokens}
		req.CachePoints = append(slices.Clone(base.Points), llm.CacheAfter(len(msgs)-1))
		p := f.providers[spec.usage]
		if p == nil {
			p = f.providers[UsageExtraction]
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
			} else if t := f.tools[call.Name]; t == nil {
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
				f.log.Warn("agent: "+spec.kind+": tool call denied", "tool", call.Name, "why", out)
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
