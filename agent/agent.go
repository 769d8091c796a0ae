package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/usage"
	"github.com/strata-mem/strata/work"
	"github.com/strata-mem/strata/workspace"
)

// Options configure New.
type Options struct {
	// Provider answers the requests; required.
	Provider llm.Provider
	// Model and SmallModel name the models ("" leaves Model to the provider's configuration;
	// SmallModel "" means no model-based recall selection).
	Model, SmallModel string
	// MaxTokens caps each reply (0: the provider's default).
	MaxTokens int
	// ContextWindow is the model's context window in tokens (llm.Config.ContextWindow). When
	// set, the context is compacted automatically before a request that crosses compact's
	// threshold; 0 leaves compaction to Compact, which then assumes
	// llm.DefaultContextWindow(Model).
	ContextWindow int

	// Workspace is the project the session works in: its policy (permissions, background
	// work, retention), instructions, memory store, recall, logger and clock. When nil, New
	// opens one with Open and turns its settings Diagnostics into Warnings; when set, Open is
	// not used, and whoever opened it reports its Diagnostics.
	Workspace *workspace.Workspace
	// Open are the options New opens the workspace with when Workspace is nil.
	Open workspace.Options
	// Approver is asked about calls that need a yes; nil denies them (non-interactive use).
	Approver permission.Approver
	// Tools are offered after strata's own: the tools of MCP servers (tool.External), decided
	// as shell commands are (forks: under their policies).
	Tools []*tool.Tool
	// Servers, when set, is closed by Close: the MCP servers whose Tools the session offers.
	Servers io.Closer

	// MaxTurns caps the model requests of one Run (0: DefaultMaxTurns).
	MaxTurns int
	// BashTimeout is the default timeout of a shell command (0: BashDefaultTimeout).
	BashTimeout time.Duration

	// Resume continues the session with this id (or unique id prefix); Continue continues the
	// newest session of the working directory. SessionID names a new session (default: a new
	// UUID v7).
	Resume    string
	Continue  bool
	SessionID string
	// NoTranscript keeps the session in memory only (tests, benchmarks).
	NoTranscript bool
	// Version is recorded as the writer's version on every transcript entry (Claude Code
	// writes its own there): "strata" followed by it, e.g. "strata 0.4.0"; "" records
	// "strata".
	Version string

	// Selector overrides recall's selector (nil: a ModelSelector on SmallModel when it is set,
	// else the lexical order).
	Selector recall.Selector
	// NoBackground turns off the background work of the session (session notes, memory
	// extraction, auto-dream) whatever the settings say.
	NoBackground bool
	// DrainTimeout is how long Close waits for background work (0: DefaultDrainTimeout).
	DrainTimeout time.Duration

	// Sync, when set, syncs mounted memory stores in the background (memsync.Background):
	// started at the end of New, nudged after every turn, closed by Close once the memory
	// extractor has drained. Each failure it reports becomes one warning.
	Sync StoreSync
}

// DefaultMaxTurns caps one Run's model requests when Options.MaxTurns is 0.
const DefaultMaxTurns = 100

// ErrMaxTurns is returned by Run when the turn limit stopped the loop before the model did.
var ErrMaxTurns = errors.New("agent: turn limit reached")

// ErrResumeNotFound wraps transcript.ErrNoSession for Continue in a directory with no session.
var ErrResumeNotFound = errors.New("agent: no session to resume")

// Agent is one session: a conversation with a model, its tools and every memory layer. Run
// one turn at a time; Close when done.
type Agent struct {
	opts Options
	cwd  string
	log  *slog.Logger
	now  func() time.Time
	sess *session // the session's id, transcript and working memory

	meter *usage.Meter // every model call of the session, by kind

	perms  *permission.Set
	tools  tool.Box
	prompt *prompt.Context // what the model sees
	forks  *forker         // runs the background forks

	store *memdir.Store // nil with auto-memory off

	runMu sync.Mutex // one Run at a time

	mu        sync.Mutex // guards the fields below
	toolsUsed []string
	warnings  []string

	breaker compact.Breaker // stops auto-compaction after repeated failures
	warned  bool            // the user was told that compaction is near (reset by a compaction); runMu

	bg       *background       // the background work of the session (nil for a fork's view)
	archived []transcript.Move // transcripts the start-up retention moved
}

