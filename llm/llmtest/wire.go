package llmtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// chunkSize is how many bytes of text go into one delta, so that streams have many events.
const chunkSize = 8

func anthropicUsage(u llm.Usage) map[string]any {
	return map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
		"cache_creation_input_tokens": u.CacheCreationInputTokens, "cache_read_input_tokens": u.CacheReadInputTokens}
}

func anthropicBlock(b conversation.Block) map[string]any {
	switch b.Type {
	case conversation.Thinking:
		return map[string]any{"type": "thinking", "thinking": b.Thinking, "signature": b.Signature}
	case conversation.RedactedThinking:
		return map[string]any{"type": "redacted_thinking", "data": b.Data}
	case conversation.ToolUse:
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": in}
	default:
		return map[string]any{"type": "text", "text": b.Text}
	}
}

func anthropicMessage(r Reply, model string) map[string]any {
	content := []any{}
	for _, b := range r.Blocks {
		content = append(content, anthropicBlock(b))
	}
	return map[string]any{"id": "msg_llmtest", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": string(r.stopReason()), "stop_sequence": nil, "usage": anthropicUsage(r.Usage)}
}

// anthropicEvents is the event sequence of a streamed Messages API reply.
func anthropicEvents(r Reply, model string, call int) []SSEEvent {
	var evs []SSEEvent
	add := func(name string, v any) { evs = append(evs, SSEEvent{Name: name, Data: mustJSON(v)}) }
	start := r.Usage
	start.OutputTokens = 1
	add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_llmtest_%d", call), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(start)}})
	add("ping", map[string]any{"type": "ping"})
	for i, b := range r.Blocks {
		var empty map[string]any
		switch b.Type {
		case conversation.Thinking:
			empty = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		case conversation.RedactedThinking:
			empty = map[string]any{"type": "redacted_thinking", "data": b.Data}
		case conversation.ToolUse:
			empty = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
		default:
			empty = map[string]any{"type": "text", "text": ""}
		}
		add("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": empty})
		delta := func(d map[string]any) {
			add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b.Type {
		case conversation.Thinking:
			for _, c := range chunks(b.Thinking, chunkSize) {
				delta(map[string]any{"type": "thinking_delta", "thinking": c})
			}
			if b.Signature != "" {
				delta(map[string]any{"type": "signature_delta", "signature": b.Signature})
			}
		case conversation.ToolUse:
			for _, c := range chunks(string(b.Input), chunkSize) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": c})
			}
		case conversation.RedactedThinking:
		default:
			for _, c := range chunks(b.Text, chunkSize) {
				delta(map[string]any{"type": "text_delta", "text": c})
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": string(r.stopReason()), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": r.Usage.OutputTokens}})
	add("message_stop", map[string]any{"type": "message_stop"})
	return evs
}

var finishReasons = map[llm.StopReason]string{llm.StopEndTurn: "stop", llm.StopToolUse: "tool_calls",
	llm.StopMaxTokens: "length", llm.StopRefusal: "content_filter", llm.StopSequence: "stop"}

func openaiUsage(u llm.Usage) map[string]any {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": u.OutputTokens, "total_tokens": prompt + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheReadInputTokens}}
}

func openaiCompletion(r Reply, model string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	var text, reasoning string
	var calls []any
	for _, b := range r.Blocks {
		switch b.Type {
		case conversation.Text:
			text += b.Text
		case conversation.Thinking:
			reasoning += b.Thinking
		case conversation.ToolUse:
			calls = append(calls, map[string]any{"id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": string(b.Input)}})
		}
	}
	if text != "" {
		msg["content"] = text
	}
	if reasoning != "" {
		msg["reasoning_content"] = reasoning
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReasons[r.stopReason()]}},
		"usage":   openaiUsage(r.Usage)}
}

// openaiEvents is the chunk sequence of a streamed chat completion, ending in [DONE].
func openaiEvents(r Reply, model string, call int, includeUsage bool) []SSEEvent {
	var evs []SSEEvent
	id := fmt.Sprintf("chatcmpl-llmtest-%d", call)
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) {
		evs = append(evs, SSEEvent{Data: mustJSON(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created,
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	tool := 0
	for _, b := range r.Blocks {
		switch b.Type {
		case conversation.Thinking:
			for _, c := range chunks(b.Thinking, chunkSize) {
				chunk(map[string]any{"reasoning_content": c}, nil)
			}
		case conversation.ToolUse:
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": tool, "id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": ""}}}}, nil)
			for _, c := range chunks(string(b.Input), chunkSize) {
				chunk(map[string]any{"tool_calls": []any{map[string]any{"index": tool, "function": map[string]any{"arguments": c}}}}, nil)
			}
			tool++
		default:
			for _, c := range chunks(b.Text, chunkSize) {
				chunk(map[string]any{"content": c}, nil)
			}
		}
	}
	chunk(map[string]any{}, finishReasons[r.stopReason()])
	if includeUsage {
		evs = append(evs, SSEEvent{Data: mustJSON(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created,
			"model": model, "choices": []any{}, "usage": openaiUsage(r.Usage)})})
	}
	evs = append(evs, SSEEvent{Data: "[DONE]"})
	return evs
}
