package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Endpoint is the path of the streamable HTTP endpoint.
const Endpoint = "/mcp"

// ErrTokenRequired is returned by CheckListenAddr when an address other than loopback is
// given without a token: the memory would be open to anyone who can reach the port.
var ErrTokenRequired = errors.New("a token is required to listen on an address other than loopback (--token or STRATA_MCP_TOKEN)")

// HTTPOptions configure the HTTP handler.
type HTTPOptions struct {
	// Token, when set, must come in every request as "Authorization: Bearer <Token>".
	Token string
	// Tokens, when set, makes the server a team server (instead of Token): every request must
	// carry a token of the file, and its user reaches only the stores the token grants (see
	// LoadTokens). The server's project is then never taken from a client's roots.
	Tokens *Tokens
	// AllowedOrigins are origins ("https://app.example.com") accepted besides loopback ones.
	AllowedOrigins []string
	// SessionTimeout closes sessions that have made no request for this long (an open event
	// stream counts as a request); 0 means DefaultSessionTimeout.
	SessionTimeout time.Duration

	// Limits on what one client can hold (0 means the default named). A request's headers
	// must arrive within HeaderTimeout (5 s) and its body, at most MaxBodyBytes (16 MB),
	// within BodyTimeout (10 s) of its start: a slower client is answered 408 and its
	// connection closed. Each write of a response must be taken within WriteTimeout (30 s), so
	// an event stream lives as long as its client reads it. A keep-alive connection idle for
	// IdleTimeout (1 min) is closed.
	HeaderTimeout, BodyTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxBodyBytes                                          int64
	// MaxCalls (128) bounds the authenticated requests handled at once, event streams aside;
	// a request over it waits for a slot up to BodyTimeout, then is answered 503. Requests
	// refused before authentication never take a slot.
	MaxCalls int
	// MaxConns (2048) bounds the open connections. From three quarters of it on, responses
	// close their connection instead of keeping it alive, and connections that have sent
	// nothing for ReapAfter (1 s) are closed, oldest first; at MaxConns, so are those idle
	// between requests for 4 × ReapAfter, and a new connection waits to be accepted.
	MaxConns  int
	ReapAfter time.Duration
	// MaxStreams (MaxConns/2) bounds the event streams (GET) open at once, so that streams
	// cannot take every connection; one over it is answered 405, which tells a client the
	// server offers no stream (it goes on without change notifications).
	MaxStreams int
}

// DefaultSessionTimeout is how long an HTTP session may go without a request before it is
// closed and its memory reclaimed (HTTPOptions.SessionTimeout).
const DefaultSessionTimeout = 5 * time.Minute

// withDefaults fills the zero limits.
func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.SessionTimeout, DefaultSessionTimeout)
	def(&o.HeaderTimeout, 5*time.Second)
	def(&o.BodyTimeout, 10*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.IdleTimeout, time.Minute)
	def(&o.ReapAfter, time.Second)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 16 << 20
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = 128
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 2048
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = max(o.MaxConns/2, 1)
	}
	return o
}

// CheckListenAddr normalises addr for listening and checks it against the token rule. A bare
// port ("7777" or ":7777") means loopback (127.0.0.1); any other host that is not loopback
// (0.0.0.0, a LAN address, a name) needs a token.
func CheckListenAddr(addr, token string) (string, error) {
	if addr == "" {
		return "", errors.New("empty listen address")
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !isLoopbackHost(host) && token == "" {
		return "", fmt.Errorf("listen address %s: %w", addr, ErrTokenRequired)
	}
	return net.JoinHostPort(host, port), nil
}

// isLoopbackHost reports whether host (no port) is localhost or a loopback IP.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler returns the HTTP handler serving the streamable HTTP transport at Endpoint, with
// Bearer authentication when a token (or a tokens file) is set and the Origin check the MCP specification asks
// for: a request whose Origin header names a site other than a loopback one (or one listed in
// AllowedOrigins) is refused with 403, so a web page cannot drive a local server. Requests
// without an Origin (every non-browser client) pass.
//
// The request body is read whole (within BodyTimeout and MaxBodyBytes) before the request is
// handled, every write of the response has WriteTimeout to complete, and at most MaxCalls
// authenticated requests are handled at once.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: opts.SessionTimeout})
	h = limitCalls(h, opts, s.log)
	if opts.Tokens != nil {
		s.team.Store(true)
		h = teamAuth(opts.Tokens, h)
	}
	allowed := map[string]bool{}
	for _, o := range opts.AllowedOrigins {
		allowed[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	mux := http.NewServeMux()
	mux.Handle(Endpoint, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// Bounds the body read below, and the server's discarding of a body a refusal leaves
		// unread. (Errors: a writer without deadlines, as in tests, just has none.)
		_ = rc.SetReadDeadline(time.Now().Add(opts.BodyTimeout))
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, allowed) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		if opts.Token != "" && !bearerOK(r.Header.Get("Authorization"), opts.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="strata"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		if !readBody(w, r, opts.MaxBodyBytes) {
			return
		}
		// An event stream may stay open long after its request: no read deadline for it.
		_ = rc.SetReadDeadline(time.Time{})
		h.ServeHTTP(&timedWriter{ResponseWriter: w, rc: rc, timeout: opts.WriteTimeout}, r)
	}))
	return mux
}

