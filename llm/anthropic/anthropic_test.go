package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
)

func newProvider(t *testing.T, cfg llm.Config) llm.Provider {
	t.Helper()
	p, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func userReq(text string) *llm.Request {
	return &llm.Request{Messages: []conversation.Message{conversation.NewText(conversation.User, text)}}
}

// collect streams req and returns the events and the response.
func collect(t *testing.T, p llm.Provider, ctx context.Context, req *llm.Request) ([]llm.Event, *llm.Response, error) {
	t.Helper()
	s, err := p.Stream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []llm.Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	return evs, s.Response(), s.Err()
}

func TestPlainText(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("Hello, 世界! This is a longer reply.").WithUsage(llm.Usage{InputTokens: 12, OutputTokens: 9, CacheReadInputTokens: 100, CacheCreationInputTokens: 7}))
	p := newProvider(t, srv.Config())
	evs, resp, err := collect(t, p, t.Context(), userReq("你好"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev.Type == llm.EventText {
			text.WriteString(ev.Text)
		}
	}
	if got, want := text.String(), "Hello, 世界! This is a longer reply."; got != want {
		t.Errorf("streamed text = %q, want %q", got, want)
	}
	want := &llm.Response{ID: "msg_llmtest_1", Model: "test-model", StopReason: llm.StopEndTurn,
		Usage:   llm.Usage{InputTokens: 12, OutputTokens: 9, CacheReadInputTokens: 100, CacheCreationInputTokens: 7},
		Message: conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.Text, Text: "Hello, 世界! This is a longer reply."}}}}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if evs[len(evs)-1].Type != llm.EventStop {
		t.Errorf("last event = %v, want stop", evs[len(evs)-1].Type)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Header.Get("x-api-key") != llmtest.Key || r.Header.Get("anthropic-version") == "" {
		t.Errorf("headers: x-api-key=%q anthropic-version=%q", r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"))
	}
	for path, want := range map[string]any{"model": "test-model", "stream": true, "max_tokens": 1024.0} {
		if got := r.At(path); got != want {
			t.Errorf("request %s = %v, want %v", path, got, want)
		}
	}
	if got := r.At("messages", 0, "content", 0, "text"); got != "你好" {
		t.Errorf("request text = %v", got)
	}
}

func TestToolRoundTrip(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(
		llmtest.Blocks(llmtest.TextBlock("Let me look."), llmtest.ToolUse("toolu_1", "Read", `{"path":"a.go","limit":10}`)),
		llmtest.Text("It is a Go file."),
	)
	p := newProvider(t, srv.Config())
	tools := []llm.Tool{{Name: "Read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`), Cache: true}}
	req := userReq("what is a.go?")
	req.Tools = tools
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	calls := resp.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "toolu_1" || calls[0].Name != "Read" || string(calls[0].Input) != `{"path":"a.go","limit":10}` {
		t.Fatalf("tool calls = %+v", calls)
	}
	req.Messages = append(req.Messages, resp.Message, conversation.Message{Role: conversation.User, Content: []conversation.Block{
		{Type: conversation.ToolResult, ToolUseID: "toolu_1", Content: []conversation.Block{{Type: conversation.Text, Text: "package a"}}},
	}})
	resp, err = llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.TextOf() != "It is a Go file." {
		t.Errorf("second reply = %q", resp.Message.TextOf())
	}
	r := srv.Requests()[1]
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"tools", 0, "name"}, "Read"},
		{[]any{"tools", 0, "input_schema", "type"}, "object"},
		{[]any{"tools", 0, "input_schema", "required", 0}, "path"},
		{[]any{"tools", 0, "input_schema", "additionalProperties"}, false},
		{[]any{"tools", 0, "cache_control", "type"}, "ephemeral"},
		{[]any{"messages", 1, "role"}, "assistant"},
		{[]any{"messages", 1, "content", 1, "type"}, "tool_use"},
		{[]any{"messages", 1, "content", 1, "id"}, "toolu_1"},
		{[]any{"messages", 1, "content", 1, "input", "path"}, "a.go"},
		{[]any{"messages", 2, "content", 0, "type"}, "tool_result"},
		{[]any{"messages", 2, "content", 0, "tool_use_id"}, "toolu_1"},
		{[]any{"messages", 2, "content", 0, "content", 0, "text"}, "package a"},
	}
	for _, c := range checks {
		if got := r.At(c.path...); got != c.want {
			t.Errorf("request %v = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestThinkingSignaturePreserved(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(
		llmtest.Blocks(llmtest.ThinkingBlock("First, 想一想 about the file.", "sig-abc=="), llmtest.ToolUse("toolu_9", "Glob", `{"pattern":"*.go"}`)),
		llmtest.Text("done"),
	)
	p := newProvider(t, srv.Config())
	req := userReq("list go files")
	req.ThinkingBudget = 2048
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := conversation.Block{Type: conversation.Thinking, Thinking: "First, 想一想 about the file.", Signature: "sig-abc=="}
	if diff := cmp.Diff(want, resp.Message.Content[0]); diff != "" {
		t.Errorf("thinking block (-want +got):\n%s", diff)
	}
	req.Messages = append(req.Messages, resp.Message, conversation.Message{Role: conversation.User, Content: []conversation.Block{
		{Type: conversation.ToolResult, ToolUseID: "toolu_9", Content: []conversation.Block{{Type: conversation.Text, Text: "a.go"}}}}})
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()
	if got := r[0].At("thinking", "type"); got != "enabled" {
		t.Errorf("thinking.type = %v", got)
	}
	if got := r[0].At("thinking", "budget_tokens"); got != 2048.0 {
		t.Errorf("thinking.budget_tokens = %v", got)
	}
	if mt, _ := r[0].At("max_tokens").(float64); mt <= 2048 {
		t.Errorf("max_tokens %v must exceed the thinking budget", mt)
	}
	if got := r[1].At("messages", 1, "content", 0, "signature"); got != "sig-abc==" {
		t.Errorf("signature sent back = %v", got)
	}
	if got := r[1].At("messages", 1, "content", 0, "thinking"); got != "First, 想一想 about the file." {
		t.Errorf("thinking sent back = %v", got)
	}
}

// A session resumed without thinking turned on sends no thinking blocks back, as Claude Code
// does; with it on they go back as they came.
func TestThinkingDroppedWhenOff(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("a"), llmtest.Text("b"))
	p := newProvider(t, srv.Config())
	req := userReq("again")
	req.Messages = append([]conversation.Message{
		{Role: conversation.User, Content: []conversation.Block{{Type: conversation.Text, Text: "first"}}},
		{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.Thinking, Thinking: "想", Signature: "s=="},
			{Type: conversation.RedactedThinking, Data: "Zm9v"}, {Type: conversation.Text, Text: "answer"}}},
	}, req.Messages...)
	for _, budget := range []int{0, 2048} {
		req.ThinkingBudget = budget
		if _, err := llm.Complete(t.Context(), p, req); err != nil {
			t.Fatal(err)
		}
	}
	r := srv.Requests()
	if got := r[0].At("messages", 1, "content", 0, "type"); got != "text" || r[0].At("thinking") != nil {
		t.Errorf("thinking off: first block of the old answer = %v (thinking param %v), want text alone", got, r[0].At("thinking"))
	}
	if got := r[1].At("messages", 1, "content", 0, "type"); got != "thinking" {
		t.Errorf("thinking on: first block of the old answer = %v, want thinking", got)
	}
}

