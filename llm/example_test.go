package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

func ExampleFromEnv() {
	vars := map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "STRATA_MODEL": "qwen2.5-coder:7b"}
	env := config.Env{Getenv: func(k string) string { return vars[k] }}
	cfg, err := llm.FromEnv(env, llm.Settings{ContextWindow: 32768})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Provider, cfg.BaseURL, cfg.Model, cfg.SmallModel)
	fmt.Println(cfg.ContextWindow, "from", cfg.ContextWindowSource)
	// Output:
	// openai http://localhost:11434/v1 qwen2.5-coder:7b qwen2.5-coder:7b
	// 32768 from setting contextWindow
}

func ExampleFromEnv_notConfigured() {
	_, err := llm.FromEnv(config.Env{}, llm.Settings{})
	fmt.Println(errors.Is(err, llm.ErrNotConfigured))
	// Output: true
}

// echo is a toy provider: it answers every request with the text of the last message.
type echo struct{}

func (echo) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	text := req.Messages[len(req.Messages)-1].TextOf()
	open := func(context.Context) (llm.Source, error) {
		return &events{evs: []llm.Event{
			{Type: llm.EventStart, ID: "1", Model: "echo"},
			{Type: llm.EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.Text}},
			{Type: llm.EventText, Index: 0, Text: text},
			{Type: llm.EventBlockStop, Index: 0},
			{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		}}, nil
	}
	return llm.NewStream(ctx, open, llm.StreamOptions{Endpoint: llm.Endpoint{Provider: "echo"}}), nil
}

type events struct{ evs []llm.Event }

func (e *events) Recv() (llm.Event, error) {
	if len(e.evs) == 0 {
		return llm.Event{}, io.EOF
	}
	ev := e.evs[0]
	e.evs = e.evs[1:]
	return ev, nil
}
func (e *events) Close() error { return nil }

func ExampleStream() {
	var p llm.Provider = echo{}
	req := &llm.Request{Messages: []conversation.Message{conversation.NewText(conversation.User, "你好, strata")}}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for s.Next() {
		if ev := s.Event(); ev.Type == llm.EventText {
			fmt.Println("delta:", ev.Text)
		}
	}
	if err := s.Err(); err != nil {
		fmt.Println(err)
		return
	}
	resp := s.Response()
	fmt.Println(resp.StopReason, resp.Usage.OutputTokens, resp.Message.TextOf())
	// Output:
	// delta: 你好, strata
	// end_turn 2 你好, strata
}

func ExampleComplete() {
	resp, err := llm.Complete(context.Background(), echo{}, &llm.Request{
		Messages: []conversation.Message{conversation.NewText(conversation.User, "ping")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Role, resp.Message.TextOf())
	// Output: assistant ping
}
