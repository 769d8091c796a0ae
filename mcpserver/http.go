package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	// AllowedOrigins are origins ("https://app.example.com") accepted besides loopback ones.
	AllowedOrigins []string
	// SessionTimeout closes sessions idle this long; 0 means 30 minutes.
	SessionTimeout time.Duration
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
// Bearer authentication when a token is set and the Origin check the MCP specification asks
// for: a request whose Origin header names a site other than a loopback one (or one listed in
// AllowedOrigins) is refused with 403, so a web page cannot drive a local server. Requests
// without an Origin (every non-browser client) pass.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: opts.SessionTimeout})
	allowed := map[string]bool{}
	for _, o := range opts.AllowedOrigins {
		allowed[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	mux := http.NewServeMux()
	mux.Handle(Endpoint, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, allowed) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		if opts.Token != "" && !bearerOK(r.Header.Get("Authorization"), opts.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="strata"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

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
// after a requested stop and the listener's error otherwise.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	hs := &http.Server{Handler: s.Handler(opts), ReadHeaderTimeout: 10 * time.Second}
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