func TestRedactedThinkingRoundTrip(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Blocks(llmtest.RedactedThinkingBlock("EncryptedBlob=="), llmtest.ToolUse("toolu_r", "Bash", `{"command":"ls"}`)), llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	req := userReq("ls")
	req.ThinkingBudget = 1024
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation.Block{Type: conversation.RedactedThinking, Data: "EncryptedBlob=="}, resp.Message.Content[0]); diff != "" {
		t.Errorf("redacted block (-want +got):\n%s", diff)
	}
	req.Messages = append(req.Messages, resp.Message, conversation.Message{Role: conversation.User, Content: []conversation.Block{
		{Type: conversation.ToolResult, ToolUseID: "toolu_r", Content: []conversation.Block{{Type: conversation.Text, Text: "a b"}}}}})
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[1]
	if r.At("messages", 1, "content", 0, "type") != "redacted_thinking" || r.At("messages", 1, "content", 0, "data") != "EncryptedBlob==" {
		t.Errorf("redacted block sent back = %v", r.At("messages", 1, "content", 0))
	}
}

func TestUnsignedThinkingDropped(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	req := &llm.Request{Messages: []conversation.Message{
		conversation.NewText(conversation.User, "hi"),
		{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.Thinking, Thinking: "from another model"}, {Type: conversation.Text, Text: "hello"}}},
		conversation.NewText(conversation.User, "again"),
	}}
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.At("messages", 1, "content", 0, "type"); got != "text" {
		t.Errorf("first block of the assistant message = %v, want text (unsigned thinking dropped)", got)
	}
}

