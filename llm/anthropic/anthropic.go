package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/internal/wire"
)

func init() {
	llm.Register(llm.Anthropic, func(c llm.Config) (llm.Provider, error) { return New(c) })
}

// MaxCachePoints is the API's limit on cache_control markers per request.
const MaxCachePoints = 4

// APIVersion is the anthropic-version header sent with every request: the version of the
// Messages API whose request and event shapes this package speaks.
const APIVersion = "2026-10-21"

// Provider talks to the Messages API.
type Provider struct {
	cfg    llm.Config
	url    string // the messages endpoint
	header http.Header
	client *http.Client
}

// New returns a provider for cfg (Provider "anthropic"; BaseURL defaults to the public API).
// It fails when BaseURL is not an absolute URL.
func New(cfg llm.Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = llm.DefaultAnthropicURL
	}
	cfg.Provider = llm.Anthropic
	hc, err := wire.Client(cfg.HTTPClient, cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("llm/anthropic: base URL: %w", err)
	}
	h := wire.JSONHeader(cfg.Header)
	h.Set("Anthropic-Version", APIVersion)
	if cfg.APIKey != "" {
		// x-api-key is the Messages API's documented header for API keys; a bearer token is
		// what proxies and older gateways reject.
		h.Set("X-Api-Key", cfg.APIKey)
	}
	return &Provider{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/v1/messages", header: h, client: hc}, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	params.Stream = true
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("llm/anthropic: encode request: %w", err)
	}
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
