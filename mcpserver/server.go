package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
)

// DefaultPollInterval is how often the server looks for memory files changed on disk by
// someone else (an editor, another agent, `strata memory`).
const DefaultPollInterval = 2 * time.Second

// rootsTimeout bounds the wait for a client's answer to roots/list.
const rootsTimeout = 5 * time.Second

// Options configure a Server. Env is required; everything else has a default.
type Options struct {
	// Env gives STRATA_HOME, STRATA_MANAGED_DIR, HOME and other variables (STRATA_MEMORY_DIR).
	Env config.Env
	// ClaudeHome is Claude Code's configuration directory (~/.claude): session_search also
	// covers its transcripts of the project. Empty, or Env.Home, adds nothing.
	ClaudeHome string
	// Project is the project directory (the --project flag). When empty, the project is the
	// first file:// root the client reports, else WorkDir.
	Project string
	// WorkDir is the fallback project directory when Project is empty and the client reports
	// no usable root; empty means the process working directory.
	WorkDir string
	// MemoryDir overrides the memory directory (like `strata memory --memory-dir`).
	MemoryDir string
	// PollInterval is how often files changed on disk are looked for; 0 means
	// DefaultPollInterval, a negative value turns watching off.
	PollInterval time.Duration
	// Logger receives what the server does; nil discards it.
	Logger *slog.Logger
	// Version is reported to clients in the initialize handshake.
	Version string
	// Now is the clock for memory ages and written timestamps; nil means time.Now.
	Now func() time.Time
}

// Server is strata's memory served over MCP: the tools, the resources and the watcher that
// keeps them current. It serves one project; it is safe for any number of sessions at once.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server

	mu      sync.Mutex // guards proj and closed; held while a project is being resolved
	proj    *project
	closed  bool
	stop    context.CancelFunc
	stopCtx context.Context
	wg      sync.WaitGroup // the watcher and the recall recorder

	countMu sync.Mutex
	counted map[*mcp.ServerSession]map[string]bool // sessions counted as watched (recordRecall): the files each recalled

	// The recordings recordRecall queued, written by one goroutine at a time.
	recMu      sync.Mutex
	recIdle    sync.Cond // signalled when the queue has been written (L is &recMu)
	recQueue   []recallJob
	recRunning bool // a goroutine is writing the queue (counted in wg)
	recClosed  bool // Close was called: recordings are written by the call

	// team is set once a Handler with a tokens file serves s: every caller then reaches only
	// what its grant names (team.go), and the project is never taken from a client's roots.
	team atomic.Bool

	notices noticeLog // the SDK's log, failed notifications counted
}

// New builds a server. With Options.Project set, the project and its memory are opened now,
// so a wrong directory fails here rather than at the first call.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Version == "" {
		opts.Version = moduleVersion()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, notices: newNoticeLog(log.Handler())}
	s.recIdle.L = &s.recMu
	s.stopCtx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "strata", Title: "strata memory", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: serverInstructions,
			Logger:       slog.New(s.notices),
			// The SDK keeps track of who subscribed to what; these only advertise the capability.
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{ListChanged: true},
				Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			},
		})
	// guard runs first (outermost); withhold sees every result on its way out.
	s.mcp.AddReceivingMiddleware(s.guard, s.grants, s.withhold)
	s.addTools()
	s.addResourceTemplates()
	if opts.Project != "" {
		if _, err := s.open(ctx, opts.Project, "--project"); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

const serverInstructions = `strata is this project's long-term memory, shared with every agent that works on it.
Before you start a task, call memory_search with what the task is about; call memory_get to read a
memory in full. When you learn something worth keeping across sessions (a user preference, a
correction, a project fact that is not in the code or git history), save it with memory_save:
one memory per topic, with a one-line description saying when it matters. Forget memories that
turn out wrong with memory_forget. The instructions tool shows which CLAUDE.md/AGENTS.md/rules
apply to a file; session_search finds earlier conversations.`

// MCP returns the underlying SDK server, for callers that connect their own transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// shutdownGrace bounds how long Run and Close wait, once a stop is asked, for calls and the
// watcher to finish: a call stuck in a system call that no context reaches must not keep the
// process from ending on SIGTERM.
var shutdownGrace = 5 * time.Second

// Run serves one session over t until the client disconnects or ctx is cancelled. After ctx
// is cancelled it returns once the calls in flight are done or shutdownGrace (5 s) has passed,
// whichever comes first; a call still running then is abandoned (its goroutine ends with the
// process).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	done := make(chan error, 1)
	go func() { done <- s.mcp.Run(ctx, t) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		timer := time.NewTimer(shutdownGrace)
		defer timer.Stop()
		select {
		case err = <-done:
		case <-timer.C:
			s.log.Warn("mcpserver: calls still running after the stop was asked; not waiting for them", "grace", shutdownGrace)
			return ctx.Err()
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// Close stops the watcher and waits for it and for the recall statistics queued by searches
// (at most shutdownGrace: a watcher stuck in a system call is abandoned). Sessions still
// connected keep working, but files changed on disk are no longer announced.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.closeRecorder()
	s.stop()
	s.notices.n.flush()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownGrace):
		s.log.Warn("mcpserver: the watcher did not stop in time; not waiting for it", "grace", shutdownGrace)
	}
	return nil
}

// ProjectRoot returns the project root once it is known ("" before the first session asks).
func (s *Server) ProjectRoot() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proj == nil {
		return ""
	}
	return s.proj.root
}

// MemoryDir returns the memory directory once the project is known.
func (s *Server) MemoryDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proj == nil {
		return ""
	}
	return s.proj.store.Dir()
}