func TestCacheControlPlacement(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	req := &llm.Request{
		System: []llm.SystemBlock{{Text: "You are strata."}, {Text: "Instructions…", Cache: true}, {Text: "volatile"}},
		Tools:  []llm.Tool{{Name: "A", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "B", InputSchema: json.RawMessage(`{"type":"object"}`), Cache: true}},
		Messages: []conversation.Message{
			{Role: conversation.User, Content: []conversation.Block{{Type: conversation.Text, Text: "reminder"}, {Type: conversation.Text, Text: "q1"}}},
			conversation.NewText(conversation.Assistant, "a1"),
			conversation.NewText(conversation.User, "q2"),
		},
		CachePoints: []llm.CachePoint{{Message: 0, Block: 0}, llm.CacheAfter(1)},
	}
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	var got []string
	walk := func(prefix string, v any) {
		arr, _ := v.([]any)
		for i, x := range arr {
			if llmtest.At(x, "cache_control", "type") == "ephemeral" {
				got = append(got, prefix+"["+string(rune('0'+i))+"]")
			}
		}
	}
	walk("tools", r.At("tools"))
	walk("system", r.At("system"))
	for i := range 3 {
		walk("messages["+string(rune('0'+i))+"]", r.At("messages", i, "content"))
	}
	want := []string{"tools[1]", "system[1]", "messages[0][0]", "messages[1][0]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cache_control markers (-want +got):\n%s", diff)
	}
}

func TestTooManyCachePoints(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	p := newProvider(t, srv.Config())
	req := userReq("x")
	req.System = []llm.SystemBlock{{Text: "a", Cache: true}, {Text: "b", Cache: true}, {Text: "c", Cache: true}, {Text: "d", Cache: true}}
	req.CachePoints = []llm.CachePoint{llm.CacheAfter(0)}
	if _, err := p.Stream(t.Context(), req); err == nil || !strings.Contains(err.Error(), "at most 4") {
		t.Errorf("err = %v, want the 4-breakpoint limit", err)
	}
}

func TestStructuredOutput(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Blocks(llmtest.ToolUse("toolu_s", "select_memories", `{"selected":["a.md","用户.md"]}`)))
	p := newProvider(t, srv.Config())
	req := userReq("pick")
	req.ThinkingBudget = 4096 // must be dropped: forcing a tool excludes thinking
	req.Output = &llm.Schema{Name: "select_memories", Description: "the chosen files",
		Schema: json.RawMessage(`{"type":"object","properties":{"selected":{"type":"array","items":{"type":"string"}}},"required":["selected"]}`)}
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Structured); got != `{"selected":["a.md","用户.md"]}` {
		t.Errorf("structured = %s", got)
	}
	r := srv.Requests()[0]
	if r.At("tool_choice", "type") != "tool" || r.At("tool_choice", "name") != "select_memories" {
		t.Errorf("tool_choice = %v", r.At("tool_choice"))
	}
	if r.At("tools", 0, "name") != "select_memories" {
		t.Errorf("tools = %v", r.At("tools"))
	}
	if r.At("thinking") != nil {
		t.Errorf("thinking sent with a forced tool: %v", r.At("thinking"))
	}
}