// limitCalls lets at most opts.MaxCalls requests into h at once, event streams (GET) aside,
// which are bounded by opts.MaxStreams. A request waits for a slot at most opts.BodyTimeout,
// then is answered 503 with Retry-After; a stream over the bound is answered 405 at once.
func limitCalls(h http.Handler, opts HTTPOptions, log *slog.Logger) http.Handler {
	calls := make(chan struct{}, opts.MaxCalls)
	streams := make(chan struct{}, opts.MaxStreams)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			select {
			case streams <- struct{}{}:
				defer func() { <-streams }()
				h.ServeHTTP(w, r)
			default:
				log.Debug("mcpserver: event stream refused", "open", opts.MaxStreams)
				http.Error(w, fmt.Sprintf("Method Not Allowed: %d event streams are open, the most this server keeps", opts.MaxStreams), http.StatusMethodNotAllowed)
			}
			return
		}
		select {
		case calls <- struct{}{}:
		default:
			t := time.NewTimer(opts.BodyTimeout)
			defer t.Stop()
			select {
			case calls <- struct{}{}:
			case <-r.Context().Done():
				return
			case <-t.C:
				w.Header().Set("Retry-After", "1")
				http.Error(w, fmt.Sprintf("Service Unavailable: %d calls in progress; retry", opts.MaxCalls), http.StatusServiceUnavailable)
				return
			}
		}
		defer func() { <-calls }()
		h.ServeHTTP(w, r)
	})
}

// readBody replaces r.Body with its content read whole, at most max bytes, under the read
// deadline already set. A body too large is answered 413, one too slow 408 with the
// connection closed; readBody then reports false.
func readBody(w http.ResponseWriter, r *http.Request, max int64) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	r.Body.Close()
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: the limit is %d bytes", max), http.StatusRequestEntityTooLarge)
			return false
		}
		w.Header().Set("Connection", "close")
		http.Error(w, "Request Timeout: the body did not arrive in time", http.StatusRequestTimeout)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return true
}

// timedWriter gives each write and flush of a response its own deadline, so that a client
// that stops reading cannot hold the handler, while a stream it keeps reading lives on.
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (t *timedWriter) Write(p []byte) (int, error) {
	_ = t.rc.SetWriteDeadline(time.Now().Add(t.timeout))
	return t.ResponseWriter.Write(p)
}

// Flush implements http.Flusher (through the ResponseController, as the SDK flushes).
func (t *timedWriter) Flush() {
	_ = t.rc.SetWriteDeadline(time.Now().Add(t.timeout))
	_ = t.rc.Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

func originAllowed(origin string, allowed map[string]bool) bool {
	if allowed[strings.ToLower(strings.TrimSuffix(origin, "/"))] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func bearerOK(header, token string) bool {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), []byte(token)) == 1
}

