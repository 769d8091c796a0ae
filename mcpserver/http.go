package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
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
	// SessionTimeout closes sessions idle this long; 0 means 30 minutes.
	SessionTimeout time.Duration

	// Limits on what one client can hold (0 means the default named). A request's headers
	// must arrive within HeaderTimeout (10 s) and its body, at most MaxBodyBytes (16 MB),
	// within BodyTimeout (30 s) of its start: a slower client is answered 408 and its
	// connection closed. Each write of a response must be taken within WriteTimeout (30 s), so
	// an event stream lives as long as its client reads it. A keep-alive connection idle for
	// IdleTimeout (2 min) is closed, and at most MaxConns (128) connections are served at
	// once; more wait to be accepted.
	HeaderTimeout, BodyTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxBodyBytes                                          int64
	MaxConns                                              int
}

// withDefaults fills the zero limits.
func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.SessionTimeout, 30*time.Minute)
	def(&o.HeaderTimeout, 10*time.Second)
	def(&o.BodyTimeout, 30*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.IdleTimeout, 2*time.Minute)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 16 << 20
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 128
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
// handled, and every write of the response has WriteTimeout to complete.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: opts.SessionTimeout})
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
// HTTPOptions); at most MaxConns connections are accepted at once.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	opts = opts.withDefaults()
	hs := &http.Server{
		Handler:           s.Handler(opts),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
	}
	ln = limitListener(ln, opts.MaxConns)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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

// limitListener accepts at most n connections at once: Accept waits while n are open.
func limitListener(ln net.Listener, n int) net.Listener {
	return &capListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type capListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *capListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &capConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *capListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// capConn gives its slot back when it is closed (once, however often Close is called).
type capConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
