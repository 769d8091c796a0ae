package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

func init() {
	llm.Register(llm.Anthropic, func(c llm.Config) (llm.Provider, error) { return New(c) })
}

// MaxCachePoints is the API's limit on cache_control markers per request.
const MaxCachePoints = 4

// Provider talks to the Messages API.
type Provider struct {
	cfg    llm.Config
	client sdk.Client
}

// New returns a provider for cfg (Provider "anthropic"; BaseURL defaults to the public API).
func New(cfg llm.Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = llm.DefaultAnthropicURL
	}
	cfg.Provider = llm.Anthropic
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		// Tools, then system, then the growing messages: consecutive request bodies then share
		// a byte prefix as long as the prompt they describe.
		option.WithMiddleware(llm.CacheOrder("tools", "system", "messages")),
	}
	if cfg.APIKey != "" {
		// x-api-key is the Messages API's documented header for API keys; the SDK's
		// WithAPIKey would send it as a bearer token, which proxies and older gateways reject.
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	return &Provider{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	ep := p.cfg.Endpoint(string(params.Model))
	open := func(actx context.Context) (llm.Source, error) {
		st := p.client.Messages.NewStreaming(actx, params)
		if err := st.Err(); err != nil {
			st.Close()
			return nil, classify(ep, err)
		}
		return &source{st: st, ep: ep, index: map[int64]int{}}, nil
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
		return ep.StatusError(apiErr.StatusCode, string(apiErr.Type()), apiErr.Message, h)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return ep.Malformed(err)
	}
	return ep.TransportError(err)
}

// source maps one attempt's SSE events onto llm events.
type source struct {
	st      *ssestream.Stream[sdk.MessageStreamEventUnion]
	ep      llm.Endpoint
	pending []llm.Event
	index   map[int64]int // the API's block index → ours (unsupported block kinds are skipped)
	next    int
	usage   llm.Usage
	stop    llm.StopReason
	stopped bool
}

func (s *source) Close() error { return s.st.Close() }

func (s *source) Recv() (llm.Event, error) {
	for len(s.pending) == 0 {
		if s.stopped {
			return llm.Event{}, io.EOF
		}
		if !s.st.Next() {
			if err := s.st.Err(); err != nil {
				return llm.Event{}, classify(s.ep, err)
			}
			return llm.Event{}, s.ep.Truncated()
		}
		if err := s.decode(s.st.Current()); err != nil {
			return llm.Event{}, s.ep.Malformed(err)
		}
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, nil
}

func (s *source) emit(evs ...llm.Event) { s.pending = append(s.pending, evs...) }

func (s *source) decode(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		m := ev.Message
		s.usage = llm.Usage{InputTokens: int(m.Usage.InputTokens), OutputTokens: int(m.Usage.OutputTokens),
			CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens), CacheReadInputTokens: int(m.Usage.CacheReadInputTokens)}
		s.emit(llm.Event{Type: llm.EventStart, ID: m.ID, Model: string(m.Model)}, llm.Event{Type: llm.EventUsage, Usage: s.usage})
	case "content_block_start":
		cb := ev.ContentBlock
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
			return nil // server tools and the like: not part of strata's model
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
		if b.Type == conversation.ToolUse && cb.Input != nil {
			if in, err := json.Marshal(cb.Input); err == nil && string(in) != "{}" && string(in) != "null" {
				s.emit(llm.Event{Type: llm.EventToolInput, Index: i, Text: string(in)})
			}
		}
	case "content_block_delta":
		i, ok := s.index[ev.Index]
		if !ok {
			return nil
		}
		d := ev.Delta
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
		u := ev.Usage
		s.usage.OutputTokens = int(u.OutputTokens)
		if u.JSON.InputTokens.Valid() {
			s.usage.InputTokens = int(u.InputTokens)
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			s.usage.CacheCreationInputTokens = int(u.CacheCreationInputTokens)
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			s.usage.CacheReadInputTokens = int(u.CacheReadInputTokens)
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
	return nil
}

// params converts a neutral request into the SDK's.
func (p *Provider) params(req *llm.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return sdk.MessageNewParams{}, fmt.Errorf("llm/anthropic: no model in the request or the configuration")
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.cfg.MaxOutputTokens
	}
	if maxTokens <= 0 {
		maxTokens = llm.DefaultMaxOutputTokens
	}
	params := sdk.MessageNewParams{Model: sdk.Model(model)}
	marks := 0
	mark := func() sdk.CacheControlEphemeralParam {
		marks++
		return sdk.NewCacheControlEphemeralParam()
	}

	for _, t := range req.Tools {
		tp, err := toolParam(t.Name, t.Description, t.InputSchema)
		if err != nil {
			return params, err
		}
		if t.Cache {
			tp.CacheControl = mark()
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	for _, b := range req.System {
		tb := sdk.TextBlockParam{Text: b.Text}
		if b.Cache {
			tb.CacheControl = mark()
		}
		params.System = append(params.System, tb)
	}

	cache := map[[2]int]bool{}
	for _, cp := range req.CachePoints {
		if cp.Message < 0 || cp.Message >= len(req.Messages) {
			return params, fmt.Errorf("llm/anthropic: cache point on message %d of %d", cp.Message, len(req.Messages))
		}
		bi := cp.Block
		if bi < 0 {
			bi = len(req.Messages[cp.Message].Content) - 1
		}
		if bi < 0 || bi >= len(req.Messages[cp.Message].Content) {
			return params, fmt.Errorf("llm/anthropic: cache point on block %d of message %d, which has %d blocks", cp.Block, cp.Message, len(req.Messages[cp.Message].Content))
		}
		cache[[2]int{cp.Message, bi}] = true
	}
	for mi, m := range req.Messages {
		var blocks []sdk.ContentBlockParamUnion
		for bi, b := range m.Content {
			cb, ok, err := block(b)
			if err != nil {
				return params, fmt.Errorf("llm/anthropic: message %d block %d: %w", mi, bi, err)
			}
			if cache[[2]int{mi, bi}] {
				if !ok {
					return params, fmt.Errorf("llm/anthropic: cache point on message %d block %d, a %s block that is not sent", mi, bi, b.Type)
				}
				cc := cb.GetCacheControl()
				if cc == nil {
					return params, fmt.Errorf("llm/anthropic: cache point on message %d block %d: a %s block cannot carry cache_control", mi, bi, b.Type)
				}
				*cc = mark()
			}
			if ok {
				blocks = append(blocks, cb)
			}
		}
		if len(blocks) == 0 {
			continue // e.g. an assistant turn that held only unsigned thinking
		}
		switch m.Role {
		case conversation.Assistant:
			params.Messages = append(params.Messages, sdk.NewAssistantMessage(blocks...))
		default:
			params.Messages = append(params.Messages, sdk.NewUserMessage(blocks...))
		}
	}
	if marks > MaxCachePoints {
		return params, fmt.Errorf("llm/anthropic: %d cache breakpoints in one request; the API accepts at most %d", marks, MaxCachePoints)
	}

	if req.Output != nil {
		tp, err := toolParam(req.Output.Name, req.Output.Description, req.Output.Schema)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tp})
		params.ToolChoice = sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: req.Output.Name}}
	} else if req.ThinkingBudget > 0 {
		if maxTokens <= req.ThinkingBudget {
			maxTokens = req.ThinkingBudget + maxTokens
		}
		if adaptiveOnly[model] {
			params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
		} else {
			params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(req.ThinkingBudget))
		}
	}
	// Temperature is not sent: the current Messages API no longer takes it (the SDK has no
	// such field), and the model's default is what strata wants anyway.
	params.MaxTokens = int64(maxTokens)
	return params, nil
}