// Serve serves the HTTP transport on ln until ctx is cancelled, then shuts down gracefully:
// calls in flight get up to 5 seconds, then remaining connections are closed. It returns nil
// after a requested stop and the listener's error otherwise. The limits of opts apply (see
// HTTPOptions): at most MaxConns connections are open at once, and idle ones are closed
// early when that bound is near.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	opts = opts.withDefaults()
	tl := trackConns(ln, opts.MaxConns, opts.ReapAfter)
	h := s.Handler(opts)
	hs := &http.Server{
		// Near the bound, connections are closed after their response rather than kept alive:
		// the client then knows not to send on them, as it cannot know of an idle one closed.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tl.crowded() {
				w.Header().Set("Connection", "close")
			}
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ConnState:         tl.setState,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(tl) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			// Streams still open after the grace period (a client keeping its GET stream) are
			// cut: stopping was asked for, so this is not a failure.
			s.log.Info("mcpserver: closing connections still open after 5 s", "err", err)
			hs.Close()
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// connTracker is a listener that keeps at most max connections open. From high (three
// quarters of max) on, each Accept first closes connections that wait (see reap); at max,
// Accept waits for a connection to close or to become old enough to close.
type connTracker struct {
	net.Listener
	max, high int
	reapAfter time.Duration

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
	freed chan struct{} // takes a token (without blocking) each time a connection goes

	done      chan struct{}
	closeOnce sync.Once
}

// trackedConn is a connection of a connTracker, with what it is doing (the http.Server's
// view) and since when. Its fields are guarded by the tracker's mu.
type trackedConn struct {
	net.Conn
	t     *connTracker
	state http.ConnState
	since time.Time
	once  sync.Once
}

func trackConns(ln net.Listener, max int, reapAfter time.Duration) *connTracker {
	high := max * 3 / 4
	if high < 1 {
		high = 1
	}
	return &connTracker{Listener: ln, max: max, high: high, reapAfter: reapAfter,
		conns: map[*trackedConn]struct{}{}, freed: make(chan struct{}, 1), done: make(chan struct{})}
}

func (t *connTracker) Accept() (net.Conn, error) {
	for {
		victim, n := t.reap()
		if victim != nil {
			victim.Close()
			continue
		}
		if n < t.max {
			break
		}
		timer := time.NewTimer(t.reapAfter / 4)
		select {
		case <-t.freed:
		case <-timer.C:
		case <-t.done:
			timer.Stop()
			return nil, net.ErrClosed
		}
		timer.Stop()
	}
	c, err := t.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t, state: http.StateNew, since: time.Now()}
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	return tc, nil
}

// reap returns the connection to close (nil when none need or may be), and the number of
// connections open. From the high mark on, that is the oldest of those silent since they were
// opened, once they have waited reapAfter; at max, failing those, the one idle longest between
// requests, once idle 4 × reapAfter. (An idle connection is the last resort: its client may be sending on
// it as it is closed, and such a request is lost. Responses near the mark close their
// connection instead; see Serve.)
func (t *connTracker) reap() (*trackedConn, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.conns)
	if n < t.high {
		return nil, n
	}
	var silent, idle *trackedConn
	now := time.Now()
	for c := range t.conns {
		switch waited := now.Sub(c.since); {
		case c.state == http.StateNew && waited >= t.reapAfter && (silent == nil || c.since.Before(silent.since)):
			silent = c
		case c.state == http.StateIdle && waited >= 4*t.reapAfter && (idle == nil || c.since.Before(idle.since)):
			idle = c
		}
	}
	victim := silent
	if victim == nil && n >= t.max {
		victim = idle
	}
	if victim != nil {
		delete(t.conns, victim)
	}
	return victim, n
}

// crowded reports whether the connections open have reached the high mark.
func (t *connTracker) crowded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns) >= t.high
}

// setState is the http.Server's ConnState hook.
func (t *connTracker) setState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateHijacked, http.StateClosed:
		t.forget(tc)
	default:
		t.mu.Lock()
		tc.state, tc.since = st, time.Now()
		t.mu.Unlock()
	}
}

// forget drops c from the open connections.
func (t *connTracker) forget(c *trackedConn) {
	t.mu.Lock()
	delete(t.conns, c)
	t.mu.Unlock()
	select {
	case t.freed <- struct{}{}:
	default:
	}
}

func (t *connTracker) Close() error {
	t.closeOnce.Do(func() { close(t.done) })
	return t.Listener.Close()
}

// Close closes the connection and gives its place back (once, however often it is called).
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.t.forget(c) })
	return err
}
