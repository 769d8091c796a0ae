package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// The request body. Field order is the order on the wire: the parts that do not grow (tools,
// then system) come before the messages, so consecutive request bodies share a byte prefix as
// long as the prompt they describe, and the prompt cache sees it. Within each object the
// fields keep the order the official SDK wrote (pinned by testdata/wire).
type request struct {
	MaxTokens  int         `json:"max_tokens"`
	Model      string      `json:"model"`
	Thinking   *thinking   `json:"thinking,omitempty"`
	ToolChoice *toolChoice `json:"tool_choice,omitempty"`
	Stream     bool        `json:"stream,omitempty"`
	Tools      []tool      `json:"tools,omitempty"`
	System     []textBlock `json:"system,omitempty"`
	Messages   []message   `json:"messages,omitempty"`
}

type thinking struct {
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	Type         string `json:"type"` // "enabled" or "adaptive"
}

type toolChoice struct {
	Name string `json:"name"`
	Type string `json:"type"` // "tool"
}

type cacheControl struct {
	Type string `json:"type"` // "ephemeral"
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type tool struct {
	InputSchema  json.RawMessage `json:"input_schema"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type message struct {
	Content []any  `json:"content"` // the block types below
	Role    string `json:"role"`
}

type textBlock struct {
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	Type         string        `json:"type"`
}

type imageBlock struct {
	Source       any           `json:"source"` // base64Source or urlSource
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	Type         string        `json:"type"`
}

// documentBlock is a document (a PDF, plain text); its source is sent as the transcript has it.
type documentBlock struct {
	Source       json.RawMessage `json:"source"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
	Type         string          `json:"type"`
}

type base64Source struct {
	Data      string `json:"data"`
	MediaType string `json:"media_type,omitempty"`
	Type      string `json:"type"`
}

type urlSource struct {
	URL  string `json:"url"`
	Type string `json:"type"`
}

type thinkingBlock struct {
	Signature string `json:"signature"`
	Thinking  string `json:"thinking"`
	Type      string `json:"type"`
}

type redactedThinkingBlock struct {
	Data string `json:"data"`
	Type string `json:"type"`
}

type toolUseBlock struct {
	ID           string          `json:"id"`
	Input        json.RawMessage `json:"input"`
	Name         string          `json:"name"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
	Type         string          `json:"type"`
}

type toolResultBlock struct {
	ToolUseID    string        `json:"tool_use_id"`
	IsError      bool          `json:"is_error,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	Content      []any         `json:"content,omitempty"` // textBlock and imageBlock
	Type         string        `json:"type"`
}

// params converts a neutral request into the API's.
func (p *Provider) params(req *llm.Request) (*request, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("llm/anthropic: no model in the request or the configuration")
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.cfg.MaxOutputTokens
	}
	if maxTokens <= 0 {
		maxTokens = llm.DefaultMaxOutputTokens
	}
	params := &request{Model: model}
	marks := 0
	mark := func() *cacheControl {
		marks++
		return ephemeral
	}

	for _, t := range req.Tools {
		tp, err := toolParam(t.Name, t.Description, t.InputSchema)
		if err != nil {
			return nil, err
		}
		if t.Cache {
			tp.CacheControl = mark()
		}
		params.Tools = append(params.Tools, tp)
	}
	for _, b := range req.System {
		tb := textBlock{Text: b.Text, Type: "text"}
		if b.Cache {
			tb.CacheControl = mark()
		}
		params.System = append(params.System, tb)
	}

	thinkingOn := req.Output == nil && req.ThinkingBudget > 0
	cache := map[[2]int]bool{}
	for _, cp := range req.CachePoints {
		if cp.Message < 0 || cp.Message >= len(req.Messages) {
			return nil, fmt.Errorf("llm/anthropic: cache point on message %d of %d", cp.Message, len(req.Messages))
		}
		bi := cp.Block
		if bi < 0 {
			bi = len(req.Messages[cp.Message].Content) - 1
		}
		if bi < 0 || bi >= len(req.Messages[cp.Message].Content) {
			return nil, fmt.Errorf("llm/anthropic: cache point on block %d of message %d, which has %d blocks", cp.Block, cp.Message, len(req.Messages[cp.Message].Content))
		}
		cache[[2]int{cp.Message, bi}] = true
	}
	for mi, m := range req.Messages {
		var blocks []any
		for bi, b := range m.Content {
			cached := cache[[2]int{mi, bi}]
			var cc *cacheControl
			if cached {
				cc = ephemeral
			}
			cb, ok, err := block(b, cc, thinkingOn)
			if err != nil {
				return nil, fmt.Errorf("llm/anthropic: message %d block %d: %w", mi, bi, err)
			}
			if cached {
				switch {
				case !ok:
					return nil, fmt.Errorf("llm/anthropic: cache point on message %d block %d, a %s block that is not sent", mi, bi, b.Type)
				case !cacheable(b.Type):
					return nil, fmt.Errorf("llm/anthropic: cache point on message %d block %d: a %s block cannot carry cache_control", mi, bi, b.Type)
				}
				mark()
			}
			if ok {
				blocks = append(blocks, cb)
			}
		}
		if len(blocks) == 0 {
			continue // e.g. an assistant turn that held only unsigned thinking
		}
		role := "user"
		if m.Role == conversation.Assistant {
			role = "assistant"
		}
		params.Messages = append(params.Messages, message{Content: blocks, Role: role})
	}
	if marks > MaxCachePoints {
		return nil, fmt.Errorf("llm/anthropic: %d cache breakpoints in one request; the API accepts at most %d", marks, MaxCachePoints)
	}

	if req.Output != nil {
		tp, err := toolParam(req.Output.Name, req.Output.Description, req.Output.Schema)
		if err != nil {
			return nil, err
		}
		params.Tools = append(params.Tools, tp)
		params.ToolChoice = &toolChoice{Name: req.Output.Name, Type: "tool"}
	} else if req.ThinkingBudget > 0 {
		if maxTokens <= req.ThinkingBudget {
			maxTokens = req.ThinkingBudget + maxTokens
		}
		if adaptiveOnly[model] {
			params.Thinking = &thinking{Type: "adaptive"}
		} else {
			params.Thinking = &thinking{BudgetTokens: req.ThinkingBudget, Type: "enabled"}
		}
	}
	// Temperature is not sent: the current Messages API no longer takes it, and the model's
	// default is what strata wants anyway.
	params.MaxTokens = maxTokens
	return params, nil
}

