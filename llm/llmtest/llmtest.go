package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// Format is a wire format.
type Format string

// Wire formats.
const (
	Anthropic Format = "anthropic"
	OpenAI    Format = "openai"
)

// Key is the API key the fake servers accept unless Server.Key is changed.
const Key = "test-key"

// Server is a fake model server.
type Server struct {
	// URL is the base URL to configure: the server root for Anthropic, root + "/v1" for OpenAI.
	URL    string
	Format Format
	// Key is the accepted API key; "" accepts any key or none (a local server).
	Key string

	errorf func(format string, args ...any)
	// MaxPromptBytes, when positive, refuses a call whose body is longer, as the real APIs
	// refuse a prompt past the model's context window (HTTP 400: Anthropic's "prompt is too
	// long", OpenAI's context_length_exceeded). Such calls take no scripted reply.
	MaxPromptBytes int
	// Fallback, when set, answers calls that find no scripted reply instead of failing them
	// (useful for a long-running fake outside tests, e.g. an echo).
	Fallback func(Request) Reply
	srv      *httptest.Server
	stop     chan struct{}

	mu       sync.Mutex
	replies  []Reply
	requests []Request
	refused  []Refusal
	calls    int
}

// Request is one recorded call.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// JSON is the decoded body.
	JSON map[string]any
}

// At walks the decoded body by object keys (string) and array indexes (int) and returns what
// it finds, or nil: r.At("messages", 0, "content", 1, "cache_control", "type").
func (r Request) At(path ...any) any { return At(r.JSON, path...) }

// At walks decoded JSON by object keys and array indexes; nil when a step is missing.
func At(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		default:
			return nil
		}
	}
	return v
}

// NewAnthropic starts a fake Anthropic server for the test.
func NewAnthropic(t testing.TB) *Server { return start(t, Anthropic) }

// NewOpenAI starts a fake OpenAI-compatible server for the test.
func NewOpenAI(t testing.TB) *Server { return start(t, OpenAI) }

func start(t testing.TB, f Format) *Server {
	t.Helper()
	s := NewHandler(f, t.Errorf)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	if f == OpenAI {
		s.URL += "/v1"
	}
	t.Cleanup(func() {
		close(s.stop)
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if n := len(s.replies); n > 0 {
			why := ""
			if len(s.refused) > 0 {
				why = fmt.Sprintf("; %d refused with 400 as the real API would, first: %s", len(s.refused), s.refused[0])
			}
			t.Errorf("llmtest: %d scripted %s replies were never requested (%d calls arrived%s)", n, s.Format, s.calls, why)
		}
	})
	return s
}

// NewHandler returns a fake server that is not started, for use outside tests: serve it with
// net/http (it is an http.Handler) and set URL to where it listens (plus "/v1" for OpenAI).
// Failures a test would see are reported through errorf.
func NewHandler(f Format, errorf func(format string, args ...any)) *Server {
	return &Server{Format: f, Key: Key, errorf: errorf, stop: make(chan struct{})}
}

// ServeHTTP answers one call: the next scripted reply, or Fallback, in the server's format.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r) }

// Config returns a configuration for this server: model "test-model", fast retries (at most 4
// attempts, millisecond backoff) and a 10 s stall timeout.
func (s *Server) Config() llm.Config {
	c := llm.Config{Provider: string(s.Format), APIKey: s.Key, BaseURL: s.URL, Local: true,
		Model: "test-model", SmallModel: "test-small-model", ContextWindow: 200_000, ContextWindowSource: "llmtest",
		MaxOutputTokens: 1024, StallTimeout: 10 * time.Second,
		Retry: llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: time.Second}}
	if c.APIKey == "" {
		c.APIKey = Key
	}
	return c
}

// Script appends replies; each call consumes the next one.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns every call received so far, in order (including refused ones).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns how many scripted replies are still unused.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

// Reply is one scripted answer.
type Reply struct {
	// Blocks are the reply's content: text, thinking (with Signature) and tool_use blocks.
	Blocks []conversation.Block `json:"blocks,omitempty"`
	// StopReason defaults to tool_use when a tool_use block is present, else end_turn.
	StopReason llm.StopReason `json:"stop_reason,omitempty"`
	Usage      llm.Usage      `json:"usage,omitzero"`
	// Fault, when set, replaces or interrupts the reply.
	Fault Fault `json:"fault,omitzero"`
	// Pace is the pause before each streamed event after the first, as a slow model streams.
	Pace time.Duration `json:"pace,omitempty"`
}

// FaultKind names an injected failure.
type FaultKind int

// Faults.
const (
	NoFault FaultKind = iota
	// FaultStatus answers with an HTTP error status and the format's error body.
	FaultStatus
	// FaultStall sends After events, then nothing until the client gives up.
	FaultStall
	// FaultTruncate sends After events, then breaks the connection.
	FaultTruncate
	// FaultMalformed sends After events, then one whose data is not JSON (or, for a JSON
	// reply, a body that is not JSON).
	FaultMalformed
	// FaultErrorEvent sends After events, then an error event (Anthropic: "event: error" with
	// overloaded_error; OpenAI: a data line with an error object).
	FaultErrorEvent
)

