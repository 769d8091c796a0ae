package llmtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm"
)

// Trace serves body as the reply to one request of the provider that newProvider builds for
// the URL it is given (HTTP status, with Content-Type text/event-stream for 200 and
// application/json otherwise, and a retry-after of 7 s on 429 and 529), and renders what the
// provider made of it:
// one line per event, then a line for how the stream ended (the error's kind, and the status,
// type and message of a server's error). Tests pin decoders with it: the same bytes must give
// the same trace.
func Trace(t testing.TB, status int, body []byte, newProvider func(url string) llm.Provider, req *llm.Request) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch status {
		case http.StatusOK:
			w.Header().Set("Content-Type", "text/event-stream")
		case http.StatusTooManyRequests, 529:
			w.Header().Set("retry-after", "7")
			fallthrough
		default:
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := newProvider(srv.URL).Stream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b strings.Builder
	for s.Next() {
		b.WriteString(TraceEvent(s.Event()))
		b.WriteByte('\n')
	}
	b.WriteString(TraceEnd(s.Err()))
	b.WriteByte('\n')
	return b.String()
}

// TraceEvent renders one event on one line, with only the fields of its type.
func TraceEvent(ev llm.Event) string {
	s := ev.Type.String()
	switch ev.Type {
	case llm.EventStart:
		s += fmt.Sprintf(" id=%q model=%q", ev.ID, ev.Model)
	case llm.EventBlockStart, llm.EventBlockStop:
		s += fmt.Sprintf(" %d", ev.Index)
		if b := ev.Block; b != nil {
			s += fmt.Sprintf(" %s", b.Type)
			for _, f := range [][2]string{{"id", b.ID}, {"name", b.Name}, {"text", b.Text}, {"thinking", b.Thinking},
				{"signature", b.Signature}, {"data", b.Data}, {"input", string(b.Input)}} {
				if f[1] != "" {
					s += fmt.Sprintf(" %s=%q", f[0], f[1])
				}
			}
		}
	case llm.EventText, llm.EventThinking, llm.EventSignature, llm.EventToolInput:
		s += fmt.Sprintf(" %d %q", ev.Index, ev.Text)
	case llm.EventUsage:
		u := ev.Usage
		s += fmt.Sprintf(" in=%d out=%d cache_write=%d cache_read=%d", u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens)
	case llm.EventStop:
		s += " " + string(ev.StopReason)
	case llm.EventRetry:
		s += " " + TraceEnd(ev.Err)
	}
	return s
}

// TraceEnd renders how a stream ended: "ok", or the error's kind, plus the status, type and
// message when a server sent them.
func TraceEnd(err error) string {
	if err == nil {
		return "end: ok"
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		return "end: " + err.Error()
	}
	s := fmt.Sprintf("end: %v", e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" status=%d type=%q message=%q", e.Status, e.Type, e.Message)
	}
	if e.After != 0 {
		s += fmt.Sprintf(" after=%s", e.After)
	}
	return s
}
