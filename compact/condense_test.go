package compact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/tokens"
)

// TestItems: the numbers of a condensation's items are read from the start of its lines; an
// item with nothing after its number says nothing.
func TestItems(t *testing.T) {
	got := items("1. Task: port.\n 2) keep GOFLAGS\n3.\n- 4. not an item\n10. Never push to main.\nv2. no")
	if diff := cmp.Diff(map[int]bool{1: true, 2: true, 10: true}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// padding is neutral explanation of about n tokens in the rules' language.
func padding(lang string, n int) string {
	s := map[string]string{
		"en": "This matters because the review team reads every change and a broken build blocks everyone else for a day. ",
		"zh": "这是因为评审团队会逐条阅读每一处改动，构建失败会让其他人停工一整天。",
		"ko": "리뷰 팀이 모든 변경을 읽고 빌드가 깨지면 다른 사람들이 하루 종일 기다려야 하기 때문입니다. ",
	}[lang]
	return strings.Repeat(s, max(n/tokens.Estimate(s), 1))
}

// TestCondensationThatDropsARule: the fake Anthropic server condenses the pinned messages
// and leaves one rule out, in English, Chinese and Korean. The condensation has no item with
// the rule's number, so compaction knows it without reading the text: a dropped rule that fits is carried verbatim after the condensed list; when two are
// dropped and only one fits, the newest is carried and the older is reported by name (Lost,
// the Note the agent prints, the summary message); one that cannot fit is reported the same
// way. Nothing the condensed text misses is dropped silently.
func TestCondensationThatDropsARule(t *testing.T) {
	type langCase struct {
		lang, task string
		rules      [3]string // the third is the one the condensation drops
		condensed  string    // keeps the task and rules[0] only
		keptBoth   string    // keeps the task, rules[0] and rules[1]
	}
	langs := []langCase{
		{"en", "TASK: port the billing service to Postgres.",
			[3]string{"Always run `make verify` before saying done.", "Never push to `main`; open a PR against release/2.4 instead.", "Do not touch files under vendor/ and keep GOFLAGS=-mod=mod."},
			"1. Task: port the billing service to Postgres.\n2. Always run make verify before saying done.",
			"1. Task: port the billing service to Postgres.\n2. Always run make verify before saying done.\n3. Never push to main; open a PR against release/2.4."},
		{"zh", "任务：把计费服务迁移到 Postgres。",
			[3]string{"每次提交前运行 `make verify`。", "永远不要直接修改生产数据库。", "以后不要修改 vendor 目录，改动放在 patches/ 下。"},
			"1. 任务：计费服务迁移到 Postgres\n2. 每次提交前运行 make verify",
			"1. 任务：计费服务迁移到 Postgres\n2. 每次提交前运行 make verify\n3. 不要直接修改生产数据库"},
		{"ko", "작업: 결제 서비스를 Postgres로 옮기기.",
			[3]string{"항상 `make verify`를 실행한 뒤에 완료라고 말하세요.", "절대 `main` 브랜치에 직접 푸시하지 마세요.", "앞으로 항상 한국어로 답하세요."},
			"1. 작업: 결제 서비스를 Postgres로 옮기기\n2. 완료 전에 항상 make verify 실행",
			"1. 작업: 결제 서비스를 Postgres로 옮기기\n2. 완료 전에 항상 make verify 실행\n3. main 브랜치에 직접 푸시 금지"},
	}
	b := BudgetFor(ThresholdsFor(30_000, 4000), 0)
	for _, lc := range langs {
		for _, tc := range []struct {
			name      string
			size      [3]int // padding of rules[0..2], in tokens
			reply     string
			verbatim  []int // rules carried verbatim after the condensed text
			lost      []int // rules reported lost
			condensed int   // messages listed as condensed
		}{
			{"dropped rule fits", [3]int{b.Pinned / 2, b.Pinned / 2, b.Pinned / 4}, lc.keptBoth, []int{2}, nil, 3},
			{"two dropped, the newest fits", [3]int{b.Pinned / 2, b.Pinned * 3 / 5, b.Pinned * 3 / 5}, lc.condensed, []int{2}, []int{1}, 2},
			{"dropped rule cannot fit", [3]int{b.Pinned / 3, b.Pinned / 3, b.Pinned * 6 / 5}, lc.keptBoth, nil, []int{2}, 3},
		} {
			t.Run(lc.lang+"/"+tc.name, func(t *testing.T) {
				srv, p := newServer(t)
				condensations := 0
				srv.Fallback = func(r llmtest.Request) llmtest.Reply {
					if strings.HasPrefix(promptOf(t, r), "<message n=") {
						condensations++
						return llmtest.Text(tc.reply)
					}
					return llmtest.Text("1. Primary request and intent: the migration.")
				}
				var rules [3]string
				users := []any{lc.task}
				for i, r := range lc.rules {
					rules[i] = r + "\n" + padding(lc.lang, tc.size[i])
					users = append(users, pin(rules[i]))
				}
				for i := range 6 {
					users = append(users, neutral(i, 200))
				}
				r, err := Run(t.Context(), Input{History: historyOf(users, 2000), Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto})
				if err != nil {
					t.Fatal(err)
				}
				if condensations != 1 || len(r.Condensed) != tc.condensed {
					t.Fatalf("%d condensations, condensed %q", condensations, r.Condensed)
				}
				carriedPinned := r.UserMessages[:r.Pinned]
				if carriedPinned[0] != tc.reply {
					t.Errorf("the condensed text is not carried first: %.80q", carriedPinned)
				}
				summary := r.Context[0].Message.TextOf()
				for _, i := range tc.verbatim {
					if !contains(carriedPinned, rules[i]) || !strings.Contains(summary, rules[i]) {
						t.Errorf("rule %d not carried verbatim: pinned %.60q", i, carriedPinned)
					}
				}
				var wantLost []string
				for _, i := range tc.lost {
					name := firstWords(rules[i], 80)
					wantLost = append(wantLost, fmt.Sprintf("pinned message: %q", name))
					if contains(carriedPinned, rules[i]) {
						t.Errorf("rule %d carried though reported lost", i)
					}
					for _, where := range []string{r.Note, summary} {
						if !strings.Contains(where, name) {
							t.Errorf("rule %d (%q) not named in %.300q", i, name, where)
						}
					}
				}
				if diff := cmp.Diff(wantLost, r.Lost); diff != "" {
					t.Errorf("Lost (-want +got):\n%s", diff)
				}
				if len(tc.lost) == 0 && strings.Contains(r.Note, "left out") {
					t.Errorf("a note about lost rules though none was lost: %s", r.Note)
				}
				// The pinned messages never exceed their budget because of what was restored.
				if n := msgTokens(toUserMsgs(carriedPinned)); len(tc.verbatim) > 0 && n > b.Pinned {
					t.Errorf("pinned messages take %d tokens, over their budget %d", n, b.Pinned)
				}
				// A later compaction recognises the verbatim rule as pinned again.
				for _, m := range carried(summary) {
					for _, i := range tc.verbatim {
						if m.text == rules[i] && m.pin != pinUser {
							t.Errorf("rule %d carried back with pin %q", i, m.pin)
						}
					}
				}
			})
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func toUserMsgs(ss []string) []userMsg {
	var out []userMsg
	for _, s := range ss {
		out = append(out, userMsg{text: s})
	}
	return out
}

// TestCondensationThatHoldsNothing: a condensation with an item for none of the pinned
// messages is not used: they are all carried verbatim (over their budget), and the Note says why.
func TestCondensationThatHoldsNothing(t *testing.T) {
	srv, p := newServer(t)
	srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		if strings.HasPrefix(promptOf(t, r), "<message n=") {
			return llmtest.Text("Follow the rules.")
		}
		return llmtest.Text("1. Primary request and intent: the migration.")
	}
	b := BudgetFor(ThresholdsFor(30_000, 4000), 0)
	users := []string{"TASK: port the billing service to Postgres."}
	inputs := []any{users[0]}
	for _, r := range []string{"Always run `make verify` before saying done.", "Never push to `main`; open a PR against release/2.4 instead."} {
		users = append(users, r+"\n"+padding("en", b.Pinned*2/3))
		inputs = append(inputs, pin(users[len(users)-1]))
	}
	for i := range 6 {
		inputs = append(inputs, neutral(i, 200))
	}
	r, err := Run(t.Context(), Input{History: historyOf(inputs, 2000), Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(users[:3], r.UserMessages[:r.Pinned]); diff != "" || len(r.Condensed)+len(r.Lost) != 0 {
		t.Errorf("condensed %q, lost %q; pinned (-want +got):\n%s", r.Condensed, r.Lost, diff)
	}
	if !strings.Contains(r.Note, "kept verbatim") {
		t.Errorf("note %q", r.Note)
	}
}

// The note never speaks of a budget of 0: with no room left, it says the request fills it.
func TestPinnedOverNote(t *testing.T) {
	msgs := []userMsg{{text: "Always run make verify."}}
	if got := pinnedOver(msgs, 0); strings.Contains(got, " 0 ") || !strings.Contains(got, "the current request fills") {
		t.Errorf("room 0: %q", got)
	}
	if got := pinnedOver(msgs, 120); !strings.Contains(got, "over the 120 tokens kept for them") {
		t.Errorf("room 120: %q", got)
	}
}
