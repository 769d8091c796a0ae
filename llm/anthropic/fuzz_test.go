package anthropic

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// FuzzAnthropicStream feeds arbitrary bytes to the event decoder: it never panics, every
// event it returns has a type, and it always ends, in an *llm.Error or (after the stop event)
// io.EOF, within a number of events the body can hold.
func FuzzAnthropicStream(f *testing.F) {
	f.Add(llmtest.AnthropicSSE(llmtest.Text("hello 世界"), "m"))
	f.Add(llmtest.AnthropicSSE(llmtest.Blocks(llmtest.ThinkingBlock("t", "s"), llmtest.RedactedThinkingBlock("r"), llmtest.ToolUse("1", "n", `{"a":[1]}`)), "m"))
	f.Add([]byte("event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"input\":{\"x\":1}}}\r\n\r\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"))
	f.Add([]byte(": c\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\ndata: \"usage\":{\"input_tokens\":null}}\n\nevent: x\ndata: {\"type\":\"message_stop\"}\n\n"))
	ep := llm.Endpoint{Provider: llm.Anthropic, URL: "http://fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		s := newSource(&http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}, ep)
		defer s.Close()
		stopped := false
		for n := 0; ; n++ {
			ev, err := s.Recv()
			if err == io.EOF {
				if !stopped {
					t.Fatalf("io.EOF before a stop event from %q", body)
				}
				return
			}
			if err != nil {
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
				}
				return
			}
			if ev.Type < llm.EventBlockStart || ev.Type > llm.EventStop {
				t.Fatalf("event %+v has no type a source sends", ev)
			}
			stopped = stopped || ev.Type == llm.EventStop
			if n > 2*len(body)+16 {
				t.Fatalf("%d events from %d bytes", n, len(body))
			}
		}
	})
}
