package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

func TestLoopRunsToolsUntilTheModelStops(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			f.write("notes.txt", "alpha\nbeta\n")
			f.srv.Script(
				llmtest.Blocks(llmtest.TextBlock("Let me look."), llmtest.ToolUse("t1", "Read", `{"file_path":"notes.txt"}`)),
				llmtest.Text("The file says alpha and beta."),
			)
			a := f.agent(Options{})
			var rec recorder
			res, err := a.Run(context.Background(), "What is in notes.txt?", rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "The file says alpha and beta." || res.Turns != 2 || res.ToolCalls != 1 {
				t.Errorf("result = %+v", res)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			got := toolResults(reqs[1])
			if format == llmtest.OpenAI {
				got = nil // tool results are separate "tool" messages there
			} else if len(got) != 1 || !strings.Contains(got[0], "     1\talpha\n     2\tbeta") {
				t.Errorf("tool result = %q", got)
			}
			kinds := rec.kinds()
			for _, want := range []EventKind{EventRequest, EventText, EventToolStart, EventToolEnd, EventUsage} {
				if !containsKind(kinds, want) {
					t.Errorf("no %s event in %v", want, kinds)
				}
			}
			sess := loadTranscript(t, a)
			msgs, err := transcript.Messages(sess.Live())
			if err != nil {
				t.Fatal(err)
			}
			roles := []string{}
			for _, m := range msgs {
				roles = append(roles, string(m.Role))
			}
			if diff := cmp.Diff([]string{"user", "assistant", "user", "assistant"}, roles); diff != "" {
				t.Errorf("transcript roles (-want +got):\n%s", diff)
			}
		})
	}
}

func containsKind(ks []EventKind, k EventKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func TestTurnLimit(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "x\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Glob", `{"pattern":"*.txt"}`)),
		llmtest.Blocks(llmtest.ToolUse("t2", "Glob", `{"pattern":"*.md"}`)),
	)
	a := f.agent(Options{MaxTurns: 2})
	res, err := a.Run(context.Background(), "loop", nil)
	if !errors.Is(err, ErrMaxTurns) {
		t.Fatalf("err = %v, want ErrMaxTurns", err)
	}
	if res.Turns != 2 {
		t.Errorf("turns = %d", res.Turns)
	}
	loadTranscript(t, a)
}

func TestCancelDuringToolLeavesConsistentTranscript(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"sleep 30"}`), llmtest.ToolUse("t2", "Glob", `{"pattern":"*"}`)),
	)
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := func(e Event) {
		if e.Kind == EventToolStart && e.Tool.Name == "Bash" {
			cancel()
		}
	}
	res, err := a.Run(ctx, "sleep", sink)
	if !errors.Is(err, context.Canceled) || !res.Interrupted {
		t.Fatalf("err = %v, interrupted = %v", err, res.Interrupted)
	}
	sess := loadTranscript(t, a)
	tus := sess.ToolUses()
	if len(tus) != 2 {
		t.Fatalf("%d tool uses in the transcript, want 2", len(tus))
	}
	for _, tu := range tus {
		if !tu.IsError {
			t.Errorf("%s: result not marked is_error", tu.Name)
		}
	}
	// The conversation goes on: the next request is valid (a new message after the note).
	f.srv.Script(llmtest.Text("ok"))
	if _, err := a.Run(context.Background(), "go on", nil); err != nil {
		t.Fatal(err)
	}
	last := f.srv.Requests()[1]
	msgs := last.At("messages").([]any)
	if llmtest.At(msgs[len(msgs)-1], "role") != "user" || llmtest.At(msgs[len(msgs)-2], "role") != "assistant" {
		t.Errorf("roles do not alternate at the end of the request after an interrupt")
	}
	text := lastUserText(last)
	if !strings.Contains(text, "interrupted") || !strings.Contains(text, "go on") {
		t.Errorf("last user message = %q; want the interrupt note and the new message", text)
	}
}

func lastUserText(req llmtest.Request) string {
	msgs := req.At("messages").([]any)
	var b strings.Builder
	content, _ := llmtest.At(msgs[len(msgs)-1], "content").([]any)
	for _, c := range content {
		if s, ok := llmtest.At(c, "text").(string); ok {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

func TestCancelDuringStream(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Text("a long answer that will stall").StallAfter(4))
	a := f.agent(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := func(e Event) {
		if e.Kind == EventText {
			cancel()
		}
	}
	res, err := a.Run(ctx, "talk", sink)
	if !errors.Is(err, context.Canceled) || !res.Interrupted {
		t.Fatalf("err = %v, interrupted = %v", err, res.Interrupted)
	}
	loadTranscript(t, a)
	h := a.History()
	if h[len(h)-1].Message.TextOf() != interruptNote {
		t.Errorf("last history entry = %q, want the interrupt note", h[len(h)-1].Message.TextOf())
	}
}

func TestUnknownToolAndBadInput(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Teleport", `{}`), llmtest.ToolUse("t2", "Read", `{"file_path":""}`)),
		llmtest.Text("sorry"),
	)
	a := f.agent(Options{})
	var rec recorder
	if _, err := a.Run(context.Background(), "x", rec.sink); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != 2 || !strings.Contains(got[0], `no tool called "Teleport"`) || !strings.Contains(got[1], "file_path is required") {
		t.Errorf("results = %q", got)
	}
}