// guard is the receiving middleware: it turns a panic in any handler into an error for that
// call only, and makes sure the project is known before anything that needs it runs.
func (s *Server) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("mcpserver: panic", "method", method, "panic", r, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("strata: internal error while handling %s: %v", method, r)
			}
		}()
		switch method {
		case "tools/call", "resources/list", "resources/read", "resources/subscribe", "resources/templates/list":
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if _, err := s.project(ctx, ss); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// project returns the server's project, resolving it on first use: the --project directory,
// else the session's first file:// root, else the working directory. It waits for the
// project's index to be filled (see open).
func (s *Server) project(ctx context.Context, ss *mcp.ServerSession) (*project, error) {
	s.mu.Lock()
	p := s.proj
	s.mu.Unlock()
	if p != nil {
		return p, p.wait(ctx)
	}
	dir, why := s.opts.WorkDir, "working directory"

	if ss != nil && !s.team.Load() { // a team server's users do not choose its project
		if root := s.clientRoot(ctx, ss); root != "" {
			dir, why = root, "client root"
		}
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: no project: %w", err)
		}
		dir = wd
	}
	p, err := s.open(ctx, dir, why)
	if err != nil {
		return nil, err
	}
	return p, p.wait(ctx)
}

// clientRoot asks the client for its roots and returns the first that is a local directory.
// Clients on protocol 2026-07-28 or later cannot be asked in the middle of a request (roots
// are deprecated there); they get the working directory unless --project is given.
func (s *Server) clientRoot(ctx context.Context, ss *mcp.ServerSession) string {
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.log.Debug("mcpserver: roots/list failed; using the working directory", "err", err)

		return ""
	}
	for _, r := range res.Roots {

		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" {
			continue
		}
		p := filepath.FromSlash(u.Path)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	return ""
}

// open makes dir the server's project unless another call did first. The project's index is
// filled in the background (reading every memory takes minutes on a very large store), so
// that initialize and tools/list are answered at once; calls that need the project wait for
// it (project). The resources are listed and the watcher started once it is filled.
func (s *Server) open(ctx context.Context, dir, why string) (*project, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proj != nil {
		return s.proj, nil
	}
	if s.closed {
		return nil, errors.New("mcpserver: server closed")
	}
	p, err := openProject(ctx, s.opts, dir, s.log)
	if err != nil {
		return nil, err
	}
	s.log.Info("mcpserver: project", "root", p.root, "memory", p.store.Dir(), "from", why)
	s.proj = p
	s.wg.Go(func() {
		defer close(p.ready)
		start := time.Now()
		if p.fillErr = p.fill(s.stopCtx); p.fillErr != nil {
			s.log.Error("mcpserver: reading the memory", "err", p.fillErr)
			return
		}
		s.log.Info("mcpserver: memory indexed", "memories", p.ranker.Len(), "took", time.Since(start).Round(time.Millisecond))
		s.registerResources(p)
		if s.opts.PollInterval > 0 {
			s.wg.Go(func() { s.watch(s.stopCtx, p) })
		}
	})
	return p, nil
}

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// noticeWindow is how long failed notifications are counted before noticeLog reports them.
const noticeWindow = time.Second

// noticeLog passes the SDK's log on, except the lines saying a notification could not be sent
// to one session ("calling notifications/…: …"): the SDK writes one per session, so a change
// after thousands of abandoned sessions wrote thousands of lines. They are counted instead, and
// one Info line per notification method says, a noticeWindow after the first, to how many
// sessions it was not delivered and why the first was not.
type noticeLog struct {
	slog.Handler
	n *noticeCounts
}

// noticeCounts is what noticeLog's handlers (WithAttrs makes more) share.
type noticeCounts struct {
	out slog.Handler // where the summaries go

	mu      sync.Mutex
	failed  map[string]int    // notification method → sessions not reached since the last line
	first   map[string]string // notification method → the first reason
	pending *time.Timer
}

func newNoticeLog(h slog.Handler) noticeLog {
	return noticeLog{Handler: h, n: &noticeCounts{out: h, failed: map[string]int{}, first: map[string]string{}}}
}

func (h noticeLog) Handle(ctx context.Context, r slog.Record) error {
	rest, ok := strings.CutPrefix(r.Message, "calling notifications/")
	if !ok || r.Level < slog.LevelWarn {
		return h.Handler.Handle(ctx, r)
	}
	method, why, _ := strings.Cut(rest, ": ")
	h.n.add("notifications/"+method, why)
	return nil
}

func (h noticeLog) WithAttrs(as []slog.Attr) slog.Handler {
	return noticeLog{h.Handler.WithAttrs(as), h.n}
}

func (h noticeLog) WithGroup(name string) slog.Handler {
	return noticeLog{h.Handler.WithGroup(name), h.n}
}

func (n *noticeCounts) add(method, why string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.failed[method] == 0 {
		n.first[method] = why
	}
	n.failed[method]++
	if n.pending == nil {
		n.pending = time.AfterFunc(noticeWindow, n.flush)
	}
}

// flush writes one line per notification method counted since the last flush.
func (n *noticeCounts) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending != nil {
		n.pending.Stop()
		n.pending = nil
	}
	methods := make([]string, 0, len(n.failed))
	for m := range n.failed {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "mcpserver: notification not delivered", 0)
		r.AddAttrs(slog.String("method", m), slog.Int("sessions", n.failed[m]), slog.String("first", n.first[m]))
		if n.out.Enabled(context.Background(), slog.LevelInfo) {
			_ = n.out.Handle(context.Background(), r)
		}
	}
	clear(n.failed)
	clear(n.first)
}