// Fault is an injected failure.
type Fault struct {
	Kind FaultKind `json:"kind,omitempty"`
	// Status, Type and Message make the error of FaultStatus.
	Status  int    `json:"status,omitempty"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message,omitempty"`
	// RetryAfter and RetryAfterMs are sent as retry-after and retry-after-ms when non-empty.
	RetryAfter   string `json:"retry_after,omitempty"`
	RetryAfterMs string `json:"retry_after_ms,omitempty"`
	// After is how many SSE events go out before a stream fault.
	After int `json:"after,omitempty"`
}

// Text is a reply with one text block.
func Text(text string) Reply {
	return Reply{Blocks: []conversation.Block{{Type: conversation.Text, Text: text}}}
}

// Blocks is a reply with the given blocks.
func Blocks(bs ...conversation.Block) Reply { return Reply{Blocks: bs} }

// TextBlock, ThinkingBlock and ToolUse build reply blocks.
func TextBlock(text string) conversation.Block {
	return conversation.Block{Type: conversation.Text, Text: text}
}

// ThinkingBlock is a thinking block with its signature.
func ThinkingBlock(thinking, signature string) conversation.Block {
	return conversation.Block{Type: conversation.Thinking, Thinking: thinking, Signature: signature}
}

// RedactedThinkingBlock is an encrypted thinking block (Anthropic only).
func RedactedThinkingBlock(data string) conversation.Block {
	return conversation.Block{Type: conversation.RedactedThinking, Data: data}
}

