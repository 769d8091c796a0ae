package llmtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
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

// ParseSSE reads a text/event-stream body into events, following the SSE rules strata's
// providers rely on: "event:" names the event, "data:" lines accumulate (joined by "\n"), a
// blank line dispatches, lines starting with ":" are comments, one space after the colon is
// dropped, "\r\n" ends a line too, and an event not ended by a blank line is discarded.
// Events with neither name nor data are skipped.
func ParseSSE(r io.Reader) ([]SSEEvent, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	var out []SSEEvent
	var name string
	var data []string
	hasData := false
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if name != "" || hasData {
				out = append(out, SSEEvent{Name: name, Data: strings.Join(data, "\n")})
			}
			name, data, hasData = "", nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name = value
		case "data":
			data = append(data, value)
			hasData = true
		}
	}
	return out, sc.Err()
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
