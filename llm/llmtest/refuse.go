package llmtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Refusal is a request the fake answered with 400 because the real API would have: its
// messages break a rule the API enforces.
type Refusal struct {
	// Call is the call's number (1-based, as in Requests).
	Call int
	// Param is where the problem is ("messages.3", OpenAI's "messages.[3].role").
	Param string
	// Message is the error message, worded as the real API words it.
	Message string
}

func (r Refusal) String() string { return fmt.Sprintf("call %d: %s", r.Call, r.Message) }

// Refused returns the calls answered with 400 because of their messages, in order.
func (s *Server) Refused() []Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Refusal(nil), s.refused...)
}

// refusal checks the messages of a decoded request body as the real API does and returns what
// it refuses first, or nil. A body without a messages array is left to the rest of the fake.
func (s *Server) refusal(body map[string]any) *Refusal {
	msgs, ok := body["messages"].([]any)
	if !ok {
		return nil
	}
	if s.Format == OpenAI {
		return openaiRefusal(msgs)
	}
	return anthropicRefusal(msgs)
}

// anthropicRefusal applies the Messages API's rules: at least one message, the first the
// user's, no empty content or blank text block, tool_use ids unique, every
// tool_use answered by a tool_result at the start of the next message, every tool_result
// answering a tool_use of the message before.
func anthropicRefusal(msgs []any) *Refusal {
	refuse := func(param, format string, args ...any) *Refusal {
		return &Refusal{Param: param, Message: param + ": " + fmt.Sprintf(format, args...)}
	}
	msgs = combined(msgs)
	if len(msgs) == 0 {
		return refuse("messages", "at least one message is required")
	}
	ids := map[string]bool{} // tool_use ids so far
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if i == 0 && role != "user" {
			return refuse("messages", `first message must use the "user" role`)
		}
		blocks := contentBlocks(m["content"])
		if len(blocks) == 0 && !(role == "assistant" && i == len(msgs)-1) {
			return refuse(fmt.Sprintf("messages.%d", i), "all messages must have non-empty content except for the optional final assistant message")
		}
		if r := thinkingRefusal(i, blocks); r != nil {
			return r
		}
		for j, b := range blocks {
			if b["type"] != "text" {
				continue
			}
			switch text, _ := b["text"].(string); {
			case text == "":
				return refuse(fmt.Sprintf("messages.%d.content.%d.text", i, j), "text content blocks must be non-empty")
			case strings.TrimSpace(text) == "":
				return refuse(fmt.Sprintf("messages.%d.content.%d.text", i, j), "text content blocks must contain non-whitespace text")
			}
		}
		if role == "user" {
			calls := map[string]bool{}
			if i > 0 {
				prev, _ := msgs[i-1].(map[string]any)
				for _, b := range contentBlocks(prev["content"]) {
					if b["type"] == "tool_use" {
						id, _ := b["id"].(string)
						calls[id] = true
					}
				}
			}
			for j, b := range blocks {
				if b["type"] != "tool_result" {
					continue
				}
				if id, _ := b["tool_use_id"].(string); !calls[id] {
					return refuse(fmt.Sprintf("messages.%d.content.%d", i, j), "unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", id)
				}
			}
			continue
		}
		// An assistant message: its calls must be answered by the results that open the next
		// message.
		var open []string
		answered := map[string]bool{}
		if i+1 < len(msgs) {
			next, _ := msgs[i+1].(map[string]any)
			if next["role"] == "user" {
				for _, b := range contentBlocks(next["content"]) {
					if b["type"] != "tool_result" {
						break
					}
					id, _ := b["tool_use_id"].(string)
					answered[id] = true
				}
			}
		}
		for j, b := range blocks {
			if b["type"] != "tool_use" {
				continue
			}
			id, _ := b["id"].(string)
			if ids[id] {
				return refuse(fmt.Sprintf("messages.%d.content.%d", i, j), "`tool_use` ids must be unique")
			}
			ids[id] = true
			if !answered[id] {
				open = append(open, id)
			}
		}
		if len(open) > 0 {
			return refuse(fmt.Sprintf("messages.%d", i), "`tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", strings.Join(open, ", "))
		}
	}
	return nil
}

