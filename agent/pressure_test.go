package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/workspace"
)

// modelFake answers the way a model does under compaction: a summary call gets a short summary,
// a condensation of the pinned messages gets their own text back one per line (a condenser that
// loses nothing), and any other request gets reply. With usage set, every reply reports usage
// as a provider does: the prompt's size (estimated over the request body as sent) and the
// reply's, so the agent's thresholds run on reported usage.
type modelFake struct {
	reply string
	usage bool

	mu                                sync.Mutex
	summaries, condensations, answers int
}

func (m *modelFake) serve(r llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	text, _ := r.At("messages", 0, "content", 0, "text").(string)
	var rep llmtest.Reply
	switch {
	case len(r.At("messages").([]any)) == 1 && strings.HasPrefix(text, "<conversation"):
		m.summaries++
		rep = llmtest.Text(fmt.Sprintf("1. Primary request and intent: summary %d of the session.", m.summaries))
	case len(r.At("messages").([]any)) == 1 && strings.HasPrefix(text, "<message n="):
		m.condensations++
		var rules []string
		for i, part := range strings.Split(text, "</message>")[:strings.Count(text, "</message>")] {
			rules = append(rules, fmt.Sprintf("%d. %s", i+1, strings.TrimSpace(part[strings.Index(part, ">\n")+2:])))
		}
		rep = llmtest.Text(strings.Join(rules, "\n"))
	default:
		m.answers++
		rep = llmtest.Text(m.reply)
	}
	if m.usage {
		rep = rep.WithUsage(llm.Usage{InputTokens: tokens.Estimate(string(r.Body)), OutputTokens: tokens.Estimate(m.reply)})
	}
	return rep
}

// filler returns neutral text of about n tokens (no standing-instruction cue in it).
func filler(n int, topic string) string {
	s := fmt.Sprintf("The ingestion stage for %s reads records from the queue, validates their schema and writes batches to the warehouse. ", topic)
	return strings.Repeat(s, max(n/tokens.Estimate(s), 1))
}

// TestCompactionUnderPressure is issue 14's scripted session: 60 turns whose user messages
// alone exceed the window, the first one a standing instruction. At most 10 automatic
// compactions, the instruction in every request, no error, and the resumed session equal.
func TestCompactionUnderPressure(t *testing.T) {
	if testing.Short() {
		t.Skip("long sessions")
	}
	const rule = "From now on always answer in French."
	for _, tc := range []struct {
		name             string
		window, msg      int
		minComp, maxComp int
	}{
		{"30K window, 900-token messages", 30_000, 900, 3, 10},
		{"200K window, 3000-token messages", 200_000, 3000, 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, llmtest.Anthropic)
			m := &modelFake{reply: "D'accord. " + filler(150, "la réponse"), usage: true}
			f.srv.Fallback = m.serve
			opts := Options{ContextWindow: tc.window, MaxTokens: 4000}
			a := f.agent(opts)
			var rec recorder
			ctx := context.Background()
			var prompts []string
			for i := range 60 {
				p := filler(tc.msg, fmt.Sprintf("message %d", i))
				if i == 0 {
					p = rule + " " + p
				}
				prompts = append(prompts, p)
				if _, err := a.Run(ctx, p, rec.sink); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
			}
			compactions := rec.autoCompactions(t, "is now off", "over its target", "skipped")
			if compactions < tc.minComp || compactions > tc.maxComp || m.summaries < compactions {
				t.Errorf("%d automatic compactions (%d summary calls), want %d to %d", compactions, m.summaries, tc.minComp, tc.maxComp)
			}
			// The instruction is in every request the agent sent, before and after compactions.
			// Tokens sent (summary calls included) against sending the whole history every turn.
			var sent, whole, hist, answers int
			reply := tokens.Estimate(m.reply)
			for i, r := range f.srv.Requests() {
				sent += tokens.Estimate(string(r.Body))
				if text, _ := r.At("messages", 0, "content", 0, "text").(string); strings.HasPrefix(text, "<conversation") || strings.HasPrefix(text, "<message n=") {
					continue
				}
				if answers == 0 {
					whole = tokens.Estimate(string(r.Body)) - tokens.Estimate(prompts[0])
				}
				hist += tokens.Estimate(prompts[answers])
				whole += hist
				hist += reply
				answers++
				if !strings.Contains(string(r.Body), rule) {
					t.Errorf("request %d lacks the standing instruction", i)
				}
			}
			if answers != 60 {
				t.Errorf("%d answer requests, want 60", answers)
			}
			t.Logf("%s: %d automatic compactions, %d condensations, %d requests; %d tokens sent (estimated) vs %d for the whole history every turn (ratio %.3f)",
				tc.name, compactions, m.condensations, len(f.srv.Requests()), sent, whole, float64(sent)/float64(whole))

			id, before := a.SessionID(), prompt.Messages(a.History())
			if err := a.Close(ctx); err != nil {
				t.Fatal(err)
			}
			b := f.agent(Options{Resume: id, ContextWindow: tc.window, MaxTokens: 4000})
			if diff := cmp.Diff(before, prompt.Messages(b.History())); diff != "" {
				t.Errorf("history after resume (-want +got):\n%s", diff)
			}
		})
	}
}

