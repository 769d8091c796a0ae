package llm

import (
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/config"
)

// Provider names.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
)

// Default endpoints and models, used when nothing else is set.
const (
	DefaultAnthropicURL        = "https://api.anthropic.com"
	DefaultOpenAIURL           = "https://api.openai.com/v1"
	DefaultAnthropicModel      = "claude-sonnet-4-5"
	DefaultAnthropicSmallModel = "claude-haiku-4-5"
	DefaultOpenAIModel         = "gpt-4.1"
	DefaultOpenAISmallModel    = "gpt-4.1-mini"
	// DefaultMaxOutputTokens caps a reply when neither the request nor the configuration does.
	DefaultMaxOutputTokens = 16384
	// DefaultLocalContextWindow is assumed for a model strata does not know, e.g. one served
	// by Ollama, vLLM or llama.cpp; set contextWindow to what the server really uses.
	DefaultLocalContextWindow = 32768
)

// modelAliases are the short model names Claude Code accepts, by provider, and the model ids
// they stand for.
var modelAliases = map[string]map[string]string{
	Anthropic: {"opus": "claude-opus-4-5", "sonnet": DefaultAnthropicModel, "haiku": DefaultAnthropicSmallModel},
}

// ResolveModel returns the provider's model id for an alias ("opus", "sonnet", "haiku", in
// any case, as Claude Code's settings and --model take them), or model unchanged.
func ResolveModel(provider, model string) string {
	if id, ok := modelAliases[provider][strings.ToLower(strings.TrimSpace(model))]; ok {
		return id
	}
	return model
}

// Config says which provider, endpoint and models to use. FromEnv fills it from the
// environment and settings; tests build one by hand.
type Config struct {
	// Provider is Anthropic or OpenAI (any OpenAI-compatible server).
	Provider string
	// APIKey may be empty for local servers that need none.
	APIKey string
	// BaseURL is the endpoint; for OpenAI-compatible servers it includes /v1.
	BaseURL string
	// Local is true when BaseURL points at a server other than the provider's own; it only
	// changes defaults (max_tokens instead of max_completion_tokens, no default model).
	Local bool
	// Model serves the conversation; SmallModel serves side queries such as recall selection.
	Model      string
	SmallModel string
	// ContextWindow is the model's context size in tokens, and ContextWindowSource says where
	// the number came from ("setting contextWindow", "STRATA_CONTEXT_WINDOW", "default for …").
	ContextWindow       int
	ContextWindowSource string
	// MaxOutputTokens caps a reply when the request sets no MaxTokens; 0 on a local server
	// leaves the cap to the server.
	MaxOutputTokens int
	// Retry bounds retries; StallTimeout abandons a silent stream (0: DefaultStallTimeout).
	Retry        RetryPolicy
	StallTimeout time.Duration
	// HTTPClient is used for all requests; nil means a default client without a timeout
	// (streams are long; the stall timeout and the context bound them). Either way a provider
	// follows redirects only within BaseURL's origin, so the key never reaches another server.
	HTTPClient *http.Client
	// Header holds extra headers sent with every request, e.g. OpenAI-Organization (FromEnv
	// fills it from OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS). The headers a
	// provider sets itself (key, content type, API version) win over these.
	Header http.Header
	// Logger receives retry warnings; nil discards them.
	Logger *slog.Logger
}

// Endpoint describes the configured server for error messages.
func (c Config) Endpoint(model string) Endpoint {
	ep := Endpoint{Provider: c.Provider, URL: c.BaseURL, Model: model}
	switch c.Provider {
	case Anthropic:
		ep.KeyVar, ep.URLVar = "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"
	default:
		ep.KeyVar, ep.URLVar = "OPENAI_API_KEY", "OPENAI_BASE_URL"
	}
	return ep
}

// ConfigError is a configuration that cannot be used. It wraps ErrNotConfigured; its text
// says what is missing and how to set it, ready for the CLI to print.
type ConfigError struct {
	Problem string
}

func (e *ConfigError) Error() string { return e.Problem + "\n\n" + HowToConfigure }

// Unwrap makes errors.Is(err, ErrNotConfigured) true.
func (e *ConfigError) Unwrap() error { return ErrNotConfigured }

// HowToConfigure is the help printed with every configuration error.
const HowToConfigure = `To use a model, set one of:
  ANTHROPIC_API_KEY=<key>            Anthropic (model: STRATA_MODEL, default ` + DefaultAnthropicModel + `)
  OPENAI_API_KEY=<key>               OpenAI (model: STRATA_MODEL, default ` + DefaultOpenAIModel + `)
  OPENAI_BASE_URL=http://localhost:11434/v1 STRATA_MODEL=<model>
                                     Ollama, vLLM, llama.cpp or any OpenAI-compatible server
Optional: STRATA_PROVIDER=anthropic|openai, STRATA_SMALL_MODEL, STRATA_CONTEXT_WINDOW, or the
settings keys "provider", "model", "smallModel", "contextWindow" in $STRATA_HOME/settings.json.
See docs/providers.md.`

