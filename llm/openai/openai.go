package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

func init() {
	llm.Register(llm.OpenAI, func(c llm.Config) (llm.Provider, error) { return New(c) })
}

// Provider talks to a chat completions endpoint.
type Provider struct {
	cfg    llm.Config
	client sdk.Client
}

// New returns a provider for cfg (Provider "openai"; BaseURL defaults to OpenAI's API).
func New(cfg llm.Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = llm.DefaultOpenAIURL
	}
	cfg.Provider = llm.OpenAI
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithAPIKey(cfg.APIKey),
		// Tools before the growing messages, so consecutive request bodies share a long prefix.
		option.WithMiddleware(llm.CacheOrder("tools", "messages")),
	}
	return &Provider{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	ep := p.cfg.Endpoint(params.Model)
	open := func(actx context.Context) (llm.Source, error) {
		st := p.client.Chat.Completions.NewStreaming(actx, params)
		if err := st.Err(); err != nil {
			st.Close()
			return nil, classify(ep, err)
		}
		return &source{st: st, ep: ep, tools: map[int64]int{}, open: -1}, nil
	}
	return llm.NewStream(ctx, open, llm.StreamOptions{
		Endpoint: ep, Retry: p.cfg.Retry, StallTimeout: p.cfg.StallTimeout, Output: req.Output, Logger: p.cfg.Logger,
	}), nil
}

func classify(ep llm.Endpoint, err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		return ep.StatusError(apiErr.StatusCode, apiErr.Type, apiErr.Message, h)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal(se.Event.Data, &body)
		msg := body.Error.Message
		if msg == "" {
			msg = se.Message
		}
		// An error inside a 200 stream is the server failing mid-reply.
		return ep.StatusError(http.StatusInternalServerError, body.Error.Type, msg, nil)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(err.Error(), "unexpected end of JSON input") {
		return ep.Malformed(err)
	}
	return ep.TransportError(err)
}

// source maps one attempt's chunks onto llm events.
type source struct {
	st       *ssestream.Stream[sdk.ChatCompletionChunk]
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

func (s *source) Close() error { return s.st.Close() }

func (s *source) emit(evs ...llm.Event) { s.pending = append(s.pending, evs...) }

func (s *source) Recv() (llm.Event, error) {
	for len(s.pending) == 0 {
		if s.done {
			return llm.Event{}, io.EOF
		}
		if !s.st.Next() {
			if err := s.st.Err(); err != nil {
				return llm.Event{}, classify(s.ep, err)
			}
			if s.finish == "" {
				return llm.Event{}, s.ep.Truncated()
			}
			s.closeAll()
			s.emit(llm.Event{Type: llm.EventStop, StopReason: s.stopReason()})
			s.done = true
			continue
		}
		if err := s.decode(s.st.Current()); err != nil {
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

func (s *source) decode(c sdk.ChatCompletionChunk) error {
	if !s.started {
		s.started = true
		s.emit(llm.Event{Type: llm.EventStart, ID: c.ID, Model: c.Model})
	}
	if c.JSON.Usage.Valid() && c.Usage.JSON.PromptTokens.Valid() {
		u := c.Usage
		cached := int(u.PromptTokensDetails.CachedTokens)
		s.emit(llm.Event{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: int(u.PromptTokens) - cached,
			CacheReadInputTokens: cached, OutputTokens: int(u.CompletionTokens)}})
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		for _, name := range []string{"reasoning_content", "reasoning"} {
			if f, ok := d.JSON.ExtraFields[name]; ok && f.Raw() != "" && f.Raw() != "null" {
				var r string
				if err := json.Unmarshal([]byte(f.Raw()), &r); err != nil {
					return fmt.Errorf("delta.%s: %w", name, err)
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

// params converts a neutral request into the SDK's.
func (p *Provider) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return sdk.ChatCompletionNewParams{}, fmt.Errorf("llm/openai: no model in the request or the configuration")
	}
	params := sdk.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	params.StreamOptions.IncludeUsage = sdk.Bool(true)

	if len(req.System) > 0 {
		parts := make([]string, 0, len(req.System))
		for _, b := range req.System {
			parts = append(parts, b.Text)
		}
		params.Messages = append(params.Messages, sdk.SystemMessage(strings.Join(parts, "\n\n")))
	}
	for mi, m := range req.Messages {
		msgs, err := messages(m)
		if err != nil {
			return params, fmt.Errorf("llm/openai: message %d: %w", mi, err)
		}
		params.Messages = append(params.Messages, msgs...)
	}
	for _, t := range req.Tools {
		schema, err := object(t.InputSchema)
		if err != nil {
			return params, fmt.Errorf("llm/openai: tool %s: %w", t.Name, err)
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fd.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(fd))
	}
	if req.Output != nil {
		schema, err := object(req.Output.Schema)
		if err != nil {
			return params, fmt.Errorf("llm/openai: output %s: %w", req.Output.Name, err)
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Output.Name, Schema: schema}
		if req.Output.Description != "" {
			js.Description = sdk.String(req.Output.Description)
		}
		params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.cfg.MaxOutputTokens
	}
	if maxTokens > 0 {
		if p.cfg.Local {
			params.MaxTokens = param.NewOpt(int64(maxTokens)) // what local servers understand
		} else {
			params.MaxCompletionTokens = param.NewOpt(int64(maxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.ThinkingBudget > 0 && !p.cfg.Local && reasoningModel(model) {
		switch {
		case req.ThinkingBudget <= 2048:
			params.ReasoningEffort = shared.ReasoningEffortLow
		case req.ThinkingBudget <= 8192:
			params.ReasoningEffort = shared.ReasoningEffortMedium
		default:
			params.ReasoningEffort = shared.ReasoningEffortHigh
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
func messages(m conversation.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	if m.Role == conversation.Assistant {
		var text strings.Builder
		var calls []sdk.ChatCompletionMessageToolCallUnionParam
		for _, b := range m.Content {
			switch b.Type {
			case conversation.Text:
				text.WriteString(b.Text)
			case conversation.ToolUse:
				args := string(b.Input)
				if args == "" {
					args = "{}"
				}
				calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: b.ID, Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args}}})
			}
		}
		if text.Len() == 0 && len(calls) == 0 {
			return nil, nil
		}
		am := sdk.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if text.Len() > 0 {
			am.Content.OfString = sdk.String(text.String())
		}
		return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &am}}, nil
	}
	var out []sdk.ChatCompletionMessageParamUnion
	var parts []sdk.ChatCompletionContentPartUnionParam
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
				}
			}
			out = append(out, sdk.ToolMessage(text.String(), b.ToolUseID))
		case conversation.Text:
			if b.Text != "" {
				parts = append(parts, sdk.TextContentPart(b.Text))
			}
		case conversation.Image:
			url, err := dataURL(b.Source)
			if err != nil {
				return nil, err
			}
			parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}))
			images = true
		}
	}
	switch {
	case len(parts) == 0:
	case !images:
		var text []string
		for _, p := range parts {
			text = append(text, p.OfText.Text)
		}
		out = append(out, sdk.UserMessage(strings.Join(text, "\n\n")))
	default:
		out = append(out, sdk.UserMessage(parts))
	}
	return out, nil
}

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