func TestFaultsRecover(t *testing.T) {
	ok := llmtest.Text("recovered 好")
	tests := []struct {
		name   string
		faults []llmtest.Reply
	}{
		{"429 retry-after", []llmtest.Reply{llmtest.RateLimited(20 * time.Millisecond)}},
		{"500", []llmtest.Reply{llmtest.ServerError()}},
		{"529 overloaded", []llmtest.Reply{llmtest.Overloaded(), llmtest.Overloaded()}},
		{"truncated before content", []llmtest.Reply{ok.TruncateAfter(2)}},
		{"malformed JSON before content", []llmtest.Reply{ok.MalformedAfter(1)}},
		{"overloaded error event", []llmtest.Reply{ok.ErrorEventAfter(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Script(append(tt.faults, ok)...)
			p := newProvider(t, srv.Config())
			evs, resp, err := collect(t, p, t.Context(), userReq("hi"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.TextOf() != "recovered 好" {
				t.Errorf("text = %q", resp.Message.TextOf())
			}
			retries := 0
			for _, ev := range evs {
				if ev.Type == llm.EventRetry {
					retries++
				}
			}
			if retries != len(tt.faults) {
				t.Errorf("%d retry events, want %d", retries, len(tt.faults))
			}
			if n := len(srv.Requests()); n != len(tt.faults)+1 {
				t.Errorf("%d requests, want %d", n, len(tt.faults)+1)
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.RateLimited(30*time.Millisecond), llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	evs, _, err := collect(t, p, t.Context(), userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type != llm.EventRetry || evs[0].Wait != 30*time.Millisecond || !errors.Is(evs[0].Err, llm.ErrRateLimited) {
		t.Errorf("first event = %+v, want a retry after 30ms for a rate limit", evs[0])
	}
}

func TestStallRetried(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("never").StallAfter(2), llmtest.Text("after stall"))
	cfg := srv.Config()
	cfg.StallTimeout = 200 * time.Millisecond
	p := newProvider(t, cfg)
	_, resp, err := collect(t, p, t.Context(), userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.TextOf() != "after stall" {
		t.Errorf("text = %q", resp.Message.TextOf())
	}
}

func TestBrokenAfterContent(t *testing.T) {
	// message_start, ping, block start, 1 delta: content was delivered, so Stream cannot retry.
	reply := llmtest.Text("partial reply that breaks").TruncateAfter(4)
	t.Run("stream", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t)
		srv.Script(reply)
		p := newProvider(t, srv.Config())
		_, resp, err := collect(t, p, t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrTruncated) {
			t.Fatalf("err = %v, want ErrTruncated", err)
		}
		if !strings.Contains(err.Error(), "anthropic") || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("error %q does not name the provider and URL", err)
		}
		if resp.Message.TextOf() != "partial " {
			t.Errorf("partial text = %q", resp.Message.TextOf())
		}
	})
	t.Run("complete retries", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t)
		srv.Script(reply, llmtest.Text("whole"))
		p := newProvider(t, srv.Config())
		resp, err := llm.Complete(t.Context(), p, userReq("hi"))
		if err != nil || resp.Message.TextOf() != "whole" {
			t.Fatalf("Complete = %v, %v", resp, err)
		}
	})
}

func TestFaultsExhausted(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded())
	p := newProvider(t, srv.Config())
	_, _, err := collect(t, p, t.Context(), userReq("hi"))
	if !errors.Is(err, llm.ErrOverloaded) {
		t.Fatalf("err = %v, want ErrOverloaded", err)
	}
	var e *llm.Error
	if !errors.As(err, &e) || e.Attempts != 4 || e.Status != 529 {
		t.Errorf("error = %+v, want 4 attempts and status 529", e)
	}
}

func TestClearErrors(t *testing.T) {
	t.Run("bad key", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t)
		cfg := srv.Config()
		cfg.APIKey = "wrong"
		_, _, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
			t.Errorf("err = %v, want ErrAuth naming ANTHROPIC_API_KEY", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests; a bad key must not be retried", n)
		}
	})
	t.Run("401 with an api_error body", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t)
		srv.Script(llmtest.StatusError(401, "api_error", "Internal server error"))
		_, _, err := collect(t, newProvider(t, srv.Config()), t.Context(), userReq("hi"))
		var e *llm.Error
		if !errors.Is(err, llm.ErrAuth) || !errors.As(err, &e) || e.Status != 401 {
			t.Errorf("err = %v, want ErrAuth with status 401", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests; a 401 must not be retried", n)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		srv := llmtest.NewAnthropic(t)
		srv.Script(llmtest.StatusError(404, "not_found_error", "model: claude-nope"))
		cfg := srv.Config()
		cfg.Model = "claude-nope"
		_, _, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "claude-nope") || !strings.Contains(err.Error(), "STRATA_MODEL") {
			t.Errorf("err = %v, want ErrModelNotFound naming the model and STRATA_MODEL", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String()
		l.Close()
		cfg := llm.Config{Provider: llm.Anthropic, APIKey: "k", BaseURL: url, Model: "m", Retry: llm.RetryPolicy{BaseDelay: time.Millisecond}}
		_, _, err = collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "ANTHROPIC_BASE_URL") {
			t.Errorf("err = %v, want ErrUnreachable naming the URL and ANTHROPIC_BASE_URL", err)
		}
	})
}

