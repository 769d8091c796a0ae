package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/internal/wire"
)

// chunk is one chat.completion.chunk of a streamed reply, or an error object in its place.
type chunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index int64 `json:"index"`
		Delta struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
			// Reasoning as vLLM, llama.cpp and DeepSeek (reasoning_content) or Ollama
			// (reasoning) stream it; raw, because null and absent both mean none.
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        []struct {
				Index    int64  `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        *int64 `json:"prompt_tokens"`
		CompletionTokens    int64  `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// source maps one attempt's chunks onto llm events.
type source struct {
	body     io.Closer
	dec      *wire.Decoder
	ep       llm.Endpoint
	pending  []llm.Event
	started  bool
	next     int // our next block index
	open     int // the open text or thinking block, -1 if none
	openType conversation.BlockType
	tools    map[int64]int // tool call index → block index
	toolOpen []int         // tool blocks still open
	hadTool  bool
	finish   string
	done     bool
}

func newSource(resp *http.Response, ep llm.Endpoint) *source {
	return &source{body: resp.Body, dec: wire.NewDecoder(resp.Body), ep: ep, tools: map[int64]int{}, open: -1}
}

func (s *source) Close() error { return s.body.Close() }

func (s *source) emit(evs ...llm.Event) { s.pending = append(s.pending, evs...) }

// Recv implements llm.Source. Event names are ignored; "[DONE]" (or the end of the body) ends
// the reply, which is complete only when a finish_reason arrived; a chunk holding an error
// object is the server failing mid-reply.
func (s *source) Recv() (llm.Event, error) {
	for len(s.pending) == 0 {
		if s.done {
			return llm.Event{}, io.EOF
		}
		ev, err := s.dec.Next()
		if err != nil && err != io.EOF {
			return llm.Event{}, err // llm.Stream classifies transport errors
		}
		if err == io.EOF || bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
			if s.finish == "" {
				return llm.Event{}, s.ep.Truncated()
			}
			s.closeAll()
			s.emit(llm.Event{Type: llm.EventStop, StopReason: s.stopReason()})
			s.done = true
			continue
		}
		if len(ev.Data) == 0 {
			continue
		}
		var c chunk
		err = json.Unmarshal(ev.Data, &c)
		if len(c.Error) > 0 && string(c.Error) != "null" {
			// An error inside a 200 stream is the server failing mid-reply.
			return llm.Event{}, s.ep.ReplyError(http.StatusInternalServerError, ev.Data, nil)
		}
		if err != nil {
			return llm.Event{}, s.ep.Malformed(err)
		}
		if err := s.decode(&c); err != nil {
			return llm.Event{}, s.ep.Malformed(err)
		}
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, nil
}

func (s *source) stopReason() llm.StopReason {
	switch s.finish {
	case "length":
		return llm.StopMaxTokens
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "content_filter":
		return llm.StopRefusal
	}
	if s.hadTool {
		return llm.StopToolUse // some local servers say "stop" after tool calls
	}
	return llm.StopEndTurn
}

// text appends a text or thinking delta, opening a block of that type when needed.
func (s *source) text(t conversation.BlockType, delta string) {
	if delta == "" {
		return
	}
	if s.open < 0 || s.openType != t {
		s.closeOpen()
		s.open, s.openType = s.next, t
		s.next++
		s.emit(llm.Event{Type: llm.EventBlockStart, Index: s.open, Block: &conversation.Block{Type: t}})
	}
	et := llm.EventText
	if t == conversation.Thinking {
		et = llm.EventThinking
	}
	s.emit(llm.Event{Type: et, Index: s.open, Text: delta})
}

func (s *source) closeOpen() {
	if s.open >= 0 {
		s.emit(llm.Event{Type: llm.EventBlockStop, Index: s.open})
		s.open = -1
	}
}

func (s *source) closeAll() {
	s.closeOpen()
	sort.Ints(s.toolOpen)
	for _, i := range s.toolOpen {
		s.emit(llm.Event{Type: llm.EventBlockStop, Index: i})
	}
	s.toolOpen = nil
}

func (s *source) decode(c *chunk) error {
	if !s.started {
		s.started = true
		s.emit(llm.Event{Type: llm.EventStart, ID: c.ID, Model: c.Model})
	}
	if u := c.Usage; u != nil && u.PromptTokens != nil {
		cached := int(u.PromptTokensDetails.CachedTokens)
		s.emit(llm.Event{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: int(*u.PromptTokens) - cached,
			CacheReadInputTokens: cached, OutputTokens: int(u.CompletionTokens)}})
	}
	for ci := range c.Choices {
		ch := &c.Choices[ci]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}} {
			if len(f.raw) > 0 && string(f.raw) != "null" {
				var r string
				if err := json.Unmarshal(f.raw, &r); err != nil {
					return fmt.Errorf("delta.%s: %w", f.name, err)
				}
				s.text(conversation.Thinking, r)
				break
			}
		}
		s.text(conversation.Text, d.Content)
		if d.Refusal != "" {
			s.text(conversation.Text, d.Refusal)
		}
		for _, tc := range d.ToolCalls {
			i, ok := s.tools[tc.Index]
			if !ok {
				s.closeOpen()
				i = s.next
				s.next++
				s.tools[tc.Index] = i
				s.toolOpen = append(s.toolOpen, i)
				s.hadTool = true
				id := tc.ID
				if id == "" {
					id = fmt.Sprintf("call_%d", i)
				}
				s.emit(llm.Event{Type: llm.EventBlockStart, Index: i, Block: &conversation.Block{Type: conversation.ToolUse, ID: id, Name: tc.Function.Name}})
			}
			if tc.Function.Arguments != "" {
				s.emit(llm.Event{Type: llm.EventToolInput, Index: i, Text: tc.Function.Arguments})
			}
		}
		if ch.FinishReason != "" {
			s.finish = ch.FinishReason
		}
	}
	return nil
}
