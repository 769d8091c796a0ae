package agent

import (
	"context"
	"errors"
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
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
	"github.com/strata-mem/strata/usage"
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
	// usage is the kind the forks' model calls are counted as (usage.Extraction by default).
	usage usage.Kind
	// f runs the forks of this base.
	f *forker
}

// forker is what a fork uses of the session, fixed when the session starts: no *Agent, so a
// fork cannot reach the main conversation's history, read cache, todos or attachments.
type forker struct {
	meter     *usage.Meter
	maxTokens int
	tools     tool.Box
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
	var rc *recall.Recaller // the project's store only: a fork's memory writes go there
	if a.store != nil {
		rk, _ := a.opts.Workspace.Ranker() // fails only as the store did, which New checked
		rc = recall.NewRecaller([]recall.Mount{{Dir: a.MemoryDir(), Ranker: rk}}, recall.Options{Now: a.now, Logger: a.log})
	}
	cwd, home, log, now, timeout, perms, mem := a.cwd, a.opts.Workspace.Env().UserHome, a.log, a.now, a.opts.BashTimeout, a.perms, a.MemoryDir()
	return &forker{meter: a.meter, maxTokens: a.opts.MaxTokens, tools: a.tools, perms: a.perms, mu: &a.mu, log: a.log,
		transcripts: a.opts.Workspace.TranscriptDir(),
		newEnv:      func() tool.Env { return tool.NewForkEnv(cwd, home, log, now, timeout, rc, perms, mem) }}
}

// Fork implements compact.Forker (and so extract's worker's forker): it runs a fork from b
// whose every call is decided by policy; its model calls count as b's usage kind.
func (b *forkBase) Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	return b.f.run(ctx, b, instruction, maxTurns, policy)
}

// forkSnapshot is the workers' snapshot of a forkBase (see snapshotBase).
type forkSnapshot struct {
	compact.Snapshot
	base *forkBase
}

// As returns the snapshot for a worker whose forks' model calls count as kind k.
func (s forkSnapshot) As(k usage.Kind) compact.Snapshot {
	b := *s.base
	b.usage = k
	out := s.Snapshot
	out.Forker = &b
	return out
}

// forkRun is a fork's handler: requests from its own messages, every call decided by its
// policy and, when the policy runs it, by the session's deny patterns and ForkRefuses.
type forkRun struct {
	f      *forker
	base   *forkBase
	msgs   []conversation.Message
	policy toolcall.Policy
	denied []string // one line per refused call: tool, input, why
}

func (r *forkRun) request(context.Context, int) (*llm.Request, error) {
	req := &llm.Request{Model: r.base.Model, System: r.base.System, Tools: r.base.Tools, Messages: r.msgs, MaxTokens: r.f.maxTokens}
	req.CachePoints = append(slices.Clone(r.base.Points), llm.CacheAfter(len(r.msgs)-1))
	return req, nil
}

func (r *forkRun) record(_ context.Context, m conversation.Message, _ *conversation.Usage) {
	r.msgs = append(r.msgs, m)
}

func (r *forkRun) failed(_ context.Context, _ *llm.Response, _ map[string]bool, err error, _ int) (bool, error) {
	return false, fmt.Errorf("agent: fork: %w", err)
}

// decide runs a call the policy lets run unless the session's deny patterns forbid it (what
// the user denied the main agent, a fork may not do either) or it would need a yes no one
// can give (permission.Set.ForkRefuses).
func (r *forkRun) decide(ctx context.Context, t *tool.Tool, call *ToolCall, c toolcall.Call, _ int) (bool, string, bool) {
	v := toolcall.Verdict{Run: true}
	if r.policy != nil {
		v = r.policy(ctx, c)
	}
	if v.Run {
		s := permission.SubjectOf(c)
		r.f.mu.Lock()
		d, why := r.f.perms.Check(t.Name, t.Class, s)
		r.f.mu.Unlock()
		if d == permission.Deny {
			v = toolcall.Deny(fmt.Sprintf("Permission denied: %s is %s.", describe(t.Name, s), why))
		} else if why := r.f.perms.ForkRefuses(t.Class, s, r.f.transcripts); why != "" {
			v = toolcall.Deny(fmt.Sprintf("Permission denied: %s is refused to a background fork: %s.", describe(t.Name, s), why))
		}
	}
	if v.Run {
		return true, "", false
	}
	out := v.Output
	if v.Denied {
		if !strings.HasPrefix(out, "Denied") && !strings.HasPrefix(out, "Permission denied") {
			out = "Denied: " + out
		}
		r.denied = append(r.denied, fmt.Sprintf("%s %s: %s", call.Name, toolcall.Summary(call.Input), out))
		r.f.log.Warn("agent: fork: tool call denied", "tool", call.Name, "why", out)
	}
	return false, out, v.IsError
}

func (r *forkRun) ran(*tool.Tool, toolcall.Call, bool) {}

// snapshotBase records what a fork would start from now and returns it as the workers'
// snapshot (As gives each worker its usage kind); the caller holds runMu.
func (a *Agent) snapshotBase() forkSnapshot {
	b := &forkBase{Snapshot: a.prompt.Snapshot(), usage: usage.Extraction, f: a.forks}
	if a.bg != nil {
		a.bg.mu.Lock()
		b.gen = a.bg.generation
		a.bg.mu.Unlock()
	}
	return forkSnapshot{compact.Snapshot{Forker: b, Messages: len(b.Messages), LastUUID: b.LastUUID, Generation: b.gen, Sources: func() (string, string) { return conversation.Sources(b.Messages) }}, b}
}

// run runs a fork from base with instruction as its last user message, at most maxTurns
// requests, until it stops calling tools, an error or ctx's end.
func (f *forker) run(ctx context.Context, base *forkBase, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	msgs := slices.Clone(base.Messages)
	prompt := conversation.NewText(conversation.User, instruction)
	if n := len(msgs); n > 0 && msgs[n-1].Role == conversation.User {
		last := msgs[n-1]
		last.Content = append(slices.Clone(last.Content), prompt.Content...)
		msgs[n-1] = last
	} else {
		msgs = append(msgs, prompt)
	}
	r := &forkRun{f: f, base: base, msgs: msgs, policy: policy}
	res, err := f.loop(r, maxTurns).run(ctx)
	out := toolcall.ForkResult{Turns: res.Turns, ToolCalls: res.ToolCalls, Denied: r.denied, Text: res.Text}
	if errors.Is(err, ErrMaxTurns) {
		out.TurnLimit, err = true, nil
		f.log.Debug("agent: fork: turn limit reached", "requests", maxTurns)
	}
	return out, err
}

// loop returns the walk of fork run r, in a new env of its own.
func (f *forker) loop(r *forkRun, maxTurns int) *loop {
	k := r.base.usage
	if k == "" {
		k = usage.Extraction
	}
	return &loop{provider: f.meter.Provider(k), whole: true, tools: f.tools, env: f.newEnv(), maxTurns: maxTurns, sink: func(Event) {}, h: r}
}