func TestCancellation(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("this stream stalls after its first words").StallAfter(5))
	p := newProvider(t, srv.Config())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := p.Stream(ctx, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Next() {
		if s.Event().Type == llm.EventText {
			cancel() // the user pressed Ctrl-C while text streamed
		}
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", s.Err())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}
}

var _ llm.Provider = (*anthropic.Provider)(nil)

// BenchmarkStream measures decoding a streamed reply of about 64 KB (8-byte text deltas, as the
// fake sends them) through the SSE decoder, the retry layer and the assembler.
func BenchmarkStream(b *testing.B) {
	srv := llmtest.NewAnthropic(b)
	p, err := llm.New(srv.Config())
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("strata 记忆 streams. ", 2700)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		srv.Script(llmtest.Text(text))
		resp, err := llm.Complete(b.Context(), p, userReq("go"))
		if err != nil || len(resp.Message.TextOf()) != len(text) {
			b.Fatal(err)
		}
	}
}

// The fake's non-streamed JSON body has the shape of the API's Message object: no field the
// API reference does not name, and every field it requires.
func TestFakeJSONBodyDecodes(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Blocks(llmtest.ThinkingBlock("hmm", "sig"), llmtest.TextBlock("你好"), llmtest.ToolUse("t1", "Read", `{"path":"x"}`)).
		WithUsage(llm.Usage{InputTokens: 3, OutputTokens: 4, CacheReadInputTokens: 5}))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/messages",
		strings.NewReader(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", llmtest.Key)
	req.Header.Set("anthropic-version", anthropic.APIVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Role    string `json:"role"`
		Model   string `json:"model"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			Signature string          `json:"signature"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Data      string          `json:"data"`
		} `json:"content"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
		Usage        struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.ID == "" || msg.Type != "message" || msg.Role != "assistant" || msg.Model != "m" || len(msg.Content) != 3 ||
		msg.Content[0].Type != "thinking" || msg.Content[0].Signature != "sig" || msg.Content[1].Text != "你好" ||
		msg.Content[2].Name != "Read" || string(msg.Content[2].Input) != `{"path":"x"}` ||
		msg.StopReason != "tool_use" || msg.Usage.CacheReadInputTokens != 5 || msg.Usage.OutputTokens != 4 {
		t.Errorf("message = %+v", msg)
	}
}

// streamServer serves whatever body the current fuzz input stores; one server for all inputs
// (a server per input makes the fuzzing engine itself time out).
func streamServer(f *testing.F) (*httptest.Server, *atomic.Pointer[[]byte]) {
	var body atomic.Pointer[[]byte]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(*body.Load())
	}))
	f.Cleanup(srv.Close)
	return srv, &body
}

// FuzzStreamBody feeds arbitrary SSE bodies to the provider: it must never panic, and a stream
// that ends without error must have a stop reason and well-formed tool inputs.
func FuzzStreamBody(f *testing.F) {
	f.Add(llmtest.AnthropicSSE(llmtest.Text("hello 世界"), "m"))
	f.Add(llmtest.AnthropicSSE(llmtest.Blocks(llmtest.ThinkingBlock("t", "s"), llmtest.ToolUse("1", "n", `{"a":[1]}`)), "m"))
	f.Add(llmtest.AnthropicSSE(llmtest.Blocks(llmtest.RedactedThinkingBlock("x"), llmtest.TextBlock("")), "m"))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3}\n\n"))
	srv, current := streamServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		current.Store(&body)
		p, err := anthropic.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Model: "m", Retry: llm.RetryPolicy{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, resp, err := collect(t, p, ctx, userReq("x"))
		if ctx.Err() != nil {
			t.Fatalf("stream did not end within 5s on body %q", body)
		}
		if err != nil {
			return
		}
		if resp.StopReason == "" {
			t.Fatal("complete stream without a stop reason")
		}
		for _, b := range resp.Message.Content {
			if b.Type == conversation.ToolUse && !json.Valid(b.Input) {
				t.Fatalf("tool input %q is not JSON", b.Input)
			}
		}
	})
}

// A redirect to another server is refused: the x-api-key header would go along with it.
func TestKeyStaysOnOrigin(t *testing.T) {
	var stolen atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/v1/messages", http.StatusTemporaryRedirect))
	defer redirect.Close()
	cfg := llm.Config{Provider: llm.Anthropic, APIKey: "secret", BaseURL: redirect.URL, Model: "m", Retry: llm.RetryPolicy{MaxAttempts: 1}}
	_, _, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
	if err == nil || !strings.Contains(err.Error(), "another server") {
		t.Errorf("err = %v, want the redirect refused", err)
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
}

// TestDocumentSent: a PDF the user attached in Claude Code (a document block, in a message or
// a tool result) goes to the API with its source as the transcript has it.
func TestDocumentSent(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	src := json.RawMessage(`{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}`)
	doc := conversation.Block{Type: conversation.Document, Source: src}
	req := &llm.Request{Messages: []conversation.Message{
		{Role: conversation.User, Content: []conversation.Block{doc, {Type: conversation.Text, Text: "summarise this pdf"}}},
		{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.ToolUse, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{}`)}}},
		{Role: conversation.User, Content: []conversation.Block{{Type: conversation.ToolResult, ToolUseID: "toolu_1", Content: []conversation.Block{doc}}}},
	}}
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	for _, path := range [][]any{{"messages", 0, "content", 0}, {"messages", 2, "content", 0, "content", 0}} {
		if got := r.At(append(path, "type")...); got != "document" {
			t.Errorf("%v type = %v, want document", path, got)
		}
		if got := r.At(append(path, "source", "media_type")...); got != "application/pdf" {
			t.Errorf("%v source.media_type = %v, want application/pdf", path, got)
		}
	}
	bad := &llm.Request{Messages: []conversation.Message{{Role: conversation.User, Content: []conversation.Block{{Type: conversation.Document, Source: json.RawMessage(`"x"`)}}}}}
	if _, err := llm.Complete(t.Context(), p, bad); err == nil || !strings.Contains(err.Error(), "document source") {
		t.Errorf("a document whose source is not an object: err = %v, want one naming the document source", err)
	}
}
