package compact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestPastedTextIsNotARule: a long message is read for rules at its head and tail, where the
// user's own words sit; a cue inside what they pasted (a log line "do not retry", a comment
// "never nil", Chinese prose with 一直/每次) does not make the paste a standing instruction.
func TestPastedTextIsNotARule(t *testing.T) {
	log := strings.Repeat("2026-03-01 ERROR pq: connection refused host=db-1 port=5432\n", 100)
	cue := "2026-03-01 WARN retry budget spent; do not retry more than 3 times\n"
	zh := strings.Repeat("服务在夜间运行，日志记录每个请求的耗时和状态码。", 60)
	zhDoc := strings.Repeat("服务在夜间运行，日志记录每个请求的耗时和状态码。\n", 150)
	goFile := strings.Repeat("// Next returns the next record.\nfunc (r *Reader) Next() (Record, error) {\n\treturn r.dec.Decode()\n}\n\n", 50)
	typed := strings.Repeat("The migration has to keep the old tables readable until the last client is switched over, so the reader and the writer have to agree on the schema version at every step of the rollout. ", 30)
	tests := []struct {
		name, text string
		want       bool
	}{
		{"cue deep inside a pasted log", "Here is the log:\n" + log + cue + log, false},
		{"cue deep inside pasted Chinese prose", "看看这段：" + zh + "服务一直在重启，每次都失败。" + zh, false},
		{"rule before the paste", "From now on, attach logs like this one.\n" + log + log, true},
		{"rule after the paste", "Here is the log:\n" + log + log + "\nNever restart db-1 without asking me.", true},
		{"Chinese rule after the paste", "日志：\n" + log + log + "\n以后不要直接重启数据库。", true},
		{"short message read whole", "The log says: " + cue, true},
		{"cue on the last line of a pasted log", "Here is the log:\n" + log + "2026-03-01 WARN retry budget spent; always retry\n", false},
		{"Chinese cue on the last line of a pasted log", "日志如下：\n" + log + "2026-03-01 WARN 服务一直失败，每次都必须重试\n", false},
		{"cue at the end of a pasted Chinese document", "看看这份文档：\n\n" + zhDoc + "部署前每次都必须重启服务。", false},
		{"cue at the end of a pasted Go file", "What does this do?\n\n" + goFile + "// always retry on EOF", false},
		{"cue at the end of a fenced block", "What does this do?\n```go\n" + goFile + "// always retry on EOF\n```\nIs it safe?", false},
		{"typed rule on the line after a paste", "Here is the log:\n" + log + log + "Always use tabs.", true},
		{"Korean rule on the line after a paste", "로그:\n" + log + log + "앞으로 항상 한국어로 답하세요.", true},
		{"long typed message ending with a rule", typed + " Always use tabs.", true},
		{"rule before a fenced block", "From now on, keep this header:\n```\n" + goFile + "```\nIs it right?", true},
		{"a file attached with @path", "Fix the panic in @store.go\n\n<attached-file path=\"store.go\">\n// never nil after Open\nfunc f() {}\n</attached-file>", false},
		{"a rule beside an attached file", "Never change @store.go without a test.\n\n<attached-file path=\"store.go\">\nfunc f() {}\n</attached-file>", true},
		{"a shell command's output", "<bash-input>cat NOTES</bash-input>\n<bash-stdout>always deploy on Fridays</bash-stdout>", false},
	}
	for _, tt := range tests {
		if got := IsStandingInstruction(tt.text); got != tt.want {
			t.Errorf("%s: IsStandingInstruction = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRulesSurviveAHeavyPaste: a session with a task, a standing rule in Korean and Chinese,
// a 300 KB pasted log in which every hundredth line says "do not retry", and many tool results is compacted; the
// task and the rules are carried verbatim and pinned, and the log is not pinned (it would push
// the pinned messages over their budget, and the condensation would rewrite the real rules
// together with it).
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
	paste := "Here is the full log:\n" + strings.Repeat(block, 50) + strings.Repeat(plain, 50)
	users := []string{task, rule, paste}
	for i := range 40 {
		users = append(users, neutral(i, 300))
	}
	r, err := Run(t.Context(), Input{History: history(users, 400), Provider: p, Window: 200_000, MaxOutput: 8000, Trigger: Auto})
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
	if !strings.Contains(summary, rule) || strings.Contains(summary, `<user-message pinned="standing">`+"\nHere is the full log") {
		t.Errorf("the rule is not carried, or the log is pinned:\n%.600s", summary)
	}
}

// TestCorpusPastes: long messages from real Claude Code transcripts, where the user pasted a
// web page of documentation (ending with "tools are always run isolated from the project") or
// a 36 KB HAR file after a question of their own, are not standing instructions; their own
// words are the question, found by the message's structure; the IDE context Claude Code adds
// (<ide_selection>, <ide_opened_file>) is not the user's words either.
func TestCorpusPastes(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus", "transcripts")
	tests := []struct {
		file, lead, pasted string
	}{
		{"handgemacht-ai__claude-code-log__crhelper__cb2e607c.jsonl", "Does this doc page help?", "tools are always run isolated"},
		{"handgemacht-ai__claude-code-log__ddnext__9e953218.jsonl", "This is the full HAR:", "_securityState"},
	}
	for _, tt := range tests {
		found := false
		for _, text := range corpusUserTexts(t, filepath.Join(dir, tt.file)) {
			if !strings.Contains(text, tt.lead) || !strings.Contains(text, tt.pasted) {
				continue
			}
			found = true
			own := ownWords(text)
			if !strings.Contains(own, tt.lead) || strings.Contains(own, tt.pasted) || strings.Contains(own, "<ide_") {
				t.Errorf("%s: own words %.300q", tt.file, own)
			}
			if IsStandingInstruction(text) {
				t.Errorf("%s: the paste %q is a standing instruction", tt.file, firstWords(text, 60))
			}
		}
		if !found {
			t.Errorf("%s: no user message with %q", tt.file, tt.lead)
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
