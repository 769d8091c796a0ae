package anthropic

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/internal/wire"
)

// event is one event of a streamed Messages API reply; its "type" field says which of the
// other fields are set.
type event struct {
	Type    string `json:"type"`
	Index   int64  `json:"index"`
	Message struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	// Usage of a message_delta: cumulative; the input counts only when present.
	Usage struct {
		OutputTokens             int64  `json:"output_tokens"`
		InputTokens              *int64 `json:"input_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// source maps one attempt's SSE events onto llm events.
type source struct {
	body    io.Closer
	dec     *wire.Decoder
	status  int         // the reply's status, which an error event inside the stream carries
	header  http.Header // and its header
	ep      llm.Endpoint
	ev      event // decoded in place: one allocation for the stream, not one per event
	pending []llm.Event
	index   map[int64]int // the API's block index → ours (unsupported block kinds are skipped)
	next    int
	usage   llm.Usage
	stop    llm.StopReason
	stopped bool
}

func newSource(resp *http.Response, ep llm.Endpoint) *source {
	return &source{body: resp.Body, dec: wire.NewDecoder(resp.Body), status: resp.StatusCode, header: resp.Header, ep: ep, index: map[int64]int{}}
}

func (s *source) Close() error { return s.body.Close() }

// Recv implements llm.Source. SSE events named "ping" or nothing are skipped, one named
// "error" ends the attempt with the error it carries, and any other is decoded by the "type"
// of its data.
func (s *source) Recv() (llm.Event, error) {
	for len(s.pending) == 0 {
		if s.stopped {
			return llm.Event{}, io.EOF
		}
		ev, err := s.dec.Next()
		if err == io.EOF {
			return llm.Event{}, s.ep.Truncated()
		}
		if err != nil {
			return llm.Event{}, err // llm.Stream classifies transport errors
		}
		switch ev.Name {
		case "", "ping":
			continue
		case "error":
			return llm.Event{}, s.ep.ReplyError(s.status, ev.Data, s.header)
		}
		if len(ev.Data) == 0 {
			continue
		}
		s.ev = event{}
		if err := json.Unmarshal(ev.Data, &s.ev); err != nil {
			return llm.Event{}, s.ep.Malformed(err)
		}
		s.decode(&s.ev)
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, nil
}

func (s *source) emit(evs ...llm.Event) { s.pending = append(s.pending, evs...) }

func (s *source) decode(ev *event) {
	switch ev.Type {
	case "message_start":
		m := &ev.Message
		s.usage = llm.Usage{InputTokens: int(m.Usage.InputTokens), OutputTokens: int(m.Usage.OutputTokens),
			CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens), CacheReadInputTokens: int(m.Usage.CacheReadInputTokens)}
		s.emit(llm.Event{Type: llm.EventStart, ID: m.ID, Model: m.Model}, llm.Event{Type: llm.EventUsage, Usage: s.usage})
	case "content_block_start":
		cb := &ev.ContentBlock
		var b conversation.Block
		switch cb.Type {
		case "text":
			b.Type = conversation.Text
		case "thinking":
			b.Type = conversation.Thinking
		case "tool_use":
			b = conversation.Block{Type: conversation.ToolUse, ID: cb.ID, Name: cb.Name}
		case "redacted_thinking":
			b = conversation.Block{Type: conversation.RedactedThinking, Data: cb.Data}
		default:
			return // server tools and the like: not part of strata's model
		}
		i := s.next
		s.next++
		s.index[ev.Index] = i
		s.emit(llm.Event{Type: llm.EventBlockStart, Index: i, Block: &b})
		switch {
		case cb.Text != "":
			s.emit(llm.Event{Type: llm.EventText, Index: i, Text: cb.Text})
		case cb.Thinking != "":
			s.emit(llm.Event{Type: llm.EventThinking, Index: i, Text: cb.Thinking})
		}
		if cb.Signature != "" {
			s.emit(llm.Event{Type: llm.EventSignature, Index: i, Text: cb.Signature})
		}
		if b.Type == conversation.ToolUse {
			if in := startInput(cb.Input); in != "" {
				s.emit(llm.Event{Type: llm.EventToolInput, Index: i, Text: in})
			}
		}
	case "content_block_delta":
		i, ok := s.index[ev.Index]
		if !ok {
			return
		}
		d := &ev.Delta
		switch d.Type {
		case "text_delta":
			s.emit(llm.Event{Type: llm.EventText, Index: i, Text: d.Text})
		case "thinking_delta":
			s.emit(llm.Event{Type: llm.EventThinking, Index: i, Text: d.Thinking})
		case "signature_delta":
			s.emit(llm.Event{Type: llm.EventSignature, Index: i, Text: d.Signature})
		case "input_json_delta":
			s.emit(llm.Event{Type: llm.EventToolInput, Index: i, Text: d.PartialJSON})
		}
	case "content_block_stop":
		if i, ok := s.index[ev.Index]; ok {
			s.emit(llm.Event{Type: llm.EventBlockStop, Index: i})
		}
	case "message_delta":
		u := &ev.Usage
		s.usage.OutputTokens = int(u.OutputTokens)
		if u.InputTokens != nil {
			s.usage.InputTokens = int(*u.InputTokens)
		}
		if u.CacheCreationInputTokens != nil {
			s.usage.CacheCreationInputTokens = int(*u.CacheCreationInputTokens)
		}
		if u.CacheReadInputTokens != nil {
			s.usage.CacheReadInputTokens = int(*u.CacheReadInputTokens)
		}
		if ev.Delta.StopReason != "" {
			s.stop = llm.StopReason(ev.Delta.StopReason)
		}
		s.emit(llm.Event{Type: llm.EventUsage, Usage: s.usage})
	case "message_stop":
		s.stopped = true
		if s.stop == "" {
			s.stop = llm.StopEndTurn
		}
		s.emit(llm.Event{Type: llm.EventStop, StopReason: s.stop})
	}
}

// startInput is the input a tool_use block starts with, compacted with its keys sorted, or ""
// when it is empty: the API starts every block with {} and streams the input in deltas.
func startInput(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	in, err := json.Marshal(v)
	if err != nil || string(in) == "{}" || string(in) == "null" {
		return ""
	}
	return string(in)
}