// adaptiveOnly are models that no longer take budgeted thinking; they get adaptive thinking.
var adaptiveOnly = map[string]bool{"claude-opus-4-6": true, "claude-mythos-preview": true}

// toolParam builds a tool definition. The input schema is always an object schema: its
// properties (an empty object when missing), its required names (strings only), then
// "type": "object", then every other keyword sorted by name, so the same schema always gives
// the same bytes and the cached prefix holds across requests.
func toolParam(name, desc string, schema json.RawMessage) (tool, error) {
	tp := tool{Name: name, Description: desc}
	var s map[string]any
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return tp, fmt.Errorf("llm/anthropic: tool %s: input schema is not a JSON object: %w", name, err)
		}
	}
	props := s["properties"]
	if props == nil {
		props = map[string]any{}
	}
	var b bytes.Buffer
	field := func(k string, v any) error {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
		return nil
	}
	field("properties", props)
	if req, ok := s["required"].([]any); ok {
		var names []string
		for _, r := range req {
			if rs, ok := r.(string); ok {
				names = append(names, rs)
			}
		}
		if names != nil {
			field("required", names)
		}
	}
	field("type", "object")
	extra := make([]string, 0, len(s))
	for k := range s {
		if k != "properties" && k != "required" && k != "type" {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		if err := field(k, s[k]); err != nil {
			return tp, fmt.Errorf("llm/anthropic: tool %s: input schema: %w", name, err)
		}
	}
	tp.InputSchema = append(append([]byte{'{'}, b.Bytes()...), '}')
	return tp, nil
}

// cacheable reports whether blocks of type t can carry cache_control.
func cacheable(t conversation.BlockType) bool {
	switch t {
	case conversation.Text, conversation.Image, conversation.Document, conversation.ToolUse, conversation.ToolResult:
		return true
	}
	return false
}

// block converts one block, with cc on it when its type can carry one; ok is false for blocks
// that are not sent (empty text, unsigned thinking, any thinking when the request does not
// turn thinking on, as Claude Code sends a resumed session).
func block(b conversation.Block, cc *cacheControl, thinkingOn bool) (any, bool, error) {
	switch b.Type {
	case conversation.Text:
		if b.Text == "" {
			return nil, false, nil
		}
		return textBlock{Text: b.Text, CacheControl: cc, Type: "text"}, true, nil
	case conversation.Thinking:
		if !thinkingOn || !conversation.Sendable(b) {
			return nil, false, nil
		}
		return thinkingBlock{Signature: b.Signature, Thinking: b.Thinking, Type: "thinking"}, true, nil
	case conversation.RedactedThinking:
		if !thinkingOn {
			return nil, false, nil
		}
		return redactedThinkingBlock{Data: b.Data, Type: "redacted_thinking"}, true, nil
	case conversation.ToolUse:
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		return toolUseBlock{ID: b.ID, Input: in, Name: b.Name, CacheControl: cc, Type: "tool_use"}, true, nil
	case conversation.ToolResult:
		tr := toolResultBlock{ToolUseID: b.ToolUseID, IsError: b.IsError, CacheControl: cc, Type: "tool_result"}
		for _, c := range b.Content {
			switch c.Type {
			case conversation.Text:
				if c.Text != "" {
					tr.Content = append(tr.Content, textBlock{Text: c.Text, Type: "text"})
				}
			case conversation.Image:
				img, err := image(c.Source, nil)
				if err != nil {
					return nil, false, err
				}
				tr.Content = append(tr.Content, img)
			case conversation.Document:
				doc, err := document(c.Source, nil)
				if err != nil {
					return nil, false, err
				}
				tr.Content = append(tr.Content, doc)
			}
		}
		return tr, true, nil
	case conversation.Document:
		doc, err := document(b.Source, cc)
		if err != nil {
			return nil, false, err
		}
		return doc, true, nil
	case conversation.Image:
		img, err := image(b.Source, cc)
		if err != nil {
			return nil, false, err
		}
		return img, true, nil
	}
	return nil, false, fmt.Errorf("unsupported block type %q", b.Type)
}

// document converts a document block; a source that is not a JSON object is an error.
func document(src json.RawMessage, cc *cacheControl) (documentBlock, error) {
	var s map[string]any
	if err := json.Unmarshal(src, &s); err != nil || s == nil {
		return documentBlock{}, fmt.Errorf("document source is not a JSON object")
	}
	return documentBlock{Source: src, CacheControl: cc, Type: "document"}, nil
}

func image(src json.RawMessage, cc *cacheControl) (imageBlock, error) {
	var s struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		return imageBlock{}, fmt.Errorf("image source: %w", err)
	}
	img := imageBlock{CacheControl: cc, Type: "image"}
	switch s.Type {
	case "base64":
		img.Source = base64Source{Data: s.Data, MediaType: s.MediaType, Type: "base64"}
	case "url":
		img.Source = urlSource{URL: s.URL, Type: "url"}
	default:
		return imageBlock{}, fmt.Errorf("image source type %q is not supported", s.Type)
	}
	return img, nil
}
