package compact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestPastedTextIsNotARule: what the user pasted, attached or ran is kept apart by its
// recorded origin: rule words inside it ("do not retry", "always deploy") pin nothing, and a
// carried message holds the user's typed words with a line in place of the rest; the latest
// message, the request being worked on, is carried whole.
func TestPastedTextIsNotARule(t *testing.T) {
	log := strings.Repeat("2026-03-01 ERROR pq: connection refused host=db-1 port=5432\n", 100)
	cue := "2026-03-01 WARN retry budget spent; do not retry more than 3 times\n"
	in := func(parts ...conversation.Part) conversation.Input { return conversation.Input{Parts: parts} }
	typed := func(s string) conversation.Part { return conversation.Part{Origin: conversation.Typed, Text: s} }
	users := []any{
		"Review the night runs.",
		in(typed("Here is the log:\n"), conversation.Part{Origin: conversation.Pasted, Text: log + cue + log}),
		in(typed("Fix the panic in @store.go"), conversation.Part{Origin: conversation.Attached, Text: "\n\n<attached-file path=\"store.go\">\n// never nil\n</attached-file>"}),
		in(typed("<bash-input>cat NOTES</bash-input>\n"), conversation.Part{Origin: conversation.Command, Text: "<bash-stdout>always deploy on Fridays</bash-stdout>"}),
		in(typed("And this one:\n"), conversation.Part{Origin: conversation.Pasted, Text: cue}),
	}
	msgs, fromStart := userMessages(historyOf(users, 10))
	c := planUsers(msgs, fromStart, 100_000)
	if len(c.pinned) != 1 || c.pinned[0].text != "Review the night runs." {
		t.Errorf("pinned %+v, want the first request only", c.pinned)
	}
	want := []string{
		"Here is the log:\n\n[pasted text, 201 lines, left out here: the summary and the transcript have it]\n",
		"Fix the panic in @store.go\n[an attached file, 5 lines, left out here: the summary and the transcript have it]\n",
		"<bash-input>cat NOTES</bash-input>\n\n[command output, 1 lines, left out here: the summary and the transcript have it]\n",
		"And this one:\n" + cue,
	}
	var got []string
	for _, m := range c.recent {
		got = append(got, m.text)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("carried (-want +got):\n%s", diff)
	}
}

// TestRulesSurviveAHeavyPaste: a session with a task, a pinned rule in Korean and Chinese,
// a 300 KB pasted log in which every hundredth line says "do not retry", and many tool results
// is compacted; the task and the rule are carried verbatim and pinned, and the log is neither
// pinned nor carried (it would push the pinned messages over their budget).
func TestRulesSurviveAHeavyPaste(t *testing.T) {
	srv, p := newServer(t)
	srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		if strings.HasPrefix(promptOf(t, r), "<message n=") {
			return llmtest.Text("1. ok") // a condensation that keeps nothing: it must not be asked for
		}
		return llmtest.Text("1. Primary request and intent: the migration.")
	}
	task := "TASK: migrate the billing service from MySQL to Postgres without downtime."
	rule := "항상 `make verify`를 실행한 뒤에 완료라고 말하세요. 永远不要直接修改生产数据库。"
	plain := "2026-03-01 ERROR pq: connection refused host=db-1 port=5432\n"
	block := strings.Repeat(plain, 99) + "2026-03-01 WARN retry budget spent; do not retry more than 3 times\n"
	paste := strings.Repeat(block, 50) + strings.Repeat(plain, 50)
	pasted := conversation.Input{Parts: []conversation.Part{{Origin: conversation.Typed, Text: "Here is the full log:\n"}, {Origin: conversation.Pasted, Text: paste}}}
	users := []any{task, pin(rule), pasted}
	for i := range 40 {
		users = append(users, neutral(i, 300))
	}
	r, err := Run(t.Context(), Input{History: historyOf(users, 400), Provider: p, Window: 200_000, MaxOutput: 8000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Condensed) != 0 || r.Pinned != 2 {
		t.Fatalf("pinned %d, condensed %q: want the task and the rule pinned, nothing condensed", r.Pinned, r.Condensed)
	}
	if r.UserMessages[0] != task || r.UserMessages[1] != rule {
		t.Errorf("pinned messages %.80q, want the task and the rule verbatim", r.UserMessages[:2])
	}
	summary := r.Context[0].Message.TextOf()
	if !strings.Contains(summary, rule) || strings.Contains(summary, "pinned=\"user\">\nHere is the full log") || strings.Contains(summary, plain) {
		t.Errorf("the rule is not carried, or the log is pinned:\n%.600s", summary)
	}
}

// TestCorpusPastes: real Claude Code transcripts, written before provenance was recorded,
// where the user pasted a web page of documentation (ending with "tools are always run
// isolated from the project") or a 36 KB HAR file after a question of their own: compacting
// them pins the first request only, never a later paste, whatever rule words it holds.
func TestCorpusPastes(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus", "transcripts")
	tests := []struct {
		file, lead, pasted string
	}{
		{"handgemacht-ai__claude-code-log__crhelper__cb2e607c.jsonl", "Does this doc page help?", "tools are always run isolated"},
		{"handgemacht-ai__claude-code-log__ddnext__9e953218.jsonl", "This is the full HAR:", "_securityState"},
	}
	for _, tt := range tests {
		var users []any
		found := false
		for _, text := range corpusUserTexts(t, filepath.Join(dir, tt.file)) {
			if strings.TrimSpace(text) != "" {
				users = append(users, text)
				found = found || strings.Contains(text, tt.lead) && strings.Contains(text, tt.pasted)
			}
		}
		if !found {
			t.Errorf("%s: no user message with %q", tt.file, tt.lead)
			continue
		}
		msgs, fromStart := userMessages(historyOf(append(users, "thanks"), 10))
		c := planUsers(msgs, fromStart, DefaultUserBudget)
		for _, m := range c.pinned {
			if m.pin != pinFirst || m.text != users[0] {
				t.Errorf("%s: pinned %s %q", tt.file, m.pin, firstWords(m.text, 60))
			}
		}
	}
}

// corpusUserTexts returns the text of every non-meta user message in a transcript file.
func corpusUserTexts(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Type    string
			IsMeta  bool
			Message struct{ Content json.RawMessage }
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Type != "user" || e.IsMeta {
			continue
		}
		var s string
		if json.Unmarshal(e.Message.Content, &s) != nil {
			var blocks []struct{ Type, Text string }
			_ = json.Unmarshal(e.Message.Content, &blocks) // tool results and images have no text
			for _, b := range blocks {
				if b.Type == "text" {
					s += b.Text
				}
			}
		}
		out = append(out, s)
	}
	return out
}
