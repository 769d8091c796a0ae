package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm"
)

func envOf(vars map[string]string) config.Env {
	return config.Env{Getenv: func(k string) string { return vars[k] }}
}

func TestFromEnv(t *testing.T) {
	type got struct {
		Provider, APIKey, BaseURL, Model, SmallModel string
		Local                                        bool
		ContextWindow                                int
		ContextWindowSource                          string
		MaxOutputTokens                              int
	}
	tests := []struct {
		name     string
		env      map[string]string
		settings llm.Settings
		want     got
	}{
		{"anthropic key", map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}, llm.Settings{},
			got{"anthropic", "sk-ant", llm.DefaultAnthropicURL, llm.DefaultAnthropicModel, llm.DefaultAnthropicSmallModel, false, 200_000, "default for claude-*", llm.DefaultMaxOutputTokens}},
		{"openai key", map[string]string{"OPENAI_API_KEY": "sk-oai"}, llm.Settings{},
			got{"openai", "sk-oai", llm.DefaultOpenAIURL, llm.DefaultOpenAIModel, llm.DefaultOpenAISmallModel, false, 1_047_576, "default for gpt-4.1*", llm.DefaultMaxOutputTokens}},
		{"both keys: anthropic first", map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, llm.Settings{},
			got{"anthropic", "a", llm.DefaultAnthropicURL, llm.DefaultAnthropicModel, llm.DefaultAnthropicSmallModel, false, 200_000, "default for claude-*", llm.DefaultMaxOutputTokens}},
		{"STRATA_PROVIDER picks openai", map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "STRATA_PROVIDER": "openai"}, llm.Settings{},
			got{"openai", "o", llm.DefaultOpenAIURL, llm.DefaultOpenAIModel, llm.DefaultOpenAISmallModel, false, 1_047_576, "default for gpt-4.1*", llm.DefaultMaxOutputTokens}},
		{"ollama via base URL", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "STRATA_MODEL": "qwen2.5-coder:7b"}, llm.Settings{},
			got{"openai", "", "http://localhost:11434/v1", "qwen2.5-coder:7b", "qwen2.5-coder:7b", true, 32_768, "default for qwen2.5*", 0}},
		{"ollama alias", map[string]string{"STRATA_PROVIDER": "ollama", "STRATA_MODEL": "llama3.1:8b"}, llm.Settings{},
			got{"openai", "", "http://localhost:11434/v1", "llama3.1:8b", "llama3.1:8b", true, 131_072, "default for llama3.1*", 0}},
		{"settings", map[string]string{"ANTHROPIC_API_KEY": "a"}, llm.Settings{Model: "claude-opus-4-5", SmallModel: "claude-haiku-4-5", ContextWindow: 1_000_000},
			got{"anthropic", "a", llm.DefaultAnthropicURL, "claude-opus-4-5", "claude-haiku-4-5", false, 1_000_000, "setting contextWindow", llm.DefaultMaxOutputTokens}},
		{"env beats settings", map[string]string{"ANTHROPIC_API_KEY": "a", "STRATA_MODEL": "claude-x", "STRATA_SMALL_MODEL": "claude-y", "STRATA_CONTEXT_WINDOW": "150000", "STRATA_MAX_OUTPUT_TOKENS": "4096"},
			llm.Settings{Model: "claude-opus-4-5", SmallModel: "claude-haiku-4-5", ContextWindow: 1_000_000},
			got{"anthropic", "a", llm.DefaultAnthropicURL, "claude-x", "claude-y", false, 150_000, "STRATA_CONTEXT_WINDOW", 4096}},
		{"settings provider", map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, llm.Settings{Provider: "openai", Model: "gpt-5.1"},
			got{"openai", "o", llm.DefaultOpenAIURL, "gpt-5.1", llm.DefaultOpenAISmallModel, false, 400_000, "default for gpt-5*", llm.DefaultMaxOutputTokens}},
		{"aliases as Claude Code's settings give them", map[string]string{"ANTHROPIC_API_KEY": "a"}, llm.Settings{Model: "opus", SmallModel: "Haiku"},
			got{"anthropic", "a", llm.DefaultAnthropicURL, "claude-opus-4-5", "claude-haiku-4-5", false, 200_000, "default for claude-*", llm.DefaultMaxOutputTokens}},
		{"an alias is no model of another provider", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "STRATA_MODEL": "sonnet"}, llm.Settings{},
			got{"openai", "", "http://localhost:11434/v1", "sonnet", "sonnet", true, 32_768, "default for unknown models", 0}},
		{"anthropic proxy", map[string]string{"ANTHROPIC_BASE_URL": "http://proxy:4000", "ANTHROPIC_API_KEY": "a"}, llm.Settings{},
			got{"anthropic", "a", "http://proxy:4000", llm.DefaultAnthropicModel, llm.DefaultAnthropicSmallModel, true, 200_000, "default for claude-*", llm.DefaultMaxOutputTokens}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llm.FromEnv(envOf(tt.env), tt.settings)
			if err != nil {
				t.Fatal(err)
			}
			g := got{c.Provider, c.APIKey, c.BaseURL, c.Model, c.SmallModel, c.Local, c.ContextWindow, c.ContextWindowSource, c.MaxOutputTokens}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromEnvNotConfigured(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		settings llm.Settings
		says     string
	}{
		{"nothing", nil, llm.Settings{}, "no model provider"},
		{"anthropic without key", map[string]string{"STRATA_PROVIDER": "anthropic"}, llm.Settings{}, "ANTHROPIC_API_KEY"},
		{"openai without key", nil, llm.Settings{Provider: "openai"}, "OPENAI_API_KEY"},
		{"local without model", map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1"}, llm.Settings{}, "STRATA_MODEL"},
		{"unknown provider", map[string]string{"STRATA_PROVIDER": "gemini"}, llm.Settings{}, `unknown provider "gemini"`},
		{"bad window", map[string]string{"ANTHROPIC_API_KEY": "a", "STRATA_CONTEXT_WINDOW": "big"}, llm.Settings{}, "STRATA_CONTEXT_WINDOW"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.FromEnv(envOf(tt.env), tt.settings)
			if !errors.Is(err, llm.ErrNotConfigured) {
				t.Fatalf("err = %v, want ErrNotConfigured", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.says) {
				t.Errorf("message does not mention %q:\n%s", tt.says, msg)
			}
			for _, how := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "STRATA_MODEL", "docs/providers.md"} {
				if !strings.Contains(msg, how) {
					t.Errorf("message does not say how to configure (%s):\n%s", how, msg)
				}
			}
		})
	}
}

func TestDefaultContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int
	}{
		{"claude-sonnet-4-5", 200_000},
		{"anthropic/claude-3-5-haiku", 200_000},
		{"gpt-4o-mini", 128_000},
		{"gpt-4.1-mini", 1_047_576},
		{"gpt-4", 8_192},
		{"o3-mini", 200_000},
		{"Qwen2.5-Coder-32B", 32_768},
		{"mystery-model", llm.DefaultLocalContextWindow},
	}
	for _, tt := range tests {
		if got, _ := llm.DefaultContextWindow(tt.model); got != tt.want {
			t.Errorf("DefaultContextWindow(%q) = %d, want %d", tt.model, got, tt.want)
		}
	}
}

func TestNewUnlinkedProvider(t *testing.T) {
	_, err := llm.New(llm.Config{Provider: "nope"})
	if err == nil || !strings.Contains(err.Error(), "not linked") {
		t.Errorf("err = %v", err)
	}
}
