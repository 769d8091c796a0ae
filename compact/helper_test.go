package compact

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"

	_ "github.com/strata-mem/strata/llm/anthropic"
)

// newServer returns a fake Anthropic server and a provider that does not retry (so a scripted
// failure is one failed call).
func newServer(t *testing.T) (*llmtest.Server, llm.Provider) {
	t.Helper()
	srv := llmtest.NewAnthropic(t)
	cfg := srv.Config()
	cfg.Retry = llm.RetryPolicy{MaxAttempts: 1, BaseDelay: time.Millisecond}
	p, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// promptOf returns the text of a recorded summary request's single user message.
func promptOf(t *testing.T, r llmtest.Request) string {
	t.Helper()
	s, ok := r.At("messages", 0, "content", 0, "text").(string)
	if !ok {
		// Plain string content.
		s, ok = r.At("messages", 0, "content").(string)
	}
	if !ok {
		t.Fatalf("request has no user text: %s", r.Body)
	}
	if n := len(r.At("messages").([]any)); n != 1 {
		t.Fatalf("summary request has %d messages, want 1", n)
	}
	return s
}

// chat builds a history of n turns: a user instruction, an assistant tool call, its result and
// an assistant reply; each turn carries about size tokens of tool output.
func chat(n, size int) []conversation.Entry {
	h, _ := conversation.NewHistory(nil)
	for i := range n {
		h.Append(conversation.NewText(conversation.User, fmt.Sprintf("instruction %d: 请修改 file%d.go 并运行测试", i, i)))
		id := fmt.Sprintf("toolu_%d", i)
		h.Append(conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{
			{Type: conversation.ToolUse, ID: id, Name: "Read", Input: []byte(fmt.Sprintf(`{"file_path":"file%d.go"}`, i))}}})
		h.Append(conversation.Message{Role: conversation.User, Content: []conversation.Block{
			{Type: conversation.ToolResult, ToolUseID: id, Content: []conversation.Block{{Type: conversation.Text, Text: strings.Repeat("x := 1 // filler\n", size/4)}}}}})
		h.Append(conversation.NewText(conversation.Assistant, fmt.Sprintf("done with step %d", i)))
	}
	return h.Entries()
}

// pin is a message the user pinned, all typed.
func pin(text string) conversation.Input {
	in := conversation.TypedInput(text)
	in.Pinned = true
	return in
}

// historyOf builds a conversation of user inputs with their recorded provenance, each
// followed by an assistant reply of about reply tokens; a string is a message with none
// recorded (a transcript written before provenance).
func historyOf(users []any, reply int) []conversation.Entry {
	h, _ := conversation.NewHistory(nil)
	for _, u := range users {
		switch u := u.(type) {
		case string:
			h.Append(conversation.NewText(conversation.User, u))
		case conversation.Input:
			h.AppendEntry(conversation.Entry{Message: conversation.NewText(conversation.User, u.Text()), Provenance: u.Provenance()})
		}
		h.Append(conversation.NewText(conversation.Assistant, strings.Repeat("ok. ", reply/2)))
	}
	return h.Entries()
}
