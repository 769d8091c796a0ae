package compact

import (
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
)

// TestPastedTextIsNotARule: a long message is read for rules at its head and tail, where the
// user's own words sit; a cue inside what they pasted (a log line "do not retry", a comment
// "never nil", Chinese prose with 一直/每次) does not make the paste a standing instruction.
func TestPastedTextIsNotARule(t *testing.T) {
	log := strings.Repeat("2026-03-01 ERROR pq: connection refused host=db-1 port=5432\n", 100)
	cue := "2026-03-01 WARN retry budget spent; do not retry more than 3 times\n"
	zh := strings.Repeat("服务在夜间运行，日志记录每个请求的耗时和状态码。", 60)
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
