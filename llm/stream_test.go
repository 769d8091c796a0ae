package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/conversation"
)

// fakeSource replays events, then an error (io.EOF for a clean end).
type fakeSource struct {
	evs []Event
	end error
}

func (f *fakeSource) Recv() (Event, error) {
	if len(f.evs) == 0 {
		return Event{}, f.end
	}
	ev := f.evs[0]
	f.evs = f.evs[1:]
	return ev, nil
}

func (f *fakeSource) Close() error { return nil }

var ep = Endpoint{Provider: "fake", URL: "http://fake", KeyVar: "FAKE_KEY", URLVar: "FAKE_URL"}

func textReply(text string) []Event {
	return []Event{
		{Type: EventStart, ID: "m1", Model: "fake-model"},
		{Type: EventUsage, Usage: Usage{InputTokens: 5}},
		{Type: EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.Text}},
		{Type: EventText, Index: 0, Text: text},
		{Type: EventBlockStop, Index: 0},
		{Type: EventUsage, Usage: Usage{InputTokens: 5, OutputTokens: 3}},
		{Type: EventStop, StopReason: StopEndTurn},
	}
}

// attempts returns an Opener that serves the given sources in turn.
func attempts(srcs ...*fakeSource) (Opener, *int) {
	n := 0
	return func(context.Context) (Source, error) {
		if n >= len(srcs) {
			return nil, errors.New("no more attempts")
		}
		n++
		return srcs[n-1], nil
	}, &n
}

func fastPolicy() StreamOptions {
	return StreamOptions{Endpoint: ep, Retry: RetryPolicy{MaxAttempts: 3, BaseDelay: time.Microsecond, MaxDelay: time.Microsecond}}
}

func drain(s *Stream) []EventType {
	var types []EventType
	for s.Next() {
		types = append(types, s.Event().Type)
	}
	return types
}

func TestStreamRetryHidesFailedAttempt(t *testing.T) {
	broken := &fakeSource{evs: textReply("x")[:2], end: ep.Truncated()} // start + usage, then EOF-like break
	good := &fakeSource{evs: textReply("hello"), end: io.EOF}
	open, n := attempts(broken, good)
	s := NewStream(t.Context(), open, fastPolicy())
	got := drain(s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	want := []EventType{EventRetry, EventStart, EventUsage, EventBlockStart, EventText, EventBlockStop, EventUsage, EventStop}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if *n != 2 {
		t.Errorf("%d attempts", *n)
	}
	if r := s.Response(); r.Message.TextOf() != "hello" || r.Usage.OutputTokens != 3 || r.ID != "m1" {
		t.Errorf("response = %+v", r)
	}
}

func TestStreamNoRetryAfterContent(t *testing.T) {
	evs := textReply("partial")[:4]
	open, n := attempts(&fakeSource{evs: evs, end: io.EOF}, &fakeSource{evs: textReply("again"), end: io.EOF})
	s := NewStream(t.Context(), open, fastPolicy())
	drain(s)
	if !errors.Is(s.Err(), ErrTruncated) {
		t.Fatalf("err = %v, want ErrTruncated", s.Err())
	}
	if *n != 1 {
		t.Errorf("%d attempts, want 1", *n)
	}
	if s.Response().Message.TextOf() != "partial" {
		t.Errorf("partial response = %q", s.Response().Message.TextOf())
	}
}

func TestWholeModeRetriesAfterContent(t *testing.T) {
	open, n := attempts(&fakeSource{evs: textReply("partial")[:4], end: io.EOF}, &fakeSource{evs: textReply("whole"), end: io.EOF})
	s := NewStream(context.WithValue(t.Context(), wholeKey{}, true), open, fastPolicy())
	drain(s)
	if s.Err() != nil || s.Response().Message.TextOf() != "whole" || *n != 2 {
		t.Errorf("err=%v text=%q attempts=%d", s.Err(), s.Response().Message.TextOf(), *n)
	}
}

// Parallel tool calls may stream their inputs interleaved: a block's input keeps growing after
// later blocks started (the assembler once kept its builders in a slice that moved them, and
// panicked here).
func TestInterleavedToolInputs(t *testing.T) {
	tool := func(i int, id string) Event {
		return Event{Type: EventBlockStart, Index: i, Block: &conversation.Block{Type: conversation.ToolUse, ID: id, Name: "Read"}}
	}
	in := func(i int, s string) Event { return Event{Type: EventToolInput, Index: i, Text: s} }
	evs := []Event{{Type: EventStart, ID: "m"}, {Type: EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.Text}},
		{Type: EventText, Index: 0, Text: "两个"}, {Type: EventBlockStop, Index: 0},
		tool(1, "a"), in(1, `{"path":`), tool(2, "b"), tool(3, "c"), in(2, `{"path":"b"}`), in(1, `"a"}`), in(3, `{}`),
		{Type: EventBlockStop, Index: 3}, {Type: EventBlockStop, Index: 1}, {Type: EventBlockStop, Index: 2},
		{Type: EventStop, StopReason: StopToolUse}}
	open, _ := attempts(&fakeSource{evs: evs, end: io.EOF})
	s := NewStream(t.Context(), open, fastPolicy())
	drain(s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range s.Response().ToolCalls() {
		got = append(got, b.ID+" "+string(b.Input))
	}
	if diff := cmp.Diff([]string{`a {"path":"a"}`, `b {"path":"b"}`, `c {}`}, got); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestStreamGivesUp(t *testing.T) {
	fail := func() *fakeSource {
		return &fakeSource{end: ep.StatusError(529, "overloaded_error", "Overloaded", nil)}
	}
	open, n := attempts(fail(), fail(), fail(), fail())
	s := NewStream(t.Context(), open, fastPolicy())
	drain(s)
	var e *Error
	if !errors.As(s.Err(), &e) || e.Kind != ErrOverloaded || e.Attempts != 3 || *n != 3 {
		t.Errorf("err = %v (attempts %d)", s.Err(), *n)
	}
}

func TestStreamMalformedEvents(t *testing.T) {
	tests := map[string][]Event{
		"delta before start":  {{Type: EventText, Index: 0, Text: "x"}},
		"index gap":           {{Type: EventBlockStart, Index: 1, Block: &conversation.Block{Type: conversation.Text}}},
		"delta after stop":    {{Type: EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.Text}}, {Type: EventBlockStop, Index: 0}, {Type: EventText, Index: 0}},
		"tool input not JSON": {{Type: EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.ToolUse, ID: "t", Name: "n"}}, {Type: EventToolInput, Index: 0, Text: `{"a":`}, {Type: EventBlockStop, Index: 0}},
	}
	for name, evs := range tests {
		t.Run(name, func(t *testing.T) {
			open, _ := attempts(&fakeSource{evs: evs, end: io.EOF})
			opts := fastPolicy()
			opts.Retry.MaxAttempts = 1
			s := NewStream(t.Context(), open, opts)
			drain(s)
			if !errors.Is(s.Err(), ErrMalformed) {
				t.Errorf("err = %v, want ErrMalformed", s.Err())
			}
		})
	}
}

