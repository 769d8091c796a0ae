package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/tokens"
)

// heavyFake answers as a model does in a session of heavy input: a summary call gets a short
// summary, a condensation of the pinned messages gets their text back one per line, a user
// message asking to read a file gets a Read call, and anything else a short answer. Every
// reply reports usage (the request body estimated), so the thresholds run on reported usage.
type heavyFake struct {
	mu                       sync.Mutex
	summaries, condensations int
}

func (m *heavyFake) serve(r llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	msgs := r.At("messages").([]any)
	first, _ := r.At("messages", 0, "content", 0, "text").(string)
	var rep llmtest.Reply
	switch {
	case len(msgs) == 1 && strings.HasPrefix(first, "<conversation"):
		m.summaries++
		rep = llmtest.Text(fmt.Sprintf("1. Primary request and intent: summary %d of the log review.", m.summaries))
	case len(msgs) == 1 && strings.HasPrefix(first, "<message n="):
		m.condensations++
		var rules []string
		for i, part := range strings.Split(first, "</message>")[:strings.Count(first, "</message>")] {
			rules = append(rules, fmt.Sprintf("%d. %s", i+1, strings.TrimSpace(part[strings.Index(part, ">\n")+2:])))
		}
		rep = llmtest.Text(strings.Join(rules, "\n"))
	default:
		last := len(msgs) - 1
		text, _ := r.At("messages", last, "content", 0, "text").(string)
		if path, ok := strings.CutPrefix(text, "Please read "); ok {
			rep = llmtest.Blocks(llmtest.ToolUse(fmt.Sprintf("toolu_%d", len(msgs)), "Read", fmt.Sprintf(`{"file_path":%q}`, path)))
		} else {
			rep = llmtest.Text("알겠습니다. 로그를 확인했습니다.")
		}
	}
	return rep.WithUsage(llm.Usage{InputTokens: tokens.Estimate(string(r.Body)), OutputTokens: 20})
}

// pinned is a message the user typed and pinned (/pin).
func pinned(text string) conversation.Input {
	in := conversation.TypedInput(text)
	in.Pinned = true
	return in
}

