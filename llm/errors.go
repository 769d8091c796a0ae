package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sentinel errors. Every error a provider returns is an *Error that wraps one of these, so
// callers test the kind with errors.Is and print the *Error for the details.
var (
	// ErrNotConfigured is returned by FromEnv when no provider can be chosen or a required
	// setting is missing; its text says how to configure one.
	ErrNotConfigured = errors.New("no model configured")
	// ErrAuth: the server refused the credentials (HTTP 401 or 403).
	ErrAuth = errors.New("authentication failed")
	// ErrModelNotFound: the server does not know the model or the endpoint (HTTP 404).
	ErrModelNotFound = errors.New("model or endpoint not found")
	// ErrBadRequest: the server rejected the request as invalid (HTTP 400, 413, 422).
	ErrBadRequest = errors.New("request rejected")
	// ErrRateLimited: HTTP 429 on every attempt.
	ErrRateLimited = errors.New("rate limited")
	// ErrOverloaded: HTTP 529 (or an overloaded_error event) on every attempt.
	ErrOverloaded = errors.New("server overloaded")
	// ErrServer: an HTTP 5xx on every attempt.
	ErrServer = errors.New("server error")
	// ErrUnreachable: the connection was refused or the host could not be resolved.
	ErrUnreachable = errors.New("server unreachable")
	// ErrStalled: no byte arrived for the stall timeout while a reply was streaming.
	ErrStalled = errors.New("stream stalled")
	// ErrTruncated: the stream ended (or broke) before the reply was complete.
	ErrTruncated = errors.New("stream ended before the reply was complete")
	// ErrMalformed: the server sent something that does not decode (bad JSON, events out of
	// order, a tool input that is not JSON, structured output that is not a JSON object).
	ErrMalformed = errors.New("malformed reply")
)

// Error is a failed model call: which provider and URL, what the server said, and what to do.
type Error struct {
	Provider string        // "anthropic" or "openai"
	URL      string        // the base URL that was called
	Status   int           // HTTP status; 0 when no response arrived
	Type     string        // the server's error type, e.g. "overloaded_error", when it sent one
	Message  string        // the server's message, or the transport error's text
	Attempts int           // how many attempts were made
	After    time.Duration // the server's retry-after, when it sent one
	Hint     string        // what to do about it
	Kind     error         // one of the sentinel errors above
	Cause    error         // the underlying error, when there is one
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: %s (%s): %v", e.Provider, e.URL, e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.Type != "" {
			fmt.Fprintf(&b, " %s", e.Type)
		}
		b.WriteString(")")
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " [after %d attempts]", e.Attempts)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "; %s", e.Hint)
	}
	return b.String()
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	errs := []error{e.Kind}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// TooLarge reports whether err is the server refusing a request as larger than the model's
// context window: HTTP 413, or a rejected request whose error says the prompt is too long
// (Anthropic), the request too large, or the context length exceeded (OpenAI).
func TooLarge(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrBadRequest {
		return false
	}
	if e.Status == http.StatusRequestEntityTooLarge {
		return true
	}
	text := strings.ToLower(e.Type + " " + e.Message)
	for _, s := range []string{"prompt is too long", "request too large", "request_too_large", "context_length_exceeded", "maximum context length"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// Retryable reports whether another attempt may succeed: rate limits, overload, 5xx, 408,
// broken, stalled or malformed streams and dropped connections. Refused connections, bad
// credentials, unknown models and invalid requests are not retried.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrRateLimited, ErrOverloaded, ErrServer, ErrStalled, ErrTruncated, ErrMalformed:
		return true
	}
	return false
}

// Endpoint describes where a provider sends requests, so that its errors can say which
// server failed and which variables to check.
type Endpoint struct {
	Provider string // "anthropic" or "openai"
	URL      string // base URL
	KeyVar   string // the API key's environment variable, e.g. ANTHROPIC_API_KEY
	URLVar   string // the base URL's environment variable, e.g. ANTHROPIC_BASE_URL
	Model    string // the model asked for
}