func TestStreamStall(t *testing.T) {
	blocked := make(chan struct{})
	open := func(ctx context.Context) (Source, error) {
		return &blockingSource{ctx: ctx, release: blocked}, nil
	}
	opts := fastPolicy()
	opts.Retry.MaxAttempts = 2
	opts.StallTimeout = 20 * time.Millisecond
	s := NewStream(t.Context(), open, opts)
	drain(s)
	close(blocked)
	if !errors.Is(s.Err(), ErrStalled) {
		t.Errorf("err = %v, want ErrStalled", s.Err())
	}
}

type blockingSource struct {
	ctx     context.Context
	release chan struct{}
}

func (b *blockingSource) Recv() (Event, error) {
	select {
	case <-b.ctx.Done():
		return Event{}, b.ctx.Err()
	case <-b.release:
		return Event{}, io.EOF
	}
}
func (b *blockingSource) Close() error { return nil }

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{nil, 0},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"150"}, "Retry-After": {"1"}}, 150 * time.Millisecond},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 10 * time.Second}
	for n := 1; n < 5; n++ {
		d, ok := p.delay(n, ep.StatusError(500, "api_error", "", nil))
		hi := min(p.BaseDelay<<(n-1), p.MaxDelay)
		if !ok || d < hi/2 || d > hi {
			t.Errorf("attempt %d: delay %v, want in [%v, %v]", n, d, hi/2, hi)
		}
	}
	if _, ok := p.delay(5, ep.StatusError(500, "", "", nil)); ok {
		t.Error("retried past MaxAttempts")
	}
	if d, ok := p.delay(1, ep.StatusError(429, "", "", http.Header{"Retry-After": {"3"}})); !ok || d != 3*time.Second {
		t.Errorf("retry-after 3: %v %v", d, ok)
	}
	if _, ok := p.delay(1, ep.StatusError(429, "", "", http.Header{"Retry-After": {"600"}})); ok {
		t.Error("honoured a retry-after beyond MaxRetryAfter")
	}
	for _, status := range []int{400, 401, 403, 404} {
		if _, ok := p.delay(1, ep.StatusError(status, "", "", nil)); ok {
			t.Errorf("status %d retried", status)
		}
	}
	if _, ok := p.delay(1, errors.New("plain")); ok {
		t.Error("a non-llm error was retried")
	}
}

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"a": 1}`, `{"a":1}`},
		{"```json\n{\"a\": [\"文件\"]}\n```", `{"a":["文件"]}`},
		{`Here you go: {"a": {"b": 2}} hope it helps`, `{"a":{"b":2}}`},
		{`[1,2]`, ""},
		{`no json`, ""},
	}
	for _, tt := range tests {
		got, err := ExtractJSON(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ExtractJSON(%q) = %s, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("ExtractJSON(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{}\n```", "x {\"y\": [1, {\"z\": null}]} w", "{", "}{", "```", "中文 {\"名\":\"值\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ExtractJSON(s)
		if err != nil {
			return
		}
		if len(got) == 0 || got[0] != '{' {
			t.Fatalf("ExtractJSON(%q) = %q, not an object", s, got)
		}
		again, err := ExtractJSON(string(got))
		if err != nil || string(again) != string(got) {
			t.Fatalf("not idempotent: %q -> %q (%v)", got, again, err)
		}
	})
}

func TestSlowConsumerIsNotAStall(t *testing.T) {
	open, _ := attempts(&fakeSource{evs: textReply("slowly"), end: io.EOF})
	opts := fastPolicy()
	opts.Retry.MaxAttempts = 1
	opts.StallTimeout = 5 * time.Millisecond
	s := NewStream(t.Context(), open, opts)
	for s.Next() {
		time.Sleep(15 * time.Millisecond) // the consumer renders; the server is not silent
	}
	if s.Err() != nil || s.Response().Message.TextOf() != "slowly" {
		t.Errorf("err = %v, text %q", s.Err(), s.Response().Message.TextOf())
	}
}