// TestThrashBreaker: when every turn refills the context past the threshold right after a
// compaction, the third refill in a row stops automatic compaction with a message that says
// why and what to do; /compact still works and turns it back on.
func TestThrashBreaker(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	m := &modelFake{reply: "ok"}
	f.srv.Fallback = m.serve
	a := f.agent(Options{ContextWindow: 30_000, MaxTokens: 4000}) // auto at 15K, refused at 27K
	var rec recorder
	ctx := context.Background()
	var full error
	for i := range 10 {
		p := "hi"
		if i > 0 {
			p = filler(6000, fmt.Sprintf("part %d", i)) // each message refills the context
		}
		if _, err := a.Run(ctx, p, rec.sink); err != nil {
			if !errors.Is(err, ErrContextFull) {
				t.Fatalf("turn %d: %v", i, err)
			}
			full = err
			break
		}
	}
	var compactions, stops int
	var stop string
	for _, e := range rec.events {
		switch {
		case e.Kind != EventCompact:
		case strings.HasPrefix(e.Text, "conversation compacted automatically"):
			if stops > 0 {
				t.Errorf("automatic compaction after the breaker stopped it: %s", e.Text)
			}
			compactions++
		case strings.Contains(e.Text, "is now off"):
			stops++
			stop = e.Text
		}
	}
	// The first compaction, then three that the context refilled right after: the third
	// refill stops it.
	if compactions != compact.MaxRefills || stops != 1 || a.breaker.AllowAuto() {
		t.Fatalf("%d automatic compactions, %d stop notices, auto allowed %v", compactions, stops, a.breaker.AllowAuto())
	}
	for _, want := range []string{"filled up again", "/compact", "larger context window"} {
		if !strings.Contains(stop, want) {
			t.Errorf("stop notice lacks %q: %s", want, stop)
		}
	}
	if !strings.Contains(strings.Join(a.Warnings(), "\n"), "filled up again") {
		t.Error("the stop is not in the warnings")
	}
	if full == nil {
		t.Error("the context never reached the refusal point: the test proves less than it should")
	}
	summaries := m.summaries
	r, err := a.Compact(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.summaries == summaries || !a.breaker.AllowAuto() || r.Trigger != compact.Manual {
		t.Errorf("manual compaction: %d summary calls, auto allowed %v", m.summaries-summaries, a.breaker.AllowAuto())
	}
	if _, err := a.Run(ctx, "go on", rec.sink); err != nil {
		t.Errorf("after /compact: %v", err)
	}
}

// TestCompactThatCannotShrink: a conversation smaller than what a compaction must carry is left
// as it is — no model call, nothing written to the transcript — and the error says why.
func TestCompactThatCannotShrink(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Text("Bonjour."))
	a := f.agent(Options{})
	ctx := context.Background()
	if _, err := a.Run(ctx, "hello 你好", nil); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(a.TranscriptPath())
	if err != nil {
		t.Fatal(err)
	}
	hist := prompt.Messages(a.History())
	_, err = a.Compact(ctx, "")
	var ns *compact.NotSmallerError
	if !errors.Is(err, compact.ErrNotSmaller) || !errors.As(err, &ns) || ns.Post < ns.Pre {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "would not make the context smaller") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("message %q", err)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want only the answer", n)
	}
	if err := a.sess.journal.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(a.TranscriptPath())
	if err != nil || string(after) != string(before) {
		t.Errorf("the transcript changed (%d → %d bytes, %v)", len(before), len(after), err)
	}
	if diff := cmp.Diff(hist, prompt.Messages(a.History())); diff != "" {
		t.Errorf("history changed (-before +after):\n%s", diff)
	}
}

