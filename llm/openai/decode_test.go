package openai_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/llm/openai"
)

// chunks builds a stream body of data lines, one event each.
func chunks(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

const (
	first  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	hello  = `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"你好 world"},"finish_reason":null}]}`
	finish = `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	usage  = `{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25,"prompt_tokens_details":{"cached_tokens":8}}}`
	done   = `[DONE]`
)

func fin(reason string) string { return strings.Replace(finish, `"stop"`, `"`+reason+`"`, 1) }

// streamCases are chunk streams covering every delta kind and the SSE syntax a server may
// use; TestDecodeGolden pins what the provider makes of each.
var streamCases = []struct{ name, body string }{
	{"text", string(llmtest.OpenAISSE(llmtest.Text("Hello, 世界!").WithUsage(llm.Usage{InputTokens: 5, OutputTokens: 3, CacheReadInputTokens: 2}), "gpt-x"))},
	{"blocks", string(llmtest.OpenAISSE(llmtest.Blocks(llmtest.ThinkingBlock("想一想", ""), llmtest.TextBlock("Reading."),
		llmtest.ToolUse("call_1", "Read", `{"path":"a.go"}`), llmtest.ToolUse("call_2", "Read", `{"path":"b.go"}`)), "gpt-x"))},
	{"crlf", strings.ReplaceAll(chunks(first, hello, finish, usage, done), "\n", "\r\n")},
	{"syntax", ": keep-alive\n\nevent: chunk\nid: 1\ndata: " + first + "\n\n" +
		"data: {\"choices\":[{\"index\":0,\n" + "data: \"delta\":{\"content\":\"two lines\"}}]}\n\n" +
		"data:" + finish + "\n\n\n\n" + chunks(done)},
	{"reasoning", chunks(first, `{"choices":[{"index":0,"delta":{"reasoning":"r1","reasoning_content":null}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"r2","reasoning":"ignored"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"","content":"answer"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"again"}}]}`, finish, done)},
	{"tools-interleaved", chunks(first, hello,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"B","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"A","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}},{"index":0,"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"after"}}]}`, fin("stop"), usage, done)},
	{"refusal", chunks(first, `{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."}}]}`, fin("content_filter"), done)},
	{"length", chunks(first, hello, fin("length"), done)},
	{"function-call", chunks(first, fin("function_call"), done)},
	{"other-choice", chunks(first, `{"choices":[{"index":1,"delta":{"content":"second choice"},"finish_reason":"stop"}]}`, hello, finish, done)},
	{"usage-partial", chunks(first, hello, `{"choices":[],"usage":null}`, `{"choices":[],"usage":{"completion_tokens":3}}`, finish,
		`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3}}`, done)},
	{"no-done", chunks(first, hello, finish)},
	{"done-without-finish", chunks(first, hello, done)},
	{"done-prefix", chunks(first, hello, finish, "[DONE] bye", hello)},
	{"after-done", chunks(first, finish, done, hello, `{"error":{"message":"late"}}`)},
	{"error-chunk", chunks(first, `{"error":{"message":"The server is overloaded","type":"server_error","code":"server_error"}}`)},
	{"error-after-content", chunks(first, hello, `{"error":{"message":"boom","type":"","code":502}}`)},
	{"error-string", chunks(`{"error":"quota exceeded"}`)},
	{"truncated", chunks(first, hello)},
	{"malformed", chunks(first, `{"choices":[{"index":0,`)},
	{"malformed-reasoning", chunks(first, `{"choices":[{"index":0,"delta":{"reasoning_content":5}}]}`)},
	{"empty", ""},
}

func newTraceProvider(t testing.TB) func(string) llm.Provider {
	return func(url string) llm.Provider {
		p, err := openai.New(llm.Config{BaseURL: url, Model: "m", Local: true, Retry: llm.RetryPolicy{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestDecodeGolden pins the events decoded from each body in streamCases.
func TestDecodeGolden(t *testing.T) {
	for _, c := range streamCases {
		t.Run(c.name, func(t *testing.T) {
			got := llmtest.Trace(t, http.StatusOK, []byte(c.body), newTraceProvider(t), userReq("x"))
			llmtest.CheckGolden(t, filepath.Join("testdata", "stream", c.name+".txt"), got, *update)
		})
	}
}

// TestHTTPErrorGolden pins how error statuses and their bodies are classified.
func TestHTTPErrorGolden(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
	}{
		{"400", 400, `{"error":{"message":"Invalid 'messages': 你好","type":"invalid_request_error","param":"messages","code":null}}`},
		{"401", 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{"401-api-error", 401, `{"error":{"message":"Internal error","type":"api_error","code":"api_error"}}`},
		{"404", 404, `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error"}}`},
		{"429", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
		{"500", 500, `{"error":{"message":"The server had an error","type":"server_error","code":null}}`},
		{"502-html", 502, `<html><body>Bad gateway</body></html>`},
		{"503-empty", 503, ``},
		{"400-string-error", 400, `{"error":"model is required"}`},
		{"400-detail", 400, `{"detail":"Not Found","object":"error","message":"vllm style","type":"BadRequestError","code":400}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := llmtest.Trace(t, c.status, []byte(c.body), newTraceProvider(t), userReq("x"))
			llmtest.CheckGolden(t, filepath.Join("testdata", "http", c.name+".txt"), got, *update)
		})
	}
}
