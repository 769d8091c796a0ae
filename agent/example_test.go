package agent_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/workspace"
)

// scripted is a tiny llm.Provider that answers every request with the next reply of a script,
// for the example; tests use the wire-level fakes of llm/llmtest instead.
type scripted struct{ replies [][]llm.Event }

func (p *scripted) Stream(ctx context.Context, req *llm.Request) (*llm.Stream, error) {
	evs := p.replies[0]
	p.replies = p.replies[1:]
	return llm.NewStream(ctx, func(context.Context) (llm.Source, error) { return &source{evs: evs}, nil }, llm.StreamOptions{}), nil
}

type source struct{ evs []llm.Event }

func (s *source) Recv() (llm.Event, error) {
	if len(s.evs) == 0 {
		return llm.Event{}, io.EOF
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}
func (s *source) Close() error { return nil }

func reply(blocks ...conversation.Block) []llm.Event {
	evs := []llm.Event{{Type: llm.EventStart, ID: "msg", Model: "example"}}
	stop := llm.StopEndTurn
	for i, b := range blocks {
		start := b
		start.Text, start.Input = "", nil
		evs = append(evs, llm.Event{Type: llm.EventBlockStart, Index: i, Block: &start})
		if b.Type == conversation.Text {
			evs = append(evs, llm.Event{Type: llm.EventText, Index: i, Text: b.Text})
		} else {
			evs = append(evs, llm.Event{Type: llm.EventToolInput, Index: i, Text: string(b.Input)})
			stop = llm.StopToolUse
		}
		evs = append(evs, llm.Event{Type: llm.EventBlockStop, Index: i})
	}
	return append(evs, llm.Event{Type: llm.EventStop, StopReason: stop})
}

// The agent reads a file with its Read tool, then answers; events stream to the Sink.
func Example() {
	dir, _ := os.MkdirTemp("", "agent-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ship on Friday\n"), 0o600)

	prov := &scripted{replies: [][]llm.Event{
		reply(conversation.Block{Type: conversation.ToolUse, ID: "t1", Name: "Read", Input: []byte(`{"file_path":"notes.txt"}`)}),
		reply(conversation.Block{Type: conversation.Text, Text: "The notes say: ship on Friday."}),
	}}
	a, err := agent.New(context.Background(), agent.Options{
		Provider:     prov,
		Open:         workspace.Options{Cwd: dir, Settings: &config.Settings{}, Env: config.Env{Home: filepath.Join(dir, ".strata")}},
		NoTranscript: true,
		NoBackground: true, // no memory extraction after the turn: this provider has two replies only
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close(context.Background())
	res, err := a.Run(context.Background(), "What do my notes say?", func(e agent.Event) {
		switch e.Kind {
		case agent.EventToolStart:
			fmt.Printf("tool: %s %s\n", e.Tool.Name, e.Tool.Input)
		case agent.EventToolEnd:
			fmt.Printf("result: %q\n", e.Output)
		}
	})
	fmt.Println(res.Text, res.Turns, err)
	// Output:
	// tool: Read {"file_path":"notes.txt"}
	// result: "     1\tship on Friday\n"
	// The notes say: ship on Friday. 2 <nil>
}
