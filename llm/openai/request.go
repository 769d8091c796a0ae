package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// The request body. Field order is the order on the wire: the tools come before the growing
// messages, so consecutive request bodies share a long byte prefix; within each object the
// fields keep the order the official SDK wrote (pinned by testdata/wire).
type request struct {
	Model               string          `json:"model"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	StreamOptions       streamOptions   `json:"stream_options"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	Tools               []tool          `json:"tools,omitempty"`
	Messages            []any           `json:"messages,omitempty"` // the message types below
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	JSONSchema jsonSchema `json:"json_schema"`
	Type       string     `json:"type"` // "json_schema"
}

type jsonSchema struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema"`
}

type tool struct {
	Function function `json:"function"`
	Type     string   `json:"type"` // "function"
}

type function struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

type systemMessage struct {
	Content string `json:"content"`
	Role    string `json:"role"`
}

type userMessage struct {
	Content any    `json:"content"` // a string, or []any of textPart and imagePart
	Role    string `json:"role"`
}

type textPart struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type imagePart struct {
	ImageURL imageURL `json:"image_url"`
	Type     string   `json:"type"`
}

type imageURL struct {
	URL string `json:"url"`
}

type assistantMessage struct {
	Content   string     `json:"content,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
	Role      string     `json:"role"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Function callFunction `json:"function"`
	Type     string       `json:"type"` // "function"
}

type callFunction struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type toolMessage struct {
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	Role       string `json:"role"`
}

// params converts a neutral request into the API's.
func (p *Provider) params(req *llm.Request) (*request, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("llm/openai: no model in the request or the configuration")
	}
	params := &request{Model: model, StreamOptions: streamOptions{IncludeUsage: true}}

	if len(req.System) > 0 {
		parts := make([]string, 0, len(req.System))
		for _, b := range req.System {
			parts = append(parts, b.Text)
		}
		params.Messages = append(params.Messages, systemMessage{Content: strings.Join(parts, "\n\n"), Role: "system"})
	}
	for mi, m := range req.Messages {
		msgs, err := messages(m)
		if err != nil {
			return nil, fmt.Errorf("llm/openai: message %d: %w", mi, err)
		}
		params.Messages = append(params.Messages, msgs...)
	}
	for _, t := range req.Tools {
		schema, err := object(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("llm/openai: tool %s: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, tool{Function: function{Name: t.Name, Description: t.Description, Parameters: schema}, Type: "function"})
	}
	if req.Output != nil {
		schema, err := object(req.Output.Schema)
		if err != nil {
			return nil, fmt.Errorf("llm/openai: output %s: %w", req.Output.Name, err)
		}
		params.ResponseFormat = &responseFormat{Type: "json_schema",
			JSONSchema: jsonSchema{Name: req.Output.Name, Description: req.Output.Description, Schema: schema}}
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.cfg.MaxOutputTokens
	}
	if maxTokens > 0 {
		if p.cfg.Local {
			params.MaxTokens = maxTokens // what local servers understand
		} else {
			params.MaxCompletionTokens = maxTokens
		}
	}
	params.Temperature = req.Temperature
	if req.ThinkingBudget > 0 && !p.cfg.Local && reasoningModel(model) {
		switch {
		case req.ThinkingBudget <= 2048:
			params.ReasoningEffort = "low"
		case req.ThinkingBudget <= 8192:
			params.ReasoningEffort = "medium"
		default:
			params.ReasoningEffort = "high"
		}
	}
	return params, nil
}

// reasoningModel reports whether an OpenAI model takes reasoning_effort.
func reasoningModel(m string) bool {
	m = strings.ToLower(m)
	return strings.HasPrefix(m, "gpt-5") || len(m) > 1 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9'
}

func object(schema json.RawMessage) (map[string]any, error) {
	out := map[string]any{}
	if len(schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	if err := json.Unmarshal(schema, &out); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	return out, nil
}

// messages converts one conversation message into chat messages: an assistant message with
// text and tool_calls, or tool messages for the tool results followed by a user message with
// the rest.
func messages(m conversation.Message) ([]any, error) {
	if m.Role == conversation.Assistant {
		var text strings.Builder
		var calls []toolCall
		for _, b := range m.Content {
			switch b.Type {
			case conversation.Text:
				text.WriteString(b.Text)
			case conversation.ToolUse:
				args := string(b.Input)
				if args == "" {
					args = "{}"
				}
				calls = append(calls, toolCall{ID: b.ID, Function: callFunction{Name: b.Name, Arguments: args}, Type: "function"})
			}
		}
		if text.Len() == 0 && len(calls) == 0 {
			return nil, nil
		}
		return []any{assistantMessage{Content: text.String(), ToolCalls: calls, Role: "assistant"}}, nil
	}
	var out []any
	var parts []any
	var texts []string
	images := false
	for _, b := range m.Content {
		switch b.Type {
		case conversation.ToolResult:
			var text strings.Builder
			if b.IsError {
				text.WriteString("Error: ")
			}
			for _, c := range b.Content {
				switch c.Type {
				case conversation.Text:
					if text.Len() > 0 && !strings.HasSuffix(text.String(), " ") {
						text.WriteString("\n")
					}
					text.WriteString(c.Text)
				case conversation.Image:
					text.WriteString("\n[image omitted: this server takes no images in tool results]")
				case conversation.Document:
					text.WriteString("\n" + documentOmitted)
				}
			}
			out = append(out, toolMessage{Content: text.String(), ToolCallID: b.ToolUseID, Role: "tool"})
		case conversation.Text:
			if b.Text != "" {
				parts = append(parts, textPart{Text: b.Text, Type: "text"})
				texts = append(texts, b.Text)
			}
		case conversation.Document:
			parts = append(parts, textPart{Text: documentOmitted, Type: "text"})
			texts = append(texts, documentOmitted)
		case conversation.Image:
			url, err := dataURL(b.Source)
			if err != nil {
				return nil, err
			}
			parts = append(parts, imagePart{ImageURL: imageURL{URL: url}, Type: "image_url"})
			images = true
		}
	}
	switch {
	case len(parts) == 0:
	case !images:
		out = append(out, userMessage{Content: strings.Join(texts, "\n\n"), Role: "user"})
	default:
		out = append(out, userMessage{Content: parts, Role: "user"})
	}
	return out, nil
}

// documentOmitted stands in for a document (a PDF the user attached in Claude Code): chat
// completions take none, and the model is told rather than left to guess.
const documentOmitted = "[document omitted: this server takes no documents]"

func dataURL(src json.RawMessage) (string, error) {
	var s struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		return "", fmt.Errorf("image source: %w", err)
	}
	switch s.Type {
	case "base64":
		return "data:" + s.MediaType + ";base64," + s.Data, nil
	case "url":
		return s.URL, nil
	}
	return "", fmt.Errorf("image source type %q is not supported", s.Type)
}
