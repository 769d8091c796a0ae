package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/tokens"
)

func TestCompactKeepsTaskAndResumes(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("main.go", "package main\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"main.go"}`),
			llmtest.ToolUse("t2", "TodoWrite", `{"todos":[{"content":"Add tests","activeForm":"Adding tests","status":"in_progress"}]}`)),
		llmtest.Text("read. "+longAnswer),
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
	id, before := a.SessionID(), prompt.Messages(a.History())
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b := f.agent(Options{Resume: id})
	if diff := cmp.Diff(before, prompt.Messages(b.History())); diff != "" {
		t.Errorf("history after resume (-want +got):\n%s", diff)
	}
	if got := b.Todos(); len(got) != 1 || got[0].Content != "Add tests" {
		t.Errorf("todos after resume = %+v", got)
	}
}

func TestAutoCompaction(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	// A 32K window with 4K replies: auto-compaction starts at 16K.
	opts := Options{ContextWindow: 32_768, MaxTokens: 4000}
	big := strings.Repeat("please keep this context in mind. ", 850) // ~7K tokens

	t.Run("success", func(t *testing.T) {
		f.srv.Script(llmtest.Text("hello"), llmtest.Text("noted"), llmtest.Text("the summary"), llmtest.Text("answer"))
		a := f.agent(opts)
		var rec recorder
		for _, p := range []string{"hi", big, "and " + big} {
			if _, err := a.Run(context.Background(), p, rec.sink); err != nil {
				t.Fatal(err)
			}
		}
		reqs := f.srv.Requests()
		sum, ans := reqs[len(reqs)-2], reqs[len(reqs)-1]
		if text, _ := sum.At("messages", 0, "content", 0, "text").(string); !strings.Contains(text, "<conversation") {
			t.Fatalf("third request is not a summary call: %.200s", text)
		}
		text, _ := ans.At("messages", 0, "content", 0, "text").(string)
		if !strings.HasPrefix(text, compact.SummaryHeader) || !strings.Contains(text, "and "+big) {
			t.Errorf("request after compaction starts with %.200q", text)
		}
		if !hasKind(rec.events, EventCompact) {
			t.Error("no compact event")
		}
	})

	t.Run("three failures stop auto, manual works", func(t *testing.T) {
		a := f.agent(opts)
		var rec recorder
		fail := llmtest.StatusError(400, "invalid_request_error", "summary refused")
		for i := range 5 {
			if i >= 1 && i <= 3 {
				f.srv.Script(fail)
			}
			f.srv.Script(llmtest.Text("answer"))
			prompt := "next"
			if i < 2 {
				prompt = big
			}
			if _, err := a.Run(context.Background(), prompt, rec.sink); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
		var stopped int
		for _, e := range rec.events {
			if e.Kind == EventCompact && strings.Contains(e.Text, "/compact") && strings.Contains(e.Text, "is now off") {
				stopped++
			}
		}
		if stopped != 1 || a.breaker.AllowAuto() {
			t.Fatalf("stop notices %d, auto allowed %v", stopped, a.breaker.AllowAuto())
		}
		if w := strings.Join(a.Warnings(), "\n"); !strings.Contains(w, "/compact") {
			t.Errorf("user not told: warnings %q", w)
		}
		// The first request (7K tokens) is pinned and over its budget in this window: the
		// model condenses it after the summary, and the summary says so.
		f.srv.Script(llmtest.Text("manual summary"), llmtest.Text("1. Keep this context in mind."))
		r, err := a.Compact(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Condensed) != 1 || !strings.Contains(r.Context[0].Message.TextOf(), "1. Keep this context in mind.") {
			t.Errorf("condensed %q; summary message:\n%.600s", r.Condensed, r.Context[0].Message.TextOf())
		}
		if !a.breaker.AllowAuto() {
			t.Error("manual success did not re-enable auto-compaction")
		}
	})
}

// longAnswer makes a reply long enough (about 3,000 tokens) that compacting the conversation
// makes it smaller.
var longAnswer = strings.Repeat("Here is what I found in the code. ", 400)

func hasKind(es []Event, k EventKind) bool {
	for _, e := range es {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// TestLongSessionCompacts is the target: 200 turns against a 30K-token window.
func TestLongSessionCompacts(t *testing.T) {
	if testing.Short() {
		t.Skip("long session")
	}
	f := newFixture(t, llmtest.Anthropic)
	filler := strings.Repeat("Here is a long explanation of the change. ", 60) // ~600 tokens
	// Every message is pinned, so the pinned messages outgrow their budget and are condensed;
	// the fake condenses without loss.
	m := &modelFake{reply: filler}
	f.srv.Fallback = m.serve
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "TodoWrite", `{"todos":[{"content":"Follow the rules","activeForm":"Following the rules","status":"in_progress"}]}`)),
		llmtest.Text("noted"),
	)
	a := f.agent(Options{ContextWindow: 30_000, MaxTokens: 4000})
	var rec recorder
	ctx := context.Background()
	var prompts []string
	for i := range 200 {
		p := fmt.Sprintf("规则 %d: always do thing number %d", i, i)
		prompts = append(prompts, p)
		if _, err := a.RunInput(ctx, pinned(p), rec.sink); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	compactions, warnings := 0, 0
	for _, e := range rec.events {
		if e.Kind == EventCompact && strings.HasPrefix(e.Text, "conversation compacted automatically") {
			compactions++
		}
		if e.Kind == EventCompact && strings.Contains(e.Text, "will be compacted automatically") {
			warnings++
		}
	}
	if warnings < compactions-1 || warnings > compactions+1 {
		t.Errorf("%d warnings for %d compactions, want one before each", warnings, compactions)
	}
	if compactions < 3 || m.summaries < compactions || m.condensations == 0 {
		t.Errorf("%d automatic compactions (%d summary calls, %d condensations), want at least 3 and condensations", compactions, m.summaries, m.condensations)
	}
	var ctxText strings.Builder
	for _, m := range prompt.Messages(a.History()) {
		ctxText.WriteString(m.TextOf())
	}
	for _, p := range prompts {
		if !strings.Contains(ctxText.String(), p) {
			t.Errorf("instruction %q lost from the context", p)
		}
	}
	if got := a.Todos(); len(got) != 1 || got[0].Content != "Follow the rules" {
		t.Errorf("todos = %+v", got)
	}
	// Input sent against sending the whole history every turn, in estimated tokens (package
	// tokens over the request bodies as sent) and in bytes.
	var sent, whole, hist, sentTok, wholeTok, histTok int
	reqs := f.srv.Requests()
	base, baseTok := len(reqs[0].Body), tokens.Estimate(string(reqs[0].Body))
	for _, r := range reqs {
		sent += len(r.Body)
		sentTok += tokens.Estimate(string(r.Body))
	}
	fillerTok := tokens.Estimate(filler)
	for i := range prompts {
		hist += len(prompts[i]) + len(filler)
		histTok += tokens.Estimate(prompts[i]) + fillerTok
		whole += base + hist
		wholeTok += baseTok + histTok
	}
	ratio := float64(sentTok) / float64(wholeTok)
	t.Logf("200 turns, 30K window: %d automatic compactions (%d condensation calls for the pinned instructions), %d requests; input sent: %d tokens (estimated) vs %d for the whole history every turn (ratio %.3f); in bytes %d vs %d (ratio %.3f)",
		compactions, m.condensations, len(reqs), sentTok, wholeTok, ratio, sent, whole, float64(sent)/float64(whole))
	if ratio >= 0.5 {
		t.Errorf("compaction saved too little: token ratio %.3f", ratio)
	}

	id, before := a.SessionID(), prompt.Messages(a.History())
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b := f.agent(Options{Resume: id, ContextWindow: 30_000, MaxTokens: 4000})
	if diff := cmp.Diff(before, prompt.Messages(b.History())); diff != "" {
		t.Errorf("history after resume (-want +got):\n%s", diff)
	}
	if got := b.Todos(); len(got) != 1 || got[0].Content != "Follow the rules" {
		t.Errorf("todos after resume = %+v", got)
	}
}

// TestCompactAppliesItsEffects: compact.Run only decides; the agent applies the effects after
// a success — instructions and the memory index re-read from disk (conditional rules and nested
// files re-activated from their new text), the read cache refilled with the re-injected views,
// recall's session reset — and a failed compaction changes none of them.
func TestCompactAppliesItsEffects(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("CLAUDE.md", "top level v1\n")
	f.write(".claude/rules/go.md", "---\npaths: \"**/*.go\"\n---\nGo rule v1\n")
	f.write(".claude/rules/py.md", "---\npaths: \"**/*.py\"\n---\nPython rule\n")
	f.write("sub/CLAUDE.md", "nested v1\n")
	f.write("sub/x.go", "package sub\n")
	a := f.agent(Options{})
	ctx := context.Background()
	if _, err := a.store.Add(ctx, memdir.Input{Name: "deploy steps", Description: "How to deploy the service to production", Type: memdir.TypeProject, Body: "Run make deploy after the tests pass."}); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"sub/x.go"}`)), llmtest.Text("read it. "+longAnswer))
	if _, err := a.Run(ctx, "how do we deploy to production? read sub/x.go", nil); err != nil {
		t.Fatal(err)
	}
	a.prompt.WaitRecall()
	if a.prompt.RecallSession().Used() == 0 {
		t.Fatal("recall charged nothing: the reset below would prove nothing")
	}
	// The files change on disk; the memory index gains a line.
	f.write("CLAUDE.md", "top level v2\n")
	f.write(".claude/rules/go.md", "---\npaths: \"**/*.go\"\n---\nGo 规则 v2\n")
	f.write("sub/CLAUDE.md", "nested v2\n")
	if _, err := a.store.Add(ctx, memdir.Input{Name: "parser rules", Description: "解析器的约定", Type: memdir.TypeProject, Body: "Keep the parser pure."}); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(a.Cwd(), "sub", "x.go")
	before, ok := a.prompt.Cache().Get(x)
	if !ok {
		t.Fatal("sub/x.go not in the read cache")
	}
	system := a.prompt.System()

	// A failed compaction changes nothing.
	f.srv.Script(llmtest.StatusError(400, "invalid_request_error", "no summary"))
	if _, err := a.Compact(ctx, ""); err == nil {
		t.Fatal("want an error")
	}
	if st, ok := a.prompt.Cache().Get(x); !ok || st.Content != before.Content || a.prompt.RecallSession().Used() == 0 || !cmp.Equal(system, a.prompt.System()) {
		t.Fatalf("a failed compaction changed state: cache %v, recall used %d, system changed %v", ok, a.prompt.RecallSession().Used(), !cmp.Equal(system, a.prompt.System()))
	}

	f.srv.Script(llmtest.Text("the summary"), llmtest.Text("going on"))
	r, err := a.Compact(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.prompt.RecallSession().Used() != 0 {
		t.Errorf("recall session not reset: %d bytes used", a.prompt.RecallSession().Used())
	}
	if st, ok := a.prompt.Cache().Get(x); !ok || st.Content != "package sub\n" || len(r.FileViews) != 1 || r.FileViews[0].Path != st.Path {
		t.Errorf("read cache after compaction: %+v %v; views %+v", st, ok, r.FileViews)
	}
	if _, err := a.Run(ctx, "go on", nil); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	req := reqs[len(reqs)-1]
	sys, _ := json.Marshal(req.At("system"))
	for _, want := range []string{"top level v2", "解析器的约定"} {
		if !strings.Contains(string(sys), want) {
			t.Errorf("system prompt after compaction lacks %q (not re-read from disk)", want)
		}
	}
	var attach strings.Builder
	for _, c := range r.Context[1:] {
		attach.WriteString(c.Message.TextOf())
	}
	for _, want := range []string{"Go 规则 v2", "nested v2"} {
		if !strings.Contains(attach.String(), want) {
			t.Errorf("re-injected instructions lack %q:\n%s", want, attach.String())
		}
	}
	for _, stale := range []string{"Go rule v1", "nested v1", "Python rule"} {
		if strings.Contains(attach.String(), stale) {
			t.Errorf("re-injected instructions contain %q", stale)
		}
	}
}
