package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

func TestResumeRestoresChainTodosAndReadCache(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("main.go", "package main\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"main.go"}`),
			llmtest.ToolUse("t2", "TodoWrite", `{"todos":[{"content":"Add tests","activeForm":"Adding tests","status":"in_progress"}]}`)),
		llmtest.Text("Read it; 中文也可以。"),
	)
	a := f.agent(Options{})
	if _, err := a.Run(context.Background(), "look at main.go", nil); err != nil {
		t.Fatal(err)
	}
	id, before := a.SessionID(), prompt.Messages(a.History())
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	for _, opts := range []Options{{Resume: id[:8]}, {Continue: true}} {
		b := f.agent(opts)
		if b.SessionID() != id {
			t.Fatalf("resumed session %s, want %s", b.SessionID(), id)
		}
		if diff := cmp.Diff(before, prompt.Messages(b.History())); diff != "" {
			t.Errorf("history after resume (-want +got):\n%s", diff)
		}
		if got := b.Todos(); len(got) != 1 || got[0].Content != "Add tests" {
			t.Errorf("todos after resume = %+v", got)
		}
		if out := mustCall(t, b, "Read", `{"file_path":"main.go"}`); out != conversation.UnchangedStub {
			t.Errorf("re-read after resume = %q, want the stub", out)
		}
		// The next request continues the same prefix.
		f.srv.Script(llmtest.Text("continuing"))
		if _, err := b.Run(context.Background(), "go on", nil); err != nil {
			t.Fatal(err)
		}
		reqs := f.srv.Requests()
		prev, _ := json.Marshal(reqs[1].At("messages"))
		next, _ := json.Marshal(reqs[len(reqs)-1].At("messages"))
		if n := commonPrefix(canonical(reqs[1]), canonical(reqs[len(reqs)-1])); n < len(canonical(reqs[1]))*9/10 {
			t.Errorf("resumed request shares only %d of %d bytes with the last request before (%d / %d message bytes)", n, len(canonical(reqs[1])), len(prev), len(next))
		}
		b.Close(context.Background())
		a = b
		before = prompt.Messages(b.History())
	}
}

func TestContinueWithNoSession(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	_, err := New(context.Background(), Options{Provider: f.prov, Continue: true, Open: workspace.Options{Cwd: f.dir, Env: f.env}})
	if !errors.Is(err, ErrResumeNotFound) {
		t.Errorf("err = %v", err)
	}
}

func TestResumeAfterCrashInsideToolCall(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t1", "Glob", `{"pattern":"*"}`)))
	a := f.agent(Options{MaxTurns: 1})
	a.Run(context.Background(), "list", nil) // turn limit: the tool ran and its result is written
	// Simulate a crash between the tool call and its result: append an assistant tool call
	// with no result.
	a.appendMessage(conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{llmtest.ToolUse("t9", "Bash", `{"command":"make"}`)}}, false)
	a.endTurn(context.Background())
	a.Close(context.Background())
	b := f.agent(Options{Resume: a.SessionID()})
	h := b.History()
	last := h[len(h)-1].Message
	if len(last.Content) != 1 || last.Content[0].ToolUseID != "t9" || !last.Content[0].IsError {
		t.Errorf("last message after resume = %+v; want an interrupted result for t9", last)
	}
	loadTranscript(t, b)
}

// A file without a conversation (summaries or titles only) is not resumed, as Claude Code
// refuses it ("No conversation found").
func TestResumeRefusesFileWithoutConversation(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	id := "55555555-5555-4555-8555-555555555555"
	path := transcript.SessionPath(f.env, f.dir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"type":"summary","summary":"Only","leafUuid":"zz1"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Options{Provider: f.prov, Resume: id, Open: workspace.Options{Cwd: f.dir, Env: f.env}})
	if !errors.Is(err, ErrResumeNotFound) || !strings.Contains(err.Error(), "no conversation") {
		t.Errorf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the file was written to:\n%s", data)
	}
}