// combined is the conversation as the API reads it: system messages (Claude Code 2.1.3xx sends
// them mid-conversation, one with empty content) are instructions, not turns, and consecutive
// messages of one role are combined into one. An empty message stays, to be refused.
func combined(msgs []any) []any {
	out := make([]any, 0, len(msgs))
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		if m["role"] == "system" {
			continue
		}
		if n := len(out); n > 0 {
			prev := out[n-1].(map[string]any)
			a, b := contentBlocks(prev["content"]), contentBlocks(m["content"])
			if prev["role"] == m["role"] && len(a) > 0 && len(b) > 0 {
				content := make([]any, 0, len(a)+len(b))
				for _, x := range append(a, b...) {
					content = append(content, x)
				}
				out[n-1] = map[string]any{"role": m["role"], "content": content}
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// thinkingRefusal applies the API's rules on the thinking blocks of message i: a thinking block
// has its signature (the API checks it and refuses one that is missing or empty) and a
// redacted one its data, and an assistant message does not end with one (a reply cut off
// after its thinking, sent back as it was).
func thinkingRefusal(i int, blocks []map[string]any) *Refusal {
	refuse := func(param, format string, args ...any) *Refusal {
		return &Refusal{Param: param, Message: param + ": " + fmt.Sprintf(format, args...)}
	}
	for j, b := range blocks {
		param := fmt.Sprintf("messages.%d.content.%d", i, j)
		switch b["type"] {
		case "thinking":
			if sig, _ := b["signature"].(string); sig == "" {
				return refuse(param+".thinking.signature", "Field required")
			}
		case "redacted_thinking":
			if data, _ := b["data"].(string); data == "" {
				return refuse(param+".redacted_thinking.data", "Field required")
			}
		default:
			continue
		}
		if j == len(blocks)-1 {
			return refuse(param, "The final block in an assistant message cannot be `%s`.", b["type"])
		}
	}
	return nil
}

// contentBlocks returns a message's content as blocks: a string is one text block.
func contentBlocks(content any) []map[string]any {
	switch c := content.(type) {
	case string:
		if c == "" {
			return nil
		}
		return []map[string]any{{"type": "text", "text": c}}
	case []any:
		out := make([]map[string]any, 0, len(c))
		for _, b := range c {
			if m, ok := b.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// openaiRefusal applies chat completions' rules: every assistant tool_calls answered by tool
// messages before the next other message, every tool message answering such a call, no empty
// user content, no assistant message without content or tool calls. Like the strict
// OpenAI-compatible servers, it also wants the first message after the system prompt to be
// the user's.
func openaiRefusal(msgs []any) *Refusal {
	refuse := func(param, format string, args ...any) *Refusal {
		return &Refusal{Param: param, Message: fmt.Sprintf(format, args...)}
	}
	if len(msgs) == 0 {
		return refuse("messages", "[] is too short - 'messages'")
	}
	var open []string          // calls of the last assistant message not yet answered
	calls := map[string]bool{} // all calls of that message
	inTools := false           // only tool messages since that assistant message
	first := true
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if role == "system" || role == "developer" {
			continue
		}
		if first && role != "user" {
			return refuse(fmt.Sprintf("messages.[%d].role", i), "Invalid parameter: the first message after the system prompt must have role 'user', not '%s'.", role)
		}
		first = false
		if role != "tool" && len(open) > 0 {
			return refuse(fmt.Sprintf("messages.[%d].role", i), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
		}
		switch role {
		case "tool":
			id, _ := m["tool_call_id"].(string)
			if !inTools || !calls[id] {
				return refuse(fmt.Sprintf("messages.[%d].role", i), "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			for k, o := range open {
				if o == id {
					open = append(open[:k:k], open[k+1:]...)
					break
				}
			}
			continue
		case "assistant":
			tc, _ := m["tool_calls"].([]any)
			if m["content"] == nil && len(tc) == 0 {
				return refuse(fmt.Sprintf("messages.[%d].content", i), "Invalid value for 'content': expected a string, got null.")
			}
			open, calls, inTools = nil, map[string]bool{}, true
			for _, c := range tc {
				cm, _ := c.(map[string]any)
				id, _ := cm["id"].(string)
				open = append(open, id)
				calls[id] = true
			}
			continue
		case "user":
			if s, ok := m["content"].(string); ok && s == "" || m["content"] == nil {
				return refuse(fmt.Sprintf("messages.[%d].content", i), "Invalid 'messages[%d].content': string too short. Expected a string with minimum length 1, but got an empty string instead.", i)
			}
			if a, ok := m["content"].([]any); ok && len(a) == 0 {
				return refuse(fmt.Sprintf("messages.[%d].content", i), "Invalid 'messages[%d].content': empty array. Expected an array with minimum length 1, but got an empty array instead.", i)
			}
		}
		inTools = false
	}
	if len(open) > 0 {
		return refuse(fmt.Sprintf("messages.[%d].role", len(msgs)-1), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
	}
	return nil
}

// writeRefusal answers a refused request with 400 and the format's error body.
func (s *Server) writeRefusal(w http.ResponseWriter, r Refusal) {
	if s.Format == Anthropic {
		s.writeError(w, Fault{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: r.Message})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, "%s\n", mustJSON(map[string]any{"error": map[string]any{"message": r.Message, "type": "invalid_request_error", "param": r.Param, "code": nil}}))
}
