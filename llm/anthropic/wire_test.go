package anthropic_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite testdata/wire/*.http from what the provider sends")

// wireHeaders are the request headers the goldens pin: the ones the API reads. Others (a
// user agent) may change freely.
var wireHeaders = []string{"Accept", "Anthropic-Version", "Authorization", "Content-Type", "X-Api-Key"}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// TestWireGolden pins the exact bytes of request bodies (field order included: tools, then
// system, then messages, so consecutive requests share a long prefix) and the headers the
// API reads, for requests that use every part of the mapping.
func TestWireGolden(t *testing.T) {
	user := func(bs ...conversation.Block) conversation.Message {
		return conversation.Message{Role: conversation.User, Content: bs}
	}
	asst := func(bs ...conversation.Block) conversation.Message {
		return conversation.Message{Role: conversation.Assistant, Content: bs}
	}
	text := func(s string) conversation.Block { return conversation.Block{Type: conversation.Text, Text: s} }
	img := func(src string) conversation.Block {
		return conversation.Block{Type: conversation.Image, Source: json.RawMessage(src)}
	}
	readTool := llm.Tool{Name: "Read", Description: "Read a file <b>&</b>",
		InputSchema: schema(`{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"path":{"type":"string","description":"路径"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)}
	cases := []struct {
		name string
		cfg  func(*llm.Config)
		req  *llm.Request
	}{
		{name: "text", req: &llm.Request{Messages: []conversation.Message{
			conversation.NewText(conversation.User, "你好 <b>&amp;</b> \u2028 \"quoted\" \\ tab\t 한국어")}}},
		{name: "cache", req: &llm.Request{
			System: []llm.SystemBlock{{Text: "You are strata."}, {Text: "Instructions…", Cache: true}, {Text: "volatile"}},
			Tools: []llm.Tool{readTool, {Name: "Bare"}, {Name: "Glob", Description: "Find files", InputSchema: schema(`{"type":"object","properties":{"pattern":{"type":"string"}}}`), Cache: true},
				{Name: "Odd", Description: "schema with extras only", InputSchema: schema(`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"required":["a",1]}`)}},
			Messages: []conversation.Message{
				user(text("reminder"), text("q1")),
				asst(text("a1")),
				user(text("q2")),
			},
			CachePoints: []llm.CachePoint{{Message: 0, Block: 0}, llm.CacheAfter(1)},
			MaxTokens:   333,
		}},
		{name: "history", req: &llm.Request{ThinkingBudget: 512, // thinking on: signed thinking is sent back
			Tools: []llm.Tool{readTool},
			Messages: []conversation.Message{
				user(text("look at this"), img(`{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}`), img(`{"type":"url","url":"https://example.com/a.png"}`), text("")),
				asst(conversation.Block{Type: conversation.Thinking, Thinking: "想一想", Signature: "sig=="},
					conversation.Block{Type: conversation.RedactedThinking, Data: "Zm9v"},
					text("Reading."),
					conversation.Block{Type: conversation.ToolUse, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"path": "a.go", "limit": 10}`)},
					conversation.Block{Type: conversation.ToolUse, ID: "toolu_2", Name: "Read"},
					conversation.Block{Type: conversation.ToolUse, ID: "toolu_3", Name: "Read"}), // its result is empty
				user(conversation.Block{Type: conversation.ToolResult, ToolUseID: "toolu_1", Content: []conversation.Block{text("package a"), text(""),
					img(`{"type":"base64","media_type":"image/jpeg","data":"/9j/"}`)}},
					conversation.Block{Type: conversation.ToolResult, ToolUseID: "toolu_2", IsError: true, Content: []conversation.Block{text("no such file")}},
					conversation.Block{Type: conversation.ToolResult, ToolUseID: "toolu_3"},
					text("and then?")),
				asst(conversation.Block{Type: conversation.Thinking, Thinking: "unsigned, from another model"}),
				asst(conversation.Block{Type: conversation.Thinking, Thinking: "unsigned"}, text("ok")),
				user(text("继续")),
			},
			CachePoints: []llm.CachePoint{{Message: 0, Block: 1}, {Message: 1, Block: 3}, {Message: 2, Block: 0}, llm.CacheAfter(2)},
		}},
		{name: "thinking", req: &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 1024, ThinkingBudget: 2048,
			System:   []llm.SystemBlock{{Text: "sys", Cache: true}},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "think")}}},
		{name: "thinking-room", req: &llm.Request{MaxTokens: 8000, ThinkingBudget: 2048, Temperature: new(0.5),
			Messages: []conversation.Message{conversation.NewText(conversation.User, "think")}}},
		{name: "adaptive", req: &llm.Request{Model: "claude-opus-4-6", ThinkingBudget: 4096,
			Messages: []conversation.Message{conversation.NewText(conversation.User, "think hard")}}},
		{name: "output", cfg: func(c *llm.Config) { c.MaxOutputTokens = 0 }, req: &llm.Request{ThinkingBudget: 4096,
			Tools: []llm.Tool{readTool},
			Output: &llm.Schema{Name: "select_memories", Description: "the chosen files",
				Schema: schema(`{"type":"object","properties":{"selected":{"type":"array","items":{"type":"string"}}},"required":["selected"]}`)},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "pick")}}},
		{name: "nokey", cfg: func(c *llm.Config) { c.APIKey = "" }, req: &llm.Request{
			Output:   &llm.Schema{Name: "bare"},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "x")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			cfg := srv.Config()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			if cfg.APIKey == "" {
				srv.Key = ""
			}
			reply := llmtest.Text("ok")
			if c.req.Output != nil {
				reply = llmtest.Blocks(llmtest.ToolUse("toolu_o", c.req.Output.Name, `{}`))
			}
			srv.Script(reply)
			if _, err := llm.Complete(t.Context(), newProvider(t, cfg), c.req); err != nil {
				t.Fatal(err)
			}
			llmtest.CheckGolden(t, filepath.Join("testdata", "wire", c.name+".http"), srv.Requests()[0].Dump(wireHeaders...), *update)
		})
	}
}