// requestText is every string of a request's decoded body, joined: what the model was sent,
// whatever the JSON escaping.
func requestText(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestStandingRulesSurviveHeavyInput: standing instructions pinned in chat early, in Korean and
// Chinese, survive successive automatic compactions under heavy input — large files read by
// the model and long pasted logs whose middle and last line hold rule words ("do not retry",
// "always retry", "每次") — against the fake Anthropic server that records every request: each
// rule is in every request after it was said, in particular the first request after each
// compaction, and no paste is pinned in their place.
func TestStandingRulesSurviveHeavyInput(t *testing.T) {
	if testing.Short() {
		t.Skip("a long session")
	}
	f := newFixture(t, llmtest.Anthropic)
	m := &heavyFake{}
	f.srv.Fallback = m.serve
	line := func(i, j int) string {
		return fmt.Sprintf("2026-03-01T10:%02d:%02d ERROR pq: connection refused host=db-%d port=5432 attempt=%d\n", j/60%60, j%60, i, j)
	}
	var files []string
	for i := range 8 {
		var b strings.Builder
		for j := range 180 {
			b.WriteString(line(i, j))
		}
		files = append(files, f.write(filepath.Join("logs", fmt.Sprintf("run%d.log", i)), b.String()))
	}
	paste := func(i int) conversation.Input {
		var b strings.Builder
		for j := range 120 {
			b.WriteString(line(i, j))
			if j == 60 {
				b.WriteString("2026-03-01T10:01:00 WARN retry budget spent; do not retry more than 3 times, 每次都失败\n")
			}
		}
		b.WriteString("2026-03-01T10:02:00 WARN giving up; always retry from the operator console\n")
		return conversation.Input{Parts: []conversation.Part{
			{Origin: conversation.Typed, Text: "Here is the log from the night run:\n"},
			{Origin: conversation.Pasted, Text: b.String()},
		}}
	}
	rules := []string{"From now on, always answer in Korean.", "不要修改 vendor 目录，补丁放在 patches/ 下。"}
	prompts := []conversation.Input{conversation.TypedInput("We are reviewing the night runs of the billing service; tell me what failed."), pinned(rules[0]), pinned(rules[1])}
	for i := range 16 {
		if i%2 == 0 {
			prompts = append(prompts, conversation.TypedInput("Please read "+files[i/2]))
		} else {
			prompts = append(prompts, paste(i))
		}
	}

	a := f.agent(Options{ContextWindow: 30_000, MaxTokens: 4000}) // auto at 15K
	var rec recorder
	ctx := context.Background()
	for i, p := range prompts {
		if _, err := a.RunInput(ctx, p, rec.sink); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	compactions := rec.autoCompactions(t, "failed", "skipped", "left out", "is now off")
	if compactions < 2 {
		t.Fatalf("%d automatic compactions, want at least 2 (%d summary calls)", compactions, m.summaries)
	}

	// Every answer request after the rules were said holds them; the first request after each
	// compaction starts with a new summary that carries them pinned, and pins no paste.
	answers, summaries := 0, map[string]bool{}
	for i, r := range f.srv.Requests() {
		first, _ := r.At("messages", 0, "content", 0, "text").(string)
		if strings.HasPrefix(first, "<conversation") || strings.HasPrefix(first, "<message n=") {
			continue
		}
		answers++
		text := requestText(r.JSON["messages"])
		if !strings.HasPrefix(first, compact.SummaryHeader) {
			if summaries[""] {
				t.Errorf("request %d: no summary after a compaction", i)
			}
		} else if !summaries[first] {
			summaries[first] = true
			for _, rule := range rules {
				if !strings.Contains(first, `pinned="user">`+"\n"+rule) {
					t.Errorf("request %d, the first after a compaction: the summary does not pin %q:\n%.1500s", i, rule, first)
				}
			}
			if strings.Contains(first, `pinned="user">`+"\nHere is the log") {
				t.Errorf("request %d: a pasted log is pinned", i)
			}
			if n := strings.Count(first, "ERROR pq: connection refused"); n > 121 {
				t.Errorf("request %d: the summary carries %d pasted log lines, more than the latest paste", i, n)
			}
		}
		for j, rule := range rules {
			if answers > 1+j && !strings.Contains(text, rule) {
				t.Errorf("request %d (answer %d) lacks rule %q", i, answers, rule)
			}
		}
		if len(summaries) > 0 {
			summaries[""] = true
		}
	}
	delete(summaries, "")
	if len(summaries) < 2 {
		t.Errorf("%d distinct summaries in the requests, want one per compaction (%d)", len(summaries), compactions)
	}
	t.Logf("%d turns, %d automatic compactions, %d condensations, %d requests", len(prompts), compactions, m.condensations, len(f.srv.Requests()))
}

// TestLostRuleReported: when the model's condensation of the pinned messages leaves a rule out
// and the rule does not fit their budget verbatim, the automatic compaction's event — what
// the chat and strata run print — names it, and the next request's summary tells the model.
func TestLostRuleReported(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	why := strings.Repeat("The reviewers asked for it after the outage because a broken build blocks everyone. ", 20)
	rules := []string{
		"Always run `make verify` before saying done. " + why,
		"Never push to `main`; open a PR against release/2.4. " + why,
		"Do not touch files under vendor/ and keep GOFLAGS=-mod=mod. " + strings.Repeat(why, 4),
	}
	f.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		first, _ := r.At("messages", 0, "content", 0, "text").(string)
		switch {
		case strings.HasPrefix(first, "<conversation"):
			return llmtest.Text("1. Primary request and intent: the migration.")
		case strings.HasPrefix(first, "<message n="):
			return llmtest.Text("1. Task: migrate billing to Postgres.\n2. Always run make verify before saying done.\n3. Never push to main; open a PR against release/2.4.")
		}
		return llmtest.Text("ok")
	}
	a := f.agent(Options{ContextWindow: 30_000, MaxTokens: 4000})
	var rec recorder
	ctx := context.Background()
	prompts := []conversation.Input{conversation.TypedInput("TASK: migrate billing to Postgres.")}
	for _, r := range rules {
		prompts = append(prompts, pinned(r))
	}
	for i := range 12 {
		prompts = append(prompts, conversation.TypedInput(filler(1500, fmt.Sprintf("stage %d", i))))
	}
	for i, p := range prompts {
		if _, err := a.RunInput(ctx, p, rec.sink); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	name := `pinned message: "Do not touch files under vendor/ and keep GOFLAGS=-mod=mod.`
	reported := false
	for _, e := range rec.events {
		if e.Kind == EventCompact && strings.Contains(e.Text, "left out") && strings.Contains(e.Text, name) {
			reported = true
		}
	}
	if !reported {
		for _, e := range rec.events {
			if e.Kind == EventCompact {
				t.Logf("compact event: %s", e.Text)
			}
		}
		t.Errorf("no compaction event names the lost rule %s", name)
	}
	told := false
	for _, r := range f.srv.Requests() {
		if first, _ := r.At("messages", 0, "content", 0, "text").(string); strings.HasPrefix(first, compact.SummaryHeader) && strings.Contains(first, "Not carried") && strings.Contains(first, name) {
			told = true
		}
	}
	if !told {
		t.Error("no summary sent to the model names the lost rule")
	}
}
