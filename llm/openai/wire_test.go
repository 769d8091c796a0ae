package openai_test

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

// wireHeaders are the request headers the goldens pin: the ones a server reads.
var wireHeaders = []string{"Accept", "Authorization", "Content-Type"}

// TestWireGolden pins the exact bytes of request bodies (field order included: tools before
// the growing messages, so consecutive requests share a long prefix) and the headers a server
// reads, for requests that use every part of the mapping.
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
	remote := func(c *llm.Config) { c.Local = false }
	readTool := llm.Tool{Name: "Read", Description: "Read a file <b>&</b>", Cache: true,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"路径"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)}
	think := func(model string, budget int) *llm.Request {
		return &llm.Request{Model: model, ThinkingBudget: budget, Messages: []conversation.Message{conversation.NewText(conversation.User, "think")}}
	}
	cases := []struct {
		name string
		cfg  func(*llm.Config)
		req  *llm.Request
	}{
		{name: "text", req: &llm.Request{Temperature: new(0.2),
			System:   []llm.SystemBlock{{Text: "You are strata.", Cache: true}, {Text: "Be brief."}},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "你好 <b>&amp;</b> \u2028 \"quoted\" \\ tab\t 한국어")}}},
		{name: "remote", cfg: remote, req: &llm.Request{MaxTokens: 77, Temperature: new(0.0),
			Messages: []conversation.Message{conversation.NewText(conversation.User, "hi")}}},
		{name: "reasoning-low", cfg: remote, req: think("gpt-5", 2048)},
		{name: "reasoning-medium", cfg: remote, req: think("o3-mini", 8192)},
		{name: "reasoning-high", cfg: remote, req: think("GPT-5.1", 8193)},
		{name: "reasoning-not", cfg: remote, req: think("gpt-4.1", 8193)},
		{name: "reasoning-local", req: think("o3", 8193)},
		{name: "nomax", cfg: func(c *llm.Config) { c.MaxOutputTokens = 0 }, req: think("m", 0)},
		{name: "history", req: &llm.Request{
			Tools: []llm.Tool{readTool, {Name: "Bare"}},
			Messages: []conversation.Message{
				user(text("look at this"), text(""), text("and this")),
				asst(conversation.Block{Type: conversation.Thinking, Thinking: "想一想", Signature: "sig=="},
					text("Reading "), text("both."),
					conversation.Block{Type: conversation.ToolUse, ID: "call_1", Name: "Read", Input: json.RawMessage(`{"path": "a.go", "limit": 10}`)},
					conversation.Block{Type: conversation.ToolUse, ID: "call_2", Name: "Read"},
					conversation.Block{Type: conversation.ToolUse, ID: "call_3", Name: "Read"}), // its result is empty
				user(conversation.Block{Type: conversation.ToolResult, ToolUseID: "call_1", Content: []conversation.Block{text("package a"), text("func main() "), text("end"),
					img(`{"type":"base64","media_type":"image/jpeg","data":"/9j/"}`)}},
					conversation.Block{Type: conversation.ToolResult, ToolUseID: "call_2", IsError: true, Content: []conversation.Block{text("no such file")}},
					conversation.Block{Type: conversation.ToolResult, ToolUseID: "call_3"},
					text("and then?")),
				asst(conversation.Block{Type: conversation.Thinking, Thinking: "only thinking"}),
				asst(conversation.Block{Type: conversation.ToolUse, ID: "call_4", Name: "Bare", Input: json.RawMessage(`{}`)}),
				user(conversation.Block{Type: conversation.ToolResult, ToolUseID: "call_4", Content: []conversation.Block{text("done")}}),
				user(text("图片:"), img(`{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}`), img(`{"type":"url","url":"https://example.com/a.png"}`)),
			},
		}},
		{name: "output", req: &llm.Request{Tools: []llm.Tool{readTool},
			Output: &llm.Schema{Name: "select_memories", Description: "the chosen files",
				Schema: json.RawMessage(`{"type":"object","properties":{"selected":{"type":"array","items":{"type":"string"}}},"required":["selected"]}`)},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "pick")}}},
		{name: "output-bare", req: &llm.Request{Output: &llm.Schema{Name: "bare"},
			Messages: []conversation.Message{conversation.NewText(conversation.User, "pick")}}},
		{name: "nokey", cfg: func(c *llm.Config) { c.APIKey = "" }, req: &llm.Request{
			Messages: []conversation.Message{conversation.NewText(conversation.User, "x")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			cfg := srv.Config()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			if cfg.APIKey == "" {
				srv.Key = ""
			}
			reply := llmtest.Text("ok")
			if c.req.Output != nil {
				reply = llmtest.Text("{}")
			}
			srv.Script(reply)
			if _, err := llm.Complete(t.Context(), newProvider(t, cfg), c.req); err != nil {
				t.Fatal(err)
			}
			llmtest.CheckGolden(t, filepath.Join("testdata", "wire", c.name+".http"), srv.Requests()[0].Dump(wireHeaders...), *update)
		})
	}
}
