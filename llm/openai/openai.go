package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/internal/wire"
)

func init() {
	llm.Register(llm.OpenAI, func(c llm.Config) (llm.Provider, error) { return New(c) })
}

// Provider talks to a chat completions endpoint.
type Provider struct {
	cfg    llm.Config
	url    string // the chat completions endpoint
	header http.Header
	client *http.Client
}

// New returns a provider for cfg (Provider "openai"; BaseURL defaults to OpenAI's API). It
// fails when BaseURL is not an absolute URL.
func New(cfg llm.Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = llm.DefaultOpenAIURL
	}
	cfg.Provider = llm.OpenAI
	hc, err := wire.Client(cfg.HTTPClient, cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("llm/openai: base URL: %w", err)
	}
	h := wire.JSONHeader(cfg.Header)
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	return &Provider{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", header: h, client: hc}, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	params.Stream = true
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the SDK wrote it: <, > and & stay themselves
	if err := enc.Encode(params); err != nil {
		return nil, fmt.Errorf("llm/openai: encode request: %w", err)
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	ep := p.cfg.Endpoint(params.Model)
	open := func(actx context.Context) (llm.Source, error) {
		resp, errBody, err := wire.Post(actx, p.client, p.url, p.header, body)
		if err != nil {
			return nil, err // llm.Stream classifies transport errors, stalls and cancellation
		}
		if resp.StatusCode >= 400 {
			return nil, ep.ReplyError(resp.StatusCode, errBody, resp.Header)
		}
		return newSource(resp, ep), nil
	}
	return llm.NewStream(ctx, open, llm.StreamOptions{
		Endpoint: ep, Retry: p.cfg.Retry, StallTimeout: p.cfg.StallTimeout, Output: req.Output, Logger: p.cfg.Logger,
	}), nil
}
