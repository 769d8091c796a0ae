package agent

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/transcript"
)

// The turn's prompt and the model's tool calls are durable before any tool runs: a crash or
// kill -9 during a tool (a Read that exhausts memory, say) loses neither. The test reads the
// transcript file from disk at the moment the tool starts.
func TestPromptDurableBeforeToolsRun(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "a\n")
	f.srv.Script(
		llmtest.Blocks(use("r1", "Read", map[string]any{"file_path": "a.txt"})),
		llmtest.Text("done"),
	)
	a := f.agent(Options{})
	var onDisk string
	sink := func(e Event) {
		if e.Kind == EventToolStart {
			data, err := os.ReadFile(a.TranscriptPath())
			if err != nil {
				t.Errorf("transcript at tool start: %v", err)
			}
			onDisk = string(data)
		}
	}
	const prompt = "读一下 a.txt, please"
	if _, err := a.Run(context.Background(), prompt, sink); err != nil {
		t.Fatal(err)
	}
	var texts []string
	uses := 0
	for _, line := range strings.Split(strings.TrimSpace(onDisk), "\n") {
		e, err := transcript.ParseEntry([]byte(line))
		if err != nil {
			t.Fatalf("the transcript on disk at tool start: %v\n%s", err, onDisk)
		}
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			continue
		}
		texts = append(texts, m.TextOf())
		for _, b := range m.Content {
			if b.Type == conversation.ToolUse {
				uses++
			}
		}
	}
	if !strings.Contains(strings.Join(texts, "\n"), prompt) || uses != 1 {
		t.Errorf("at tool start the transcript on disk has texts %q and %d tool calls; want the prompt and 1", texts, uses)
	}
}