// localDefaults are provider aliases for common local servers and their usual addresses.
var localDefaults = map[string]string{
	"ollama":    "http://localhost:11434/v1",
	"vllm":      "http://localhost:8000/v1",
	"llamacpp":  "http://localhost:8080/v1",
	"llama.cpp": "http://localhost:8080/v1",
}

// Settings are the model settings FromEnv falls back on when the environment names nothing:
// the settings keys "provider", "model", "smallModel" and "contextWindow".
type Settings struct {
	Provider, Model, SmallModel string
	ContextWindow               int
}

// FromEnv resolves the configuration. For each value the environment wins over settings, and
// settings win over the defaults: STRATA_PROVIDER > provider; STRATA_MODEL > model;
// STRATA_SMALL_MODEL > smallModel; STRATA_CONTEXT_WINDOW > contextWindow > a default per model
// family. With no provider named, ANTHROPIC_API_KEY picks Anthropic, then OPENAI_API_KEY or
// OPENAI_BASE_URL picks OpenAI. A missing piece is a *ConfigError (errors.Is ErrNotConfigured).
func FromEnv(env config.Env, settings Settings) (Config, error) {
	var c Config
	provider, from := env.Var("STRATA_PROVIDER"), "STRATA_PROVIDER"
	if provider == "" {
		provider, from = settings.Provider, "the provider setting"
	}
	provider = strings.ToLower(strings.TrimSpace(provider))
	switch {
	case provider == "":
		switch {
		case env.Var("ANTHROPIC_API_KEY") != "":
			provider = Anthropic
		case env.Var("OPENAI_API_KEY") != "" || env.Var("OPENAI_BASE_URL") != "":
			provider = OpenAI
		case env.Var("ANTHROPIC_BASE_URL") != "":
			provider = Anthropic
		default:
			return c, &ConfigError{Problem: "strata: no model provider is configured."}
		}
	case provider == Anthropic || provider == OpenAI:
	case localDefaults[provider] != "":
		if env.Var("OPENAI_BASE_URL") == "" {
			c.BaseURL = localDefaults[provider]
		}
		provider = OpenAI
	default:
		return c, &ConfigError{Problem: fmt.Sprintf("strata: unknown provider %q (from %s); use anthropic or openai (ollama, vllm and llamacpp are accepted as OpenAI-compatible).", provider, from)}
	}
	c.Provider = provider

	switch provider {
	case Anthropic:
		c.APIKey = env.Var("ANTHROPIC_API_KEY")
		c.BaseURL = env.Var("ANTHROPIC_BASE_URL")
		if c.APIKey == "" && c.BaseURL == "" {
			return c, &ConfigError{Problem: "strata: provider anthropic needs ANTHROPIC_API_KEY."}
		}
		if c.BaseURL == "" {
			c.BaseURL = DefaultAnthropicURL
		}
		c.Local = strings.TrimRight(c.BaseURL, "/") != DefaultAnthropicURL
		c.Model, c.SmallModel = DefaultAnthropicModel, DefaultAnthropicSmallModel
	case OpenAI:
		c.APIKey = env.Var("OPENAI_API_KEY")
		if u := env.Var("OPENAI_BASE_URL"); u != "" {
			c.BaseURL = u
		}
		if c.APIKey == "" && c.BaseURL == "" {
			return c, &ConfigError{Problem: "strata: provider openai needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local server."}
		}
		if c.BaseURL == "" {
			c.BaseURL = DefaultOpenAIURL
		}
		c.Local = strings.TrimRight(c.BaseURL, "/") != DefaultOpenAIURL
		if !c.Local {
			c.Model, c.SmallModel = DefaultOpenAIModel, DefaultOpenAISmallModel
		}
		c.Header = openaiHeaders(env)
	}

	if m := first(env.Var("STRATA_MODEL"), settings.Model); m != "" {
		c.Model = m
		if c.Local {
			c.SmallModel = m
		}
	}
	if m := first(env.Var("STRATA_SMALL_MODEL"), settings.SmallModel); m != "" {
		c.SmallModel = m
	}
	c.Model, c.SmallModel = ResolveModel(provider, c.Model), ResolveModel(provider, c.SmallModel)
	if c.Model == "" {
		return c, &ConfigError{Problem: fmt.Sprintf("strata: set STRATA_MODEL (or the model setting) to a model the server at %s serves (for Ollama: ollama list).", c.BaseURL)}
	}
	if c.SmallModel == "" {
		c.SmallModel = c.Model
	}

	if v := env.Var("STRATA_CONTEXT_WINDOW"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return c, &ConfigError{Problem: fmt.Sprintf("strata: STRATA_CONTEXT_WINDOW=%q is not a positive number of tokens.", v)}
		}
		c.ContextWindow, c.ContextWindowSource = n, "STRATA_CONTEXT_WINDOW"
	} else if settings.ContextWindow > 0 {
		c.ContextWindow, c.ContextWindowSource = settings.ContextWindow, "setting contextWindow"
	} else {
		c.ContextWindow, c.ContextWindowSource = DefaultContextWindow(c.Model)
	}

	if !c.Local || provider == Anthropic {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if v := env.Var("STRATA_MAX_OUTPUT_TOKENS"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return c, &ConfigError{Problem: fmt.Sprintf("strata: STRATA_MAX_OUTPUT_TOKENS=%q is not a positive number of tokens.", v)}
		}
		c.MaxOutputTokens = n
	}
	if v := env.Var("STRATA_STALL_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return c, &ConfigError{Problem: fmt.Sprintf("strata: STRATA_STALL_TIMEOUT=%q is not a duration such as 90s or 5m.", v)}
		}
		c.StallTimeout = d
	}
	return c, nil
}