// New starts a session: it opens the workspace (unless Options give one), loads the
// instructions and the memory index, opens the memory store and the transcript, and, for
// Resume or Continue, restores the conversation, todos and read cache from the transcript.
func New(ctx context.Context, opts Options) (*Agent, error) {
	if opts.Provider == nil {
		return nil, errors.New("agent: no provider")
	}
	ws := opts.Workspace
	if ws != nil && !reflect.ValueOf(opts.Open).IsZero() {
		return nil, errors.New("agent: Options.Open with a Workspace, which was opened with its own options")
	}
	if ws == nil {
		var err error
		if ws, err = workspace.Open(ctx, opts.Open); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
	}
	a := &Agent{opts: opts, log: ws.Logger(), now: ws.Now}
	a.opts.Workspace = ws // a fork's view copies opts, and with them the workspace
	if opts.Workspace == nil {
		for _, e := range ws.Diagnostics() {
			a.warn("settings: %v", e)
		}
	}
	a.meter = usage.NewMeter(opts.Provider, opts.Model, opts.SmallModel)
	policy, err := ws.Policy()
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if policy.SandboxGap != "" {
		a.warn("sandbox: %s", policy.SandboxGap)
	}
	instr, err := ws.Instructions(ctx, workspace.SetOptions{})
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	a.cwd, a.perms = instr.Cwd(), policy.Permissions

	var recaller *recall.Recaller
	var recallS *recall.Session
	if ws.AutoMemory() {
		if a.store, err = ws.Store(); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		sel := opts.Selector
		if sel == nil && opts.SmallModel != "" {
			sel = &ModelSelector{Provider: a.meter.Provider(usage.Recall), Model: opts.SmallModel, Logger: a.log}
		}
		if recaller, err = ws.Recaller(workspace.RecallOptions{Selector: sel}); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		recallS = recall.NewSession()
	}
	a.tools = tool.NewBox(a.store != nil).With(opts.Tools...)
	a.prompt = prompt.New(prompt.Options{Instructions: instr, Tools: a.tools.LLM(), Recall: recallS, Recaller: recaller, Cwd: a.cwd,
		MemoryDir: a.MemoryDir(), Model: opts.Model, Now: a.now, Logger: a.log})
	for _, src := range instr.Sources() {
		a.prompt.RecordInjected(src.Path, src.Text)
	}
	a.forks = a.newForker()
	for _, d := range instr.Diagnostics() {
		if d.Severity == instructions.SeverityError {
			a.warn("instructions: %s", d)
		}
	}

	if err := a.openSession(ctx); err != nil {
		return nil, err
	}
	a.sess.work.Tasks.Interrupt("the strata process that ran it has ended")
	if !opts.NoTranscript && policy.RetentionDays > 0 {
		a.retention(ctx)
	}
	a.startBackground(policy)
	if a.opts.Sync != nil {
		a.opts.Sync.Start(func(line string) { a.warn("%s", line) })
	}
	return a, nil
}

// retention archives the transcripts of every project older than the cleanupPeriodDays
// setting (moved to the archive directory, never deleted); the session's own transcript, which
// its journal holds locked, stays. Problems become warnings.
func (a *Agent) retention(ctx context.Context) {
	moves, err := a.opts.Workspace.Retention(ctx, a.now())
	for _, m := range moves {
		switch {
		case m.Moved:
			a.archived = append(a.archived, m)
		case a.sess.journal != nil && m.From == a.sess.path():
		default:
			a.warn("cleanupPeriodDays: %s stays: %s", m.From, m.Err)
		}
	}
	if err != nil && len(moves) == 0 {
		a.warn("cleanupPeriodDays: %v", err)
	}
}

// Archived returns the transcripts that the start of this session archived because they were
// older than the cleanupPeriodDays setting (moved, with where to).
func (a *Agent) Archived() []transcript.Move { return append([]transcript.Move(nil), a.archived...) }

// SessionID returns the session's id (the transcript's file name without .jsonl).
func (a *Agent) SessionID() string { return a.sess.id }

// TranscriptPath returns the transcript file ("" with NoTranscript).
func (a *Agent) TranscriptPath() string { return a.sess.path() }

// Unsaved reports whether saving the session failed (the warning said so): its transcript
// cannot be relied on to resume it.
func (a *Agent) Unsaved() bool {
	a.sess.mu.Lock()
	defer a.sess.mu.Unlock()
	return a.sess.unsaved
}

