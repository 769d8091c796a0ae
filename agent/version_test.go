package agent

import (
	"context"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
)

// Every transcript entry records the writer's version as Claude Code records its own: "strata"
// and the version the CLI passes.
func TestTranscriptRecordsVersion(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Text("hi"))
	a := f.agent(Options{Version: "1.2.3"})
	if _, err := a.Run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	sess := loadTranscript(t, a)
	n := 0
	for _, e := range sess.Live() {
		if e.IsConversation() {
			n++
			if e.Version != "strata 1.2.3" {
				t.Errorf("%s entry version %q, want %q", e.Type, e.Version, "strata 1.2.3")
			}
		}
	}
	if n < 2 {
		t.Fatalf("%d conversation entries, want the prompt and the reply", n)
	}
}