// openaiHeaders are the extra headers the OpenAI SDK took from the environment, kept so that
// an organisation or project chosen there still applies: OPENAI_ORG_ID (OpenAI-Organization),
// OPENAI_PROJECT_ID (OpenAI-Project) and OPENAI_CUSTOM_HEADERS (one "Name: value" a line).
func openaiHeaders(env config.Env) http.Header {
	h := http.Header{}
	for _, line := range strings.Split(env.Var("OPENAI_CUSTOM_HEADERS"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) != "" {
			h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	if v := env.Var("OPENAI_ORG_ID"); v != "" {
		h.Set("OpenAI-Organization", v)
	}
	if v := env.Var("OPENAI_PROJECT_ID"); v != "" {
		h.Set("OpenAI-Project", v)
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

func first(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// windows maps model-id prefixes to context windows; the longest matching prefix wins.
var windows = map[string]int{
	"claude-":     200_000,
	"gpt-5":       400_000,
	"gpt-4.1":     1_047_576,
	"gpt-4o":      128_000,
	"gpt-4-turbo": 128_000,
	"gpt-4":       8_192,
	"gpt-3.5":     16_385,
	"o1":          200_000,
	"o3":          200_000,
	"o4":          200_000,
	"llama3.1":    131_072,
	"llama3.2":    131_072,
	"llama3.3":    131_072,
	"llama-3.1":   131_072,
	"llama-3.3":   131_072,
	"qwen2.5":     32_768,
	"qwen3":       40_960,
	"mistral":     32_768,
	"gemma3":      131_072,
	"deepseek":    65_536,
	"gpt-oss":     131_072,
}

// family returns the longest key of table that prefixes model, ignoring case and a provider
// prefix ("openai/", "anthropic."): the model family a per-family table (context windows,
// prices) knows the model by.
func family[V any](table map[string]V, model string) (string, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexAny(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "anthropic.")
	best := ""
	for p := range table {
		if strings.HasPrefix(m, p) && len(p) > len(best) {
			best = p
		}
	}
	return best, best != ""
}

// DefaultContextWindow returns the context window of a model family and where it came from;
// a provider prefix ("openai/", "anthropic.") is ignored. Unknown models get
// DefaultLocalContextWindow.
func DefaultContextWindow(model string) (int, string) {
	best, ok := family(windows, model)
	if !ok {
		return DefaultLocalContextWindow, "default for unknown models"
	}
	return windows[best], "default for " + best + "*"
}

// Factory builds a provider from a configuration.
type Factory func(Config) (Provider, error)

var (
	regMu     sync.Mutex
	factories = map[string]Factory{}
)

// Register makes a provider available to New. llm/anthropic and llm/openai register
// themselves in init, so a program imports them (for effect) next to llm.
func Register(name string, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	factories[name] = f
}

// New builds the provider cfg names. The provider's package must be linked in.
func New(cfg Config) (Provider, error) {
	regMu.Lock()
	f, ok := factories[cfg.Provider]
	var names []string
	for n := range factories {
		names = append(names, n)
	}
	regMu.Unlock()
	if !ok {
		sort.Strings(names)
		return nil, fmt.Errorf("llm: provider %q is not linked into this program (have %v); import _ \"github.com/strata-mem/strata/llm/%s\"", cfg.Provider, names, cfg.Provider)
	}
	return f(cfg)
}