// ToolUse is a tool call; input is its JSON.
func ToolUse(id, name, input string) conversation.Block {
	return conversation.Block{Type: conversation.ToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

// StatusError answers with an HTTP error.
func StatusError(status int, typ, message string) Reply {
	return Reply{Fault: Fault{Kind: FaultStatus, Status: status, Type: typ, Message: message}}
}

// RateLimited answers 429 with retry-after-ms (and retry-after rounded up to seconds).
func RateLimited(retryAfter time.Duration) Reply {
	r := StatusError(http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
	r.Fault.RetryAfterMs = strconv.FormatInt(retryAfter.Milliseconds(), 10)
	r.Fault.RetryAfter = strconv.FormatInt(int64((retryAfter+time.Second-1)/time.Second), 10)
	return r
}

// ServerError answers 500.
func ServerError() Reply {
	return StatusError(http.StatusInternalServerError, "api_error", "Internal server error")
}

// Overloaded answers 529 overloaded_error.
func Overloaded() Reply { return StatusError(529, "overloaded_error", "Overloaded") }

// WithUsage sets the reply's usage.
func (r Reply) WithUsage(u llm.Usage) Reply { r.Usage = u; return r }

// WithPace makes the stream pause d before each event after the first.
func (r Reply) WithPace(d time.Duration) Reply { r.Pace = d; return r }

// StallAfter makes the stream go silent after n events.
func (r Reply) StallAfter(n int) Reply { r.Fault = Fault{Kind: FaultStall, After: n}; return r }

// TruncateAfter breaks the connection after n events.
func (r Reply) TruncateAfter(n int) Reply { r.Fault = Fault{Kind: FaultTruncate, After: n}; return r }

// MalformedAfter sends a non-JSON event after n events.
func (r Reply) MalformedAfter(n int) Reply { r.Fault = Fault{Kind: FaultMalformed, After: n}; return r }

// ErrorEventAfter sends an error event after n events.
func (r Reply) ErrorEventAfter(n int) Reply {
	r.Fault = Fault{Kind: FaultErrorEvent, After: n}
	return r
}

func (r Reply) stopReason() llm.StopReason {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Blocks {
		if b.Type == conversation.ToolUse {
			return llm.StopToolUse
		}
	}
	return llm.StopEndTurn
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.errorf("llmtest: reading request body: %v", err)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &rec.JSON); err != nil {
		s.errorf("llmtest: request body is not a JSON object: %v", err)
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.calls++
	call := s.calls
	s.mu.Unlock()

	wantPath := "/v1/messages"
	if s.Format == OpenAI {
		wantPath = "/v1/chat/completions"
	}
	if r.Method != http.MethodPost || r.URL.Path != wantPath {
		s.errorf("llmtest: unexpected %s %s (want POST %s)", r.Method, r.URL.Path, wantPath)
		s.writeError(w, Fault{Status: http.StatusNotFound, Type: "not_found_error", Message: "no such endpoint"})
		return
	}
	if s.Format == Anthropic && r.Header.Get("anthropic-version") == "" {
		s.errorf("llmtest: call %d has no anthropic-version header", call)
		s.writeError(w, Fault{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "anthropic-version header is required"})
		return
	}
	if s.Key != "" && !s.keyOK(r) {
		s.writeError(w, Fault{Status: http.StatusUnauthorized, Type: "authentication_error", Message: "invalid x-api-key"})
		return
	}

	if s.MaxPromptBytes > 0 && len(body) > s.MaxPromptBytes {
		f := Fault{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: fmt.Sprintf("prompt is too long: %d bytes > %d maximum", len(body), s.MaxPromptBytes)}
		if s.Format == OpenAI {
			f.Type = "context_length_exceeded"
			f.Message = fmt.Sprintf("This model's maximum context length is %d bytes; your messages resulted in %d bytes.", s.MaxPromptBytes, len(body))
		}
		s.writeError(w, f)
		return
	}
	if ref := s.refusal(rec.JSON); ref != nil {
		ref.Call = call
		s.mu.Lock()
		s.refused = append(s.refused, *ref)
		s.mu.Unlock()
		s.writeRefusal(w, *ref)
		return
	}

	s.mu.Lock()
	var reply Reply
	switch {
	case len(s.replies) > 0:
		reply = s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
	case s.Fallback != nil:
		s.mu.Unlock()
		reply = s.Fallback(rec)
	default:
		s.mu.Unlock()
		s.errorf("llmtest: unexpected call %d to %s: no scripted reply left", call, s.Format)
		s.writeError(w, Fault{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: "llmtest: no scripted reply"})
		return
	}

	if reply.Fault.Kind == FaultStatus {
		s.writeError(w, reply.Fault)
		return
	}
	model, _ := rec.JSON["model"].(string)
	stream, _ := rec.JSON["stream"].(bool)
	if !stream {
		s.writeJSON(w, reply, model)
		return
	}
	var events []sseEvent
	if s.Format == Anthropic {
		events = anthropicEvents(reply, model, call)
	} else {
		includeUsage, _ := At(rec.JSON, "stream_options", "include_usage").(bool)
		events = openaiEvents(reply, model, call, includeUsage)
	}
	s.writeStream(w, r, events, reply.Fault, reply.Pace)
}

func (s *Server) keyOK(r *http.Request) bool {
	if s.Format == Anthropic {
		return r.Header.Get("x-api-key") == s.Key
	}
	return r.Header.Get("Authorization") == "Bearer "+s.Key
}

func (s *Server) writeError(w http.ResponseWriter, f Fault) {
	var body any
	if s.Format == Anthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": f.Type, "message": f.Message}}
	} else {
		body = map[string]any{"error": map[string]any{"message": f.Message, "type": f.Type, "param": nil, "code": f.Type}}
	}
	if f.RetryAfter != "" {
		w.Header().Set("retry-after", f.RetryAfter)
	}
	if f.RetryAfterMs != "" {
		w.Header().Set("retry-after-ms", f.RetryAfterMs)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_llmtest")
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(body)
}

func (s *Server) writeJSON(w http.ResponseWriter, reply Reply, model string) {
	w.Header().Set("Content-Type", "application/json")
	if reply.Fault.Kind == FaultMalformed {
		io.WriteString(w, `{"id": "msg_llmtest", "content": [`)
		return
	}
	var body any
	if s.Format == Anthropic {
		body = anthropicMessage(reply, model)
	} else {
		body = openaiCompletion(reply, model)
	}
	json.NewEncoder(w).Encode(body)
}

func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, events []sseEvent, f Fault, pace time.Duration) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for i, ev := range events {
		if f.Kind != NoFault && i == f.After {
			s.fault(w, r, f, flusher)
			return
		}
		if pace > 0 && i > 0 {
			select {
			case <-time.After(pace):
			case <-r.Context().Done():
				return
			}
		}
		var buf bytes.Buffer
		writeSSE(&buf, ev)
		w.Write(buf.Bytes())
		if flusher != nil {
			flusher.Flush()
		}
	}
	if f.Kind != NoFault {
		s.fault(w, r, f, flusher)
	}
}

func (s *Server) fault(w http.ResponseWriter, r *http.Request, f Fault, flusher http.Flusher) {
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch f.Kind {
	case FaultStall:
		flush()
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
	case FaultTruncate:
		flush()
		panic(http.ErrAbortHandler) // breaks the connection mid-stream
	case FaultMalformed:
		name := "content_block_delta"
		if s.Format == OpenAI {
			name = ""
		}
		var buf bytes.Buffer
		writeSSE(&buf, sseEvent{Name: name, Data: `{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"`})
		w.Write(buf.Bytes())
		flush()
	case FaultErrorEvent:
		var buf bytes.Buffer
		if s.Format == Anthropic {
			writeSSE(&buf, sseEvent{Name: "error", Data: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
		} else {
			writeSSE(&buf, sseEvent{Data: `{"error":{"message":"The server is overloaded","type":"server_error","code":"server_error"}}`})
		}
		w.Write(buf.Bytes())
		flush()
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: %v", err))
	}
	return string(b)
}

// chunks splits s into pieces of about n bytes on rune boundaries, as servers stream text.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && !runeStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
