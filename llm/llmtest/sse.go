package llmtest

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/strata-mem/strata/llm/internal/wire"
)

// SSEEvent is one server-sent event: an optional name and its data (lines joined by "\n").
type SSEEvent struct {
	Name string
	Data string
}

type sseEvent = SSEEvent

// writeSSE writes one event in the text/event-stream format.
func writeSSE(w *bytes.Buffer, ev SSEEvent) {
	if ev.Name != "" {
		fmt.Fprintf(w, "event: %s\n", ev.Name)
	}
	for _, line := range strings.Split(ev.Data, "\n") {
		fmt.Fprintf(w, "data: %s\n", line)
	}
	w.WriteString("\n")
}

// ParseSSE reads a text/event-stream body into events with the decoder the providers use
// (llm/internal/wire): "event:" names the event, "data:" lines accumulate (joined by "\n"), a
// blank line dispatches, lines starting with ":" are comments, one space after the colon is
// dropped, "\r\n" and "\r" end a line too, and an event not ended by a blank line is
// discarded. Events with neither name nor data are skipped.
func ParseSSE(r io.Reader) ([]SSEEvent, error) {
	d := wire.NewDecoder(r)
	var out []SSEEvent
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, SSEEvent{Name: ev.Name, Data: string(ev.Data)})
	}
}

// WriteSSE encodes events in the text/event-stream format; ParseSSE reads them back.
func WriteSSE(events []SSEEvent) []byte {
	var buf bytes.Buffer
	for _, ev := range events {
		writeSSE(&buf, ev)
	}
	return buf.Bytes()
}

// AnthropicSSE is the text/event-stream body the fake Anthropic server sends for reply, for
// tests and fuzz seeds that need the raw bytes.
func AnthropicSSE(reply Reply, model string) []byte {
	return WriteSSE(anthropicEvents(reply, model, 1))
}

// OpenAISSE is the chunk stream (ending in "data: [DONE]") the fake OpenAI server sends for
// reply, with the usage chunk.
func OpenAISSE(reply Reply, model string) []byte {
	return WriteSSE(openaiEvents(reply, model, 1, true))
}
