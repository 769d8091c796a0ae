package openai_test

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

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/llm/openai"
)

var _ llm.Provider = (*openai.Provider)(nil)

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
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("Hello, 世界! A streamed reply.").WithUsage(llm.Usage{InputTokens: 30, CacheReadInputTokens: 70, OutputTokens: 8}))
	p := newProvider(t, srv.Config())
	req := userReq("你好")
	req.System = []llm.SystemBlock{{Text: "You are strata.", Cache: true}, {Text: "Be brief."}}
	temp := 0.2
	req.Temperature = &temp
	evs, resp, err := collect(t, p, t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev.Type == llm.EventText {
			text.WriteString(ev.Text)
		}
	}
	if text.String() != "Hello, 世界! A streamed reply." {
		t.Errorf("streamed text = %q", text.String())
	}
	want := &llm.Response{ID: "chatcmpl-llmtest-1", Model: "test-model", StopReason: llm.StopEndTurn,
		Usage:   llm.Usage{InputTokens: 30, CacheReadInputTokens: 70, OutputTokens: 8},
		Message: conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.Text, Text: "Hello, 世界! A streamed reply."}}}}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	r := srv.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer "+llmtest.Key {
		t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
	}
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"model"}, "test-model"},
		{[]any{"stream"}, true},
		{[]any{"stream_options", "include_usage"}, true},
		{[]any{"max_tokens"}, 1024.0}, // a local server (llmtest's config) gets max_tokens
		{[]any{"temperature"}, 0.2},
		{[]any{"messages", 0, "role"}, "system"},
		{[]any{"messages", 0, "content"}, "You are strata.\n\nBe brief."},
		{[]any{"messages", 1, "role"}, "user"},
		{[]any{"messages", 1, "content"}, "你好"},
	}
	for _, c := range checks {
		if got := r.At(c.path...); got != c.want {
			t.Errorf("request %v = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestMaxCompletionTokensForOpenAI(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("ok"))
	cfg := srv.Config()
	cfg.Local = false
	if _, err := llm.Complete(t.Context(), newProvider(t, cfg), userReq("x")); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.At("max_completion_tokens") != 1024.0 || r.At("max_tokens") != nil {
		t.Errorf("max_completion_tokens=%v max_tokens=%v", r.At("max_completion_tokens"), r.At("max_tokens"))
	}
}

func TestToolRoundTrip(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(
		llmtest.Blocks(llmtest.TextBlock("Reading both."), llmtest.ToolUse("call_1", "Read", `{"path":"a.go"}`), llmtest.ToolUse("call_2", "Read", `{"path":"文件.md"}`)),
		llmtest.Text("Done."),
	)
	p := newProvider(t, srv.Config())
	req := userReq("read a.go and 文件.md")
	req.Tools = []llm.Tool{{Name: "Read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []conversation.Block{
		{Type: conversation.Text, Text: "Reading both."},
		{Type: conversation.ToolUse, ID: "call_1", Name: "Read", Input: json.RawMessage(`{"path":"a.go"}`)},
		{Type: conversation.ToolUse, ID: "call_2", Name: "Read", Input: json.RawMessage(`{"path":"文件.md"}`)},
	}
	if diff := cmp.Diff(want, resp.Message.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	req.Messages = append(req.Messages, resp.Message, conversation.Message{Role: conversation.User, Content: []conversation.Block{
		{Type: conversation.ToolResult, ToolUseID: "call_1", Content: []conversation.Block{{Type: conversation.Text, Text: "package a"}}},
		{Type: conversation.ToolResult, ToolUseID: "call_2", IsError: true, Content: []conversation.Block{{Type: conversation.Text, Text: "no such file"}}},
		{Type: conversation.Text, Text: "also: be quick"},
	}})
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[1]
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"tools", 0, "type"}, "function"},
		{[]any{"tools", 0, "function", "name"}, "Read"},
		{[]any{"tools", 0, "function", "parameters", "required", 0}, "path"},
		{[]any{"messages", 1, "role"}, "assistant"},
		{[]any{"messages", 1, "content"}, "Reading both."},
		{[]any{"messages", 1, "tool_calls", 0, "id"}, "call_1"},
		{[]any{"messages", 1, "tool_calls", 0, "function", "name"}, "Read"},
		{[]any{"messages", 1, "tool_calls", 1, "function", "arguments"}, `{"path":"文件.md"}`},
		{[]any{"messages", 2, "role"}, "tool"},
		{[]any{"messages", 2, "tool_call_id"}, "call_1"},
		{[]any{"messages", 2, "content"}, "package a"},
		{[]any{"messages", 3, "role"}, "tool"},
		{[]any{"messages", 3, "tool_call_id"}, "call_2"},
		{[]any{"messages", 3, "content"}, "Error: no such file"},
		{[]any{"messages", 4, "role"}, "user"},
		{[]any{"messages", 4, "content"}, "also: be quick"},
	}
	for _, c := range checks {
		if got := r.At(c.path...); got != c.want {
			t.Errorf("request %v = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestReasoningBecomesThinking(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Blocks(llmtest.ThinkingBlock("let me think 一下", ""), llmtest.TextBlock("42")), llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	req := userReq("answer?")
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []conversation.Block{{Type: conversation.Thinking, Thinking: "let me think 一下"}, {Type: conversation.Text, Text: "42"}}
	if diff := cmp.Diff(want, resp.Message.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	req.Messages = append(req.Messages, resp.Message, conversation.NewText(conversation.User, "sure?"))
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].At("messages", 1, "content"); got != "42" {
		t.Errorf("assistant content sent back = %v, want only the text", got)
	}
}

func TestStructuredOutput(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("```json\n{\"selected\": [\"a.md\", \"用户.md\"]}\n```"))
	p := newProvider(t, srv.Config())
	req := userReq("pick")
	req.Output = &llm.Schema{Name: "select_memories", Schema: json.RawMessage(`{"type":"object","properties":{"selected":{"type":"array","items":{"type":"string"}}}}`)}
	resp, err := llm.Complete(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Structured); got != `{"selected":["a.md","用户.md"]}` {
		t.Errorf("structured = %s", got)
	}
	r := srv.Requests()[0]
	if r.At("response_format", "type") != "json_schema" || r.At("response_format", "json_schema", "name") != "select_memories" ||
		r.At("response_format", "json_schema", "schema", "type") != "object" {
		t.Errorf("response_format = %v", r.At("response_format"))
	}
}

func TestStructuredOutputNotJSON(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("I would pick a.md"))
	req := userReq("pick")
	req.Output = &llm.Schema{Name: "pick", Schema: json.RawMessage(`{"type":"object"}`)}
	_, err := llm.Complete(t.Context(), newProvider(t, srv.Config()), req)
	if !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}

func TestFaultsRecover(t *testing.T) {
	ok := llmtest.Text("recovered 好")
	tests := []struct {
		name   string
		faults []llmtest.Reply
	}{
		{"429 retry-after", []llmtest.Reply{llmtest.RateLimited(10 * time.Millisecond)}},
		{"500", []llmtest.Reply{llmtest.ServerError()}},
		{"529", []llmtest.Reply{llmtest.Overloaded()}},
		{"truncated before content", []llmtest.Reply{ok.TruncateAfter(1)}},
		{"truncated before finish", []llmtest.Reply{llmtest.Text("").TruncateAfter(1)}},
		{"malformed JSON", []llmtest.Reply{ok.MalformedAfter(1)}},
		{"error chunk", []llmtest.Reply{ok.ErrorEventAfter(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			srv.Script(append(tt.faults, ok)...)
			evs, resp, err := collect(t, newProvider(t, srv.Config()), t.Context(), userReq("hi"))
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
		})
	}
}

func TestStallRetried(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("never").StallAfter(1), llmtest.Text("after stall"))
	cfg := srv.Config()
	cfg.StallTimeout = 200 * time.Millisecond
	_, resp, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.TextOf() != "after stall" {
		t.Errorf("text = %q", resp.Message.TextOf())
	}
}

func TestStallAfterContentIsAnError(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("some words then silence").StallAfter(2))
	cfg := srv.Config()
	cfg.StallTimeout = 200 * time.Millisecond
	_, resp, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
	if !errors.Is(err, llm.ErrStalled) {
		t.Fatalf("err = %v, want ErrStalled", err)
	}
	if resp.Message.TextOf() != "some wor" {
		t.Errorf("partial text = %q", resp.Message.TextOf())
	}
}

func TestClearErrors(t *testing.T) {
	t.Run("bad key", func(t *testing.T) {
		srv := llmtest.NewOpenAI(t)
		cfg := srv.Config()
		cfg.APIKey = "wrong"
		_, _, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("401 with an api_error body", func(t *testing.T) {
		srv := llmtest.NewOpenAI(t)
		srv.Script(llmtest.StatusError(401, "api_error", "Internal error"))
		_, _, err := collect(t, newProvider(t, srv.Config()), t.Context(), userReq("hi"))
		var e *llm.Error
		if !errors.Is(err, llm.ErrAuth) || !errors.As(err, &e) || e.Status != 401 {
			t.Errorf("err = %v, want ErrAuth with status 401", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests; a 401 must not be retried", n)
		}
	})
	t.Run("unknown model on Ollama", func(t *testing.T) {
		srv := llmtest.NewOpenAI(t)
		srv.Script(llmtest.StatusError(404, "api_error", `model "qwen9" not found, try pulling it first`))
		_, _, err := collect(t, newProvider(t, srv.Config()), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrModelNotFound) || len(srv.Requests()) != 1 {
			t.Errorf("err = %v after %d requests, want ErrModelNotFound at once", err, len(srv.Requests()))
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		srv := llmtest.NewOpenAI(t)
		srv.Script(llmtest.StatusError(404, "invalid_request_error", `model "llama9" not found, try pulling it first`))
		cfg := srv.Config()
		cfg.Model = "llama9"
		_, _, err := collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "llama9") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String() + "/v1"
		l.Close()
		cfg := llm.Config{Provider: llm.OpenAI, BaseURL: url, Local: true, Model: "llama3.1"}
		_, _, err = collect(t, newProvider(t, cfg), t.Context(), userReq("hi"))
		if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
			t.Errorf("err = %v", err)
		}
	})
}

// The organisation, project and custom headers the environment names reach the server, as
// the SDK sent them; the key in Authorization stays the configured one.
func TestHeadersFromEnv(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("ok"))
	vars := map[string]string{"OPENAI_API_KEY": llmtest.Key, "OPENAI_BASE_URL": srv.URL, "STRATA_MODEL": "m",
		"OPENAI_ORG_ID": "org-1", "OPENAI_PROJECT_ID": "proj_2", "OPENAI_CUSTOM_HEADERS": "X-Team: platform\nAuthorization: Bearer other\nnot a header"}
	cfg, err := llm.FromEnv(config.Env{Getenv: func(k string) string { return vars[k] }}, llm.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Complete(t.Context(), newProvider(t, cfg), userReq("x")); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	for k, want := range map[string]string{"OpenAI-Organization": "org-1", "OpenAI-Project": "proj_2", "X-Team": "platform", "Authorization": "Bearer " + llmtest.Key} {
		if got := h.Values(k); len(got) != 1 || got[0] != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

func TestNoKeyForLocalServer(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Key = "" // like Ollama: any key or none
	srv.Script(llmtest.Text("ok"))
	cfg := srv.Config()
	cfg.APIKey = ""
	if _, err := llm.Complete(t.Context(), newProvider(t, cfg), userReq("x")); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestCancellation(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("this stream stalls after its first words").StallAfter(3))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := newProvider(t, srv.Config()).Stream(ctx, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for s.Next() {
		if s.Event().Type == llm.EventText {
			cancel()
		}
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", s.Err())
	}
}

// The fake's non-streamed JSON body has the shape of the API's chat.completion object: no
// field the API reference does not name, and every field it requires.
func TestFakeJSONBodyDecodes(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Blocks(llmtest.TextBlock("你好"), llmtest.ToolUse("t1", "Read", `{"path":"x"}`)).
		WithUsage(llm.Usage{InputTokens: 3, OutputTokens: 4, CacheReadInputTokens: 5}))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/chat/completions",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+llmtest.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cc struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role             string  `json:"role"`
				Content          *string `json:"content"`
				ReasoningContent string  `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			TotalTokens         int `json:"total_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cc); err != nil {
		t.Fatal(err)
	}
	if cc.Object != "chat.completion" || cc.Created == 0 || len(cc.Choices) != 1 {
		t.Fatalf("completion = %+v", cc)
	}
	ch := cc.Choices[0]
	if ch.Message.Role != "assistant" || ch.Message.Content == nil || *ch.Message.Content != "你好" || len(ch.Message.ToolCalls) != 1 ||
		ch.Message.ToolCalls[0].Type != "function" || ch.Message.ToolCalls[0].Function.Arguments != `{"path":"x"}` ||
		ch.FinishReason != "tool_calls" || cc.Usage.PromptTokens != 8 || cc.Usage.PromptTokensDetails.CachedTokens != 5 {
		t.Errorf("completion = %+v", cc)
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

// FuzzStreamBody feeds arbitrary chunk streams to the provider: it must never panic, and a
// stream that ends without error must have a stop reason and well-formed tool inputs.
func FuzzStreamBody(f *testing.F) {
	f.Add(llmtest.OpenAISSE(llmtest.Text("hello 世界"), "m"))
	f.Add(llmtest.OpenAISSE(llmtest.Blocks(llmtest.ThinkingBlock("t", ""), llmtest.ToolUse("1", "n", `{"a":[1]}`), llmtest.ToolUse("2", "n", `{}`)), "m"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":5,\"function\":{\"arguments\":\"{\"}}]},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	srv, current := streamServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		current.Store(&body)
		p, err := openai.New(llm.Config{BaseURL: srv.URL, Model: "m", Local: true, Retry: llm.RetryPolicy{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		_, resp, err := collect(t, p, t.Context(), userReq("x"))
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

// TestDocumentOmittedSaysSo: chat completions take no documents; a PDF the user attached in
// Claude Code is replaced by a note, in a message and in a tool result, never dropped silently.
func TestDocumentOmittedSaysSo(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Script(llmtest.Text("ok"))
	p := newProvider(t, srv.Config())
	doc := conversation.Block{Type: conversation.Document, Source: json.RawMessage(`{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}`)}
	req := &llm.Request{Messages: []conversation.Message{
		{Role: conversation.User, Content: []conversation.Block{doc, {Type: conversation.Text, Text: "summarise this pdf"}}},
		{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.ToolUse, ID: "call_1", Name: "Read", Input: json.RawMessage(`{}`)}}},
		{Role: conversation.User, Content: []conversation.Block{{Type: conversation.ToolResult, ToolUseID: "call_1", Content: []conversation.Block{{Type: conversation.Text, Text: "page 1"}, doc}}}},
	}}
	if _, err := llm.Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	user, _ := r.At("messages", 0, "content").(string)
	tool, _ := r.At("messages", 2, "content").(string)
	for what, got := range map[string]string{"user message": user, "tool message": tool} {
		if !strings.Contains(got, "[document omitted") {
			t.Errorf("%s = %q, want the document-omitted note", what, got)
		}
	}
	if !strings.Contains(user, "summarise this pdf") || !strings.Contains(tool, "page 1") {
		t.Errorf("text lost beside the document: user %q, tool %q", user, tool)
	}
}
