package anthropic_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
)

// sse builds a stream body from "event|data" pairs (an empty event leaves the line out).
func sse(pairs ...string) string {
	var b strings.Builder
	for _, p := range pairs {
		name, data, _ := strings.Cut(p, "|")
		if name != "" {
			b.WriteString("event: " + name + "\n")
		}
		b.WriteString("data: " + data + "\n\n")
	}
	return b.String()
}

const (
	msgStart  = `message_start|{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":3,"cache_read_input_tokens":4}}}`
	textStart = `content_block_start|{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	textDelta = `content_block_delta|{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"你好 world"}}`
	stop0     = `content_block_stop|{"type":"content_block_stop","index":0}`
	msgDelta  = `message_delta|{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`
	msgStop   = `message_stop|{"type":"message_stop"}`
)

// streamCases are SSE bodies covering every event kind and the SSE syntax a server may use;
// TestDecodeGolden pins what the provider makes of each.
var streamCases = []struct{ name, body string }{
	{"text", string(llmtest.AnthropicSSE(llmtest.Text("Hello, 世界!").WithUsage(llm.Usage{InputTokens: 5, OutputTokens: 3, CacheReadInputTokens: 2}), "claude-x"))},
	{"blocks", string(llmtest.AnthropicSSE(llmtest.Blocks(llmtest.ThinkingBlock("想一想", "sig=="), llmtest.RedactedThinkingBlock("Zm9v"),
		llmtest.TextBlock("Reading."), llmtest.ToolUse("toolu_1", "Read", `{"path":"a.go"}`)), "claude-x"))},
	{"crlf", strings.ReplaceAll(sse(msgStart, textStart, textDelta, stop0, msgDelta, msgStop), "\n", "\r\n")},
	{"syntax", ": a comment\n\nevent:message_start\ndata:" + strings.TrimPrefix(msgStart, "message_start|") + "\n\n" +
		"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
		"event: content_block_start\nid: 7\nretry: 10\ndata: {\"type\":\"content_block_start\",\ndata: \"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\ndata: \"delta\":{\"type\":\"text_delta\",\"text\":\"two lines\"}}\n\n" +
		"event: ignored\n\n" + sse(stop0, msgDelta, msgStop)},
	{"start-content", sse(msgStart,
		`content_block_start|{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"pre"}}`,
		`content_block_start|{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"th","signature":"s1"}}`,
		`content_block_start|{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{"z":1,"a":[true]}}}`,
		`content_block_start|{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"t2","name":"Bash","input":null}}`,
		`content_block_stop|{"type":"content_block_stop","index":3}`, `content_block_stop|{"type":"content_block_stop","index":2}`,
		`content_block_stop|{"type":"content_block_stop","index":1}`, stop0,
		`message_delta|{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9,"input_tokens":11,"cache_creation_input_tokens":0,"cache_read_input_tokens":null}}`, msgStop)},
	{"server-tool-skipped", sse(msgStart,
		`content_block_start|{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}}`,
		`content_block_delta|{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
		`content_block_stop|{"type":"content_block_stop","index":0}`,
		`content_block_start|{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`content_block_delta|{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}`,
		`content_block_delta|{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ok"}}`,
		`content_block_delta|{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"nowhere"}}`,
		`content_block_stop|{"type":"content_block_stop","index":1}`, `content_block_stop|{"type":"content_block_stop","index":9}`,
		`future_event|{"type":"future_event","x":1}`, msgDelta, msgStop)},
	{"type-from-data", sse(msgStart, `ping|{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"a"}}`,
		`message_stop|{"type":"content_block_stop","index":0}`, `x|{"type":"message_stop"}`)},
	{"no-event-names", sse("|"+strings.TrimPrefix(msgStart, "message_start|"), "|"+`{"type":"message_stop"}`)},
	{"empty-data", "event: message_start\ndata:\n\n" + sse(msgStart, msgStop)},
	{"after-stop", sse(msgStart, msgStop, textStart, textDelta)},
	{"stop-default-reason", sse(msgStart, textStart, textDelta, stop0, msgStop)},
	{"pause", sse(msgStart, `message_delta|{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":2}}`, msgStop)},
	{"error-overloaded", sse(msgStart, `error|{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
	{"error-after-content", sse(msgStart, textStart, textDelta, `error|{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)},
	{"error-invalid", sse(msgStart, `error|{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`)},
	{"error-not-json", sse(msgStart, `error|upstream connect error`)},
	{"error-empty", "event: error\ndata:\n\n"},
	{"truncated", sse(msgStart, textStart, textDelta)},
	{"unterminated", sse(msgStart, textStart, textDelta, stop0, msgDelta) + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n"},
	{"malformed", sse(msgStart, `content_block_start|{"type":"content_block_start","index":0,`)},
	{"malformed-type", sse(msgStart, `content_block_start|{"type":"content_block_start","index":"zero","content_block":{"type":"text"}}`)},
	{"not-json-array", sse(msgStart, `content_block_delta|[1,2]`)},
	{"empty", ""},
}

func newTraceProvider(t testing.TB) func(string) llm.Provider {
	return func(url string) llm.Provider {
		p, err := anthropic.New(llm.Config{BaseURL: url, APIKey: "k", Model: "m", Retry: llm.RetryPolicy{MaxAttempts: 1}})
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
		{"400", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 你好 too large"}}`},
		{"401", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
		{"401-api-error", 401, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
		{"403", 403, `{"type":"error","error":{"type":"permission_error","message":"no access"}}`},
		{"404", 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`},
		{"413", 413, `{"type":"error","error":{"type":"request_too_large","message":"too big"}}`},
		{"429", 429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{"500", 500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
		{"500-overloaded", 500, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"502-html", 502, `<html><body>Bad gateway</body></html>`},
		{"503-empty", 503, ``},
		{"529", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"422-no-type", 422, `{"error":{"message":"unprocessable"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := llmtest.Trace(t, c.status, []byte(c.body), newTraceProvider(t), userReq("x"))
			llmtest.CheckGolden(t, filepath.Join("testdata", "http", c.name+".txt"), got, *update)
		})
	}
}
