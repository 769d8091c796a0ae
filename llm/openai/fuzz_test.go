package openai

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// FuzzOpenAIStream feeds arbitrary bytes to the event decoder: it never panics, every
// event it returns has a type, and it always ends, in an *llm.Error or (after the stop event)
// io.EOF, within a number of events the body can hold.
func FuzzOpenAIStream(f *testing.F) {
	f.Add(llmtest.OpenAISSE(llmtest.Text("hello 世界"), "m"))
	f.Add(llmtest.OpenAISSE(llmtest.Blocks(llmtest.ThinkingBlock("t", ""), llmtest.ToolUse("1", "n", `{"a":[1]}`), llmtest.ToolUse("2", "n", `{}`)), "m"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":5,\"function\":{\"arguments\":\"{\"}}]},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"))
	f.Add([]byte(": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"reasoning\":\"r\",\ndata: \"content\":\"c\",\"refusal\":\"no\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3}}\n\n"))
	ep := llm.Endpoint{Provider: llm.OpenAI, URL: "http://fuzz"}
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