// TestReinjectedFilesAfterResume: after /compact in a resumed session that read handler.go, the
// re-injected files are handler.go and the other files the agent touched — not the instruction
// files or the memory index, which the prompt holds — and no instruction text is in the
// request twice.
func TestReinjectedFilesAfterResume(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("CLAUDE.md", "Project rule: run gofmt.\n")
	f.write("CLAUDE.local.md", "Local rule: my editor is vim.\n")
	f.write(".claude/rules/style.md", "Style rule: short names.\n")
	f.write(".claude/rules/go.md", "---\npaths: \"**/*.go\"\n---\nGo rule: wrap errors.\n")
	f.write("handler.go", "package api\n\nfunc Handle() {}\n")
	f.write("util.go", "package api\n")
	f.write("notes.txt", "to do: 处理错误\n")
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	ctx := context.Background()
	if _, err := a.store.Add(ctx, memdir.Input{Name: "deploy steps", Description: "How to deploy", Type: memdir.TypeProject, Body: "Run make deploy."}); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"CLAUDE.md"}`), llmtest.ToolUse("t2", "Read", `{"file_path":".claude/rules/go.md"}`)),
		llmtest.Blocks(llmtest.ToolUse("t3", "Read", `{"file_path":"notes.txt"}`), llmtest.ToolUse("t4", "Read", `{"file_path":"util.go"}`)),
		llmtest.Blocks(llmtest.ToolUse("t5", "Edit", `{"file_path":"util.go","old_string":"package api\n","new_string":"package api // utilities\n"}`)),
		llmtest.Blocks(llmtest.ToolUse("t6", "Read", `{"file_path":"handler.go"}`)),
		llmtest.Text("Read them. "+longAnswer),
	)
	if _, err := a.Run(ctx, "read the rules, notes.txt, util.go and handler.go", nil); err != nil {
		t.Fatal(err)
	}
	id := a.SessionID()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}

	b := f.agent(Options{Resume: id})
	f.srv.Script(llmtest.Text("1. Primary request and intent: read the files."), llmtest.Text("going on"))
	r, err := b.Compact(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	abs := func(rel string) string { return filepath.Join(b.Cwd(), rel) }
	if diff := cmp.Diff([]string{abs("handler.go"), abs("util.go"), abs("notes.txt")}, r.Files); diff != "" {
		t.Errorf("re-injected files (-want +got):\n%s", diff)
		for i, req := range f.srv.Requests() { // what each tool call answered, to tell why
			t.Logf("request %d ends: %s", i, req.Body[max(0, len(req.Body)-800):])
		}
	}
	for _, v := range r.FileViews {
		if !v.HasContent || v.Content == "" {
			t.Errorf("%s re-injected without content", v.Path)
		}
	}
	if _, err := b.Run(ctx, "go on", nil); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	for _, text := range []string{"Project rule: run gofmt.", "Local rule: my editor is vim.", "Style rule: short names.", "Go rule: wrap errors.", "How to deploy"} {
		if n := strings.Count(body, text); n != 1 {
			t.Errorf("%q is in the request %d times, want once", text, n)
		}
	}
	if !strings.Contains(body, "package api // utilities") || !strings.Contains(body, "func Handle()") {
		t.Error("the files' contents are not in the request")
	}
}
