package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/llm/llmtest"
)

func TestCompactKeepsTaskAndResumes(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("main.go", "package main\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"main.go"}`),
			llmtest.ToolUse("t2", "TodoWrite", `{"todos":[{"content":"Add tests","activeForm":"Adding tests","status":"in_progress"}]}`)),
		llmtest.Text("read"),
		llmtest.Text("ok"),
		llmtest.Text("1. Primary request and intent: tests for main.go"), // the summary
		llmtest.Text("continuing"),
	)
	a := f.agent(Options{})
	ctx := context.Background()
	for _, p := range []string{"look at main.go", "然后写测试，不要改 API"} {
		if _, err := a.Run(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Compact(ctx, "keep the API rule")
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != compact.MethodModel || len(r.Files) != 1 {
		t.Errorf("method %s, files %q", r.Method, r.Files)
	}
	if _, err := a.Run(ctx, "go on", nil); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	last := reqs[len(reqs)-1]
	first, _ := last.At("messages", 0, "content", 0, "text").(string)
	for _, want := range []string{compact.SummaryHeader, "look at main.go", "然后写测试，不要改 API"} {
		if !strings.Contains(first, want) {
			t.Errorf("first message after compaction lacks %q:\n%s", want, first)
		}
	}
	if got := a.Todos(); len(got) != 1 || got[0].Content != "Add tests" {
		t.Errorf("todos after compaction = %+v", got)
	}
	id, before := a.SessionID(), messages(a.History())
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b := f.agent(Options{Resume: id})
	if diff := cmp.Diff(before, messages(b.History())); diff != "" {
		t.Errorf("history after resume (-want +got):\n%s", diff)
	}
	if got := b.Todos(); len(got) != 1 || got[0].Content != "Add tests" {
		t.Errorf("todos after resume = %+v", got)
	}
}