// adaptiveOnly are models for which the SDK deprecates budgeted thinking (and would print a
// warning on stderr); they get adaptive thinking instead.
var adaptiveOnly = map[string]bool{"claude-opus-4-6": true, "claude-mythos-preview": true}

func toolParam(name, desc string, schema json.RawMessage) (sdk.ToolParam, error) {
	tp := sdk.ToolParam{Name: name}
	if desc != "" {
		tp.Description = sdk.String(desc)
	}
	var s map[string]any
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return tp, fmt.Errorf("llm/anthropic: tool %s: input schema is not a JSON object: %w", name, err)
		}
	}
	if s == nil {
		s = map[string]any{}
	}
	tp.InputSchema.Properties = s["properties"]
	if tp.InputSchema.Properties == nil {
		tp.InputSchema.Properties = map[string]any{}
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if rs, ok := r.(string); ok {
				tp.InputSchema.Required = append(tp.InputSchema.Required, rs)
			}
		}
	}
	for k, v := range s {
		if k == "properties" || k == "required" || k == "type" {
			continue
		}
		if tp.InputSchema.ExtraFields == nil {
			tp.InputSchema.ExtraFields = map[string]any{}
		}
		tp.InputSchema.ExtraFields[k] = v
	}
	return tp, nil
}

// block converts one block; ok is false for blocks that are not sent (empty text, unsigned
// thinking).
func block(b conversation.Block) (sdk.ContentBlockParamUnion, bool, error) {
	switch b.Type {
	case conversation.Text:
		if b.Text == "" {
			return sdk.ContentBlockParamUnion{}, false, nil
		}
		return sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text}}, true, nil
	case conversation.Thinking:
		if b.Signature == "" {
			return sdk.ContentBlockParamUnion{}, false, nil
		}
		return sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{Thinking: b.Thinking, Signature: b.Signature}}, true, nil
	case conversation.RedactedThinking:
		return sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{Data: b.Data}}, true, nil
	case conversation.ToolUse:
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: b.ID, Name: b.Name, Input: in}}, true, nil
	case conversation.ToolResult:
		tr := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			tr.IsError = sdk.Bool(true)
		}
		for _, c := range b.Content {
			switch c.Type {
			case conversation.Text:
				if c.Text != "" {
					tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
				}
			case conversation.Image:
				img, err := image(c.Source)
				if err != nil {
					return sdk.ContentBlockParamUnion{}, false, err
				}
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: img})
			}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &tr}, true, nil
	case conversation.Image:
		img, err := image(b.Source)
		if err != nil {
			return sdk.ContentBlockParamUnion{}, false, err
		}
		return sdk.ContentBlockParamUnion{OfImage: img}, true, nil
	}
	return sdk.ContentBlockParamUnion{}, false, fmt.Errorf("unsupported block type %q", b.Type)
}

func image(src json.RawMessage) (*sdk.ImageBlockParam, error) {
	var s struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, fmt.Errorf("image source: %w", err)
	}
	switch s.Type {
	case "base64":
		return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
			Data: s.Data, MediaType: sdk.Base64ImageSourceMediaType(s.MediaType)}}}, nil
	case "url":
		return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfURL: &sdk.URLImageSourceParam{URL: s.URL}}}, nil
	}
	return nil, fmt.Errorf("image source type %q is not supported", s.Type)
}
