package agent

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
)

// fakeHandler keeps the walk's messages itself and refuses every call of refuse.
type fakeHandler struct {
	msgs   []conversation.Message
	refuse string
	runs   []string
	fails  []error
}

func (h *fakeHandler) request(context.Context, int) (*llm.Request, error) {
	return &llm.Request{Messages: h.msgs, MaxTokens: 100}, nil
}

func (h *fakeHandler) record(_ context.Context, m conversation.Message, _ *conversation.Usage) {
	h.msgs = append(h.msgs, m)
}

func (h *fakeHandler) failed(_ context.Context, _ *llm.Response, _ map[string]bool, err error, _ int) (bool, error) {
	h.fails = append(h.fails, err)
	return false, err
}

func (h *fakeHandler) decide(_ context.Context, t *tool.Tool, _ *ToolCall, _ toolcall.Call, _ int) (bool, string, bool) {
	if t.Name == h.refuse {
		return false, "refused by the handler", true
	}
	return true, "", false
}

func (h *fakeHandler) ran(t *tool.Tool, _ toolcall.Call, isErr bool) {
	h.runs = append(h.runs, t.Name)
}

// The walk on its own, with no Agent: every call of a reply is decoded and put to the
// handler, and answered in order (run, refused, unknown, undecodable); the turn limit and a
// cancelled context end it the way both the main agent and the forks rely on.
func TestWalk(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("notes.txt", "alpha\n")
	perms, err := permission.New(permission.ModeBypass, nil, nil, f.dir, f.env.UserHome)
	if err != nil {
		t.Fatal(err)
	}
	newLoop := func(h handler, max int, sink Sink) *loop {
		env := tool.NewForkEnv(f.dir, f.env.UserHome, slog.New(slog.DiscardHandler), time.Now, time.Minute, nil, perms, "")
		return &loop{provider: f.prov, tools: tool.NewBox(false), env: env, maxTurns: max, sink: sink, h: h}
	}
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("1", "Read", `{"file_path":"notes.txt"}`), llmtest.ToolUse("2", "Bash", `{"command":"touch x"}`),
			llmtest.ToolUse("3", "Teleport", `{}`), llmtest.ToolUse("4", "Read", `{"path":"notes.txt"}`)),
		llmtest.Text("done"),
	)
	h := &fakeHandler{msgs: []conversation.Message{conversation.NewText(conversation.User, "go")}, refuse: "Bash"}
	var kinds []EventKind
	res, err := newLoop(h, 5, func(e Event) { kinds = append(kinds, e.Kind) }).run(t.Context())
	if err != nil || res.Turns != 2 || res.ToolCalls != 4 || res.Text != "done" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if len(h.msgs) != 4 {
		t.Fatalf("%d messages, want prompt, calls, results, answer", len(h.msgs))
	}
	var got []string
	for _, b := range h.msgs[2].Content {
		got = append(got, b.ToolUseID+":"+strings.SplitN(b.Content[0].Text, "\n", 2)[0])
	}
	if !strings.Contains(got[0], "alpha") || got[1] != "2:refused by the handler" || !strings.HasPrefix(got[2], `3:There is no tool called "Teleport"`) || !strings.HasPrefix(got[3], "4:") {
		t.Errorf("results = %q", got)
	}
	if !h.msgs[2].Content[1].IsError || !h.msgs[2].Content[3].IsError || h.msgs[2].Content[0].IsError {
		t.Errorf("error flags of the results: %+v", h.msgs[2].Content)
	}
	if d := cmp.Diff([]string{"Read"}, h.runs); d != "" {
		t.Errorf("ran (-want +got):\n%s", d)
	}
	want := []EventKind{EventRequest, EventUsage, EventAssistant, EventToolStart, EventToolEnd, EventRequest, EventText, EventUsage, EventAssistant}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}

	// A model still calling tools at the last allowed request: ErrMaxTurns, the results kept.
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("5", "Read", `{"file_path":"notes.txt"}`)))
	h = &fakeHandler{msgs: []conversation.Message{conversation.NewText(conversation.User, "go")}}
	if res, err := newLoop(h, 1, func(Event) {}).run(t.Context()); !errors.Is(err, ErrMaxTurns) || res.Turns != 1 || len(h.msgs) != 3 {
		t.Errorf("turn limit: %+v, %v, %d messages", res, err, len(h.msgs))
	}

	// A cancelled context: no request, the handler told, Interrupted.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	h = &fakeHandler{msgs: []conversation.Message{conversation.NewText(conversation.User, "go")}}
	if res, err := newLoop(h, 5, func(Event) {}).run(ctx); !errors.Is(err, context.Canceled) || !res.Interrupted || res.Turns != 0 || len(h.fails) != 1 {
		t.Errorf("cancelled: %+v, %v, failed %v", res, err, h.fails)
	}
}