// Cwd returns the working directory (symlinks resolved).
func (a *Agent) Cwd() string { return a.cwd }

// Model returns the model asked for ("" when the provider's configuration decides).
func (a *Agent) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts.Model
}

// Context returns the estimated size of each part of the next request.
func (a *Agent) Context() prompt.Size { return a.prompt.Size() }

// Tools returns the names of the tools offered, in order.
func (a *Agent) Tools() []string { return a.tools.Names() }

// Todos returns the session's current todo list.
func (a *Agent) Todos() []work.Todo { return a.sess.work.Todos.Get(a.sess.id) }

// Usage reports every model call the session made so far by kind (the conversation, recall
// selection, background extraction, session notes, compaction, auto-dream), with their cost
// where the model's price is known, and the total.
func (a *Agent) Usage() usage.Report { return a.meter.Report() }

// History returns the conversation chain so far, oldest first.
func (a *Agent) History() []conversation.Entry { return a.prompt.Entries() }

// Warnings returns problems that did not stop the session (a transcript write that failed, an
// instruction file with an error, a resume that skipped files), oldest first.
func (a *Agent) Warnings() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.warnings...)
}

func (a *Agent) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	a.log.Warn("agent: " + msg)
	a.mu.Lock()
	a.warnings = append(a.warnings, msg)
	a.mu.Unlock()
}

// Close drains the background work (a memory extraction in progress, and one queued, get
// Options.DrainTimeout to finish), stops recall, waits for every goroutine of the agent and
// closes the transcript.
func (a *Agent) Close(ctx context.Context) error {
	timeout := a.opts.DrainTimeout
	if timeout <= 0 {
		timeout = DefaultDrainTimeout
	}
	if err := a.drainBackground(timeout); err != nil {
		a.warn("memory extraction at exit: %v", err)
	}
	if a.opts.Sync != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		if err := a.opts.Sync.Close(sctx); err != nil {
			a.warn("memory sync at exit: %v", err)
		}
		cancel()
	}
	a.prompt.Close()
	if a.opts.Servers != nil {
		if err := a.opts.Servers.Close(); err != nil {
			a.log.Warn("agent: closing the MCP servers", "err", err)
		}
	}
	return a.sess.close(ctx)
}

// appendMessage adds m to the history, the token count and the transcript.
func (a *Agent) appendMessage(m conversation.Message, isMeta bool) conversation.Entry {
	return a.appendEntry(conversation.Entry{Message: m, IsMeta: isMeta})
}

// appendEntry adds e (uuid, parent and time filled in) to the history, the token count and the
// transcript; an assistant reply carries the provider's usage in e.Usage.
func (a *Agent) appendEntry(e conversation.Entry) conversation.Entry {
	e = a.prompt.Record(e)
	a.sess.message(e)
	return e
}

// AllowPattern adds an allow pattern for the rest of the session (an "always allow" answer
// to a permission prompt). Deny patterns still win.
func (a *Agent) AllowPattern(pattern string) error {
	r, err := permission.ParseRule(pattern)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.perms.Allow = append(a.perms.Allow, r)
	return nil
}

// allowAlways applies a "don't ask again" answer: rule is allowed for the rest of the session
// and, when saved, for later sessions (workspace.SaveAllowRule); the session's allowance holds
// even when saving fails.
func (a *Agent) allowAlways(rule string, saved bool) error {
	if err := a.AllowPattern(rule); err != nil || !saved {
		return err
	}
	return a.opts.Workspace.SaveAllowRule(rule)
}

// MemoryDir returns the auto-memory directory ("" when auto-memory is off).
func (a *Agent) MemoryDir() string {
	if a.store == nil {
		return ""
	}
	return a.store.Dir()
}

// Workspace returns the project the session works in (Options.Workspace, or the one New
// opened).
func (a *Agent) Workspace() *workspace.Workspace { return a.opts.Workspace }

// PermissionMode returns the session's permission mode.
func (a *Agent) PermissionMode() permission.Mode {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.perms.Mode
}

// SetPermissionMode switches the session's permission mode (chat's Shift-Tab); the calls
// decided from then on follow it, the running turn's included.
func (a *Agent) SetPermissionMode(m permission.Mode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.perms.Mode = m
}