// StatusError builds the error for an HTTP error status, or for an error event inside a
// stream. h may be nil. An error status decides the kind: a 401 is an authentication failure
// whatever type its body names. Only an error event, which arrives with the stream's 200,
// takes its status from the type; and an overloaded_error with a 5xx status counts as 529.
func (ep Endpoint) StatusError(status int, typ, msg string, h http.Header) *Error {
	switch {
	case status < 400 && typ == "overloaded_error", status >= 500 && typ == "overloaded_error":
		status = 529
	case status < 400 && typ == "rate_limit_error":
		status = http.StatusTooManyRequests
	case status < 400 && (typ == "api_error" || typ == "server_error"):
		status = http.StatusInternalServerError
	}
	e := &Error{Provider: ep.Provider, URL: ep.URL, Status: status, Type: typ, Message: msg, After: RetryAfter(h)}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = ErrAuth
		e.Hint = fmt.Sprintf("check %s (the key is wrong, expired or lacks access)", ep.KeyVar)
	case status == http.StatusNotFound:
		e.Kind = ErrModelNotFound
		e.Hint = fmt.Sprintf("check the model name %q (STRATA_MODEL or the model setting) and %s", ep.Model, ep.URLVar)
	case status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
		e.Hint = "wait and try again, or lower the request rate"
	case status == 529:
		e.Kind = ErrOverloaded
		e.Hint = "the provider is overloaded; try again shortly"
	case status == http.StatusRequestTimeout || status >= 500:
		e.Kind = ErrServer
		e.Hint = "a server-side failure; try again shortly"
	default:
		e.Kind = ErrBadRequest
		e.Hint = "the server rejected the request; this is likely a bug in strata or an unsupported option for this model"
	}
	return e
}

// ReplyError builds the error for an HTTP error reply, or an error event inside a stream, from
// its body: the {"error": {"type": …, "message": …}} object both APIs send (Anthropic's inside
// {"type": "error", …}), or {"error": "message"} as some compatible servers send it. A body in
// neither shape (an HTML page from a proxy, nothing) leaves type and message empty.
func (ep Endpoint) ReplyError(status int, body []byte, h http.Header) *Error {
	typ, msg := errorDetail(body)
	return ep.StatusError(status, typ, msg, h)
}

// errorDetail reads the type and message of an error body (see ReplyError); both are empty
// when the body is in neither shape.
func errorDetail(body []byte) (typ, msg string) {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", ""
	}
	var obj struct {
		Type    json.RawMessage `json:"type"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(v.Error, &obj) == nil {
		json.Unmarshal(obj.Type, &typ) // a field of another type is left empty
		json.Unmarshal(obj.Message, &msg)
		return typ, msg
	}
	json.Unmarshal(v.Error, &msg)
	return "", msg
}

// TransportError builds the error for a request that got no HTTP response.
func (ep Endpoint) TransportError(err error) *Error {
	e := &Error{Provider: ep.Provider, URL: ep.URL, Message: err.Error(), Cause: err}
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = ErrUnreachable
		e.Hint = fmt.Sprintf("connection refused: is the server running at %s? check %s", ep.URL, ep.URLVar)
	case errors.As(err, &dns):
		e.Kind = ErrUnreachable
		e.Hint = fmt.Sprintf("cannot resolve the host; check %s and your network", ep.URLVar)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed), strings.Contains(err.Error(), "connection reset"):
		e.Kind = ErrTruncated
		e.Hint = "the connection broke; try again"
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			e.Kind = ErrStalled
			e.Hint = "the server did not answer in time"
		} else {
			e.Kind = ErrUnreachable
			e.Hint = fmt.Sprintf("check %s and your network", ep.URLVar)
		}
	}
	return e
}

// Malformed builds the error for a reply that does not decode.
func (ep Endpoint) Malformed(err error) *Error {
	return &Error{Provider: ep.Provider, URL: ep.URL, Kind: ErrMalformed, Message: err.Error(), Cause: err,
		Hint: "the server sent data strata cannot decode; if this persists, the server is not compatible"}
}

// Truncated builds the error for a stream that ended before its final event.
func (ep Endpoint) Truncated() *Error {
	return &Error{Provider: ep.Provider, URL: ep.URL, Kind: ErrTruncated, Hint: "the connection broke; try again"}
}

// RetryAfter reads the server's requested delay from retry-after-ms or retry-after (seconds
// or an HTTP date). It returns 0 when neither is present or readable.
func RetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// RetryPolicy bounds retries. The zero value means the defaults.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts (default 5).
	MaxAttempts int
	// BaseDelay is the first backoff (default 1s); each retry doubles it, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps one backoff (default 30s).
	MaxDelay time.Duration
	// MaxRetryAfter is the longest server-requested delay that is honoured (default 60s);
	// a server asking for more gets no retry and its error is returned.
	MaxRetryAfter time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 60 * time.Second
	}
	return p
}

// delay returns the wait before attempt n+1 after attempt n (1-based) failed with err, and
// false when no retry should happen.
func (p RetryPolicy) delay(n int, err error) (time.Duration, bool) {
	var e *Error
	if !errors.As(err, &e) || !e.Retryable() || n >= p.MaxAttempts {
		return 0, false
	}
	if e.After > 0 {
		if e.After > p.MaxRetryAfter {
			return 0, false
		}
		return e.After, true
	}
	d := p.BaseDelay << (n - 1)
	if d > p.MaxDelay || d <= 0 {
		d = p.MaxDelay
	}
	// Jitter in [d/2, d] spreads clients that failed together.
	return d/2 + rand.N(d/2+1), true
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
