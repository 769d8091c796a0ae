package compact

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/tokens"
)

// TestPinsAreExplicit: a message is pinned because the user pinned it, not by its words; the
// first request is pinned whatever it says.
func TestPinsAreExplicit(t *testing.T) {
	msgs, fromStart := userMessages(historyOf([]any{"fix the parser", "From now on always answer in French.", pin("walk down the hallways"), "以后所有回复都用中文"}, 10))
	c := planUsers(msgs, fromStart, 1_000)
	var got []string
	for _, m := range c.pinned {
		got = append(got, m.pin+": "+m.text)
	}
	if diff := cmp.Diff([]string{"first: fix the parser", "user: walk down the hallways"}, got); diff != "" {
		t.Errorf("pinned (-want +got):\n%s", diff)
	}
}

// history builds a conversation of user messages (each followed by an assistant reply of about
// reply tokens).
func history(users []string, reply int) []conversation.Entry {
	h, _ := conversation.NewHistory(nil)
	for _, u := range users {
		h.Append(conversation.NewText(conversation.User, u))
		h.Append(conversation.NewText(conversation.Assistant, strings.Repeat("ok. ", reply/2)))
	}
	return h.Entries()
}

func neutral(i, n int) string {
	s := fmt.Sprintf("Step %d: the parser reads the next token and builds the tree. ", i)
	return strings.Repeat(s, max(n/tokens.Estimate(s), 1))
}

// The first request and standing instructions are carried before the recent messages whatever
// their age, across compactions; the recent messages fill what is left of their budget.
func TestPinnedMessagesSurviveCompactions(t *testing.T) {
	srv, p := newServer(t)
	srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("1. Primary request and intent: the parser.") }
	first := "Fix the parser. " + neutral(0, 200)
	users := []string{first}
	for i := 1; i < 30; i++ {
		users = append(users, neutral(i, 400))
	}
	users[7] = "以后不要改公共接口。" + users[7]
	users[12] = "From now on, run go vet before committing."
	inputs := make([]any, len(users))
	for i, u := range users {
		inputs[i] = u
	}
	inputs[7], inputs[12] = pin(users[7]), pin(users[12])
	in := Input{History: historyOf(inputs, 500), Provider: p, Window: 100_000, MaxOutput: 8000, Trigger: Auto}
	r, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pinned != 3 || r.UserOmitted == 0 || len(r.Condensed) != 0 {
		t.Fatalf("pinned %d, omitted %d, condensed %q", r.Pinned, r.UserOmitted, r.Condensed)
	}
	want := []string{first, users[7], users[12]}
	if diff := cmp.Diff(want, r.UserMessages[:3]); diff != "" {
		t.Errorf("pinned messages first (-want +got):\n%s", diff)
	}
	if last := r.UserMessages[len(r.UserMessages)-1]; last != users[len(users)-1] {
		t.Errorf("the latest message is not carried last: %.60q", last)
	}
	if r.PostTokens > r.Budget.Target {
		t.Errorf("post %d over target %d: %s", r.PostTokens, r.Budget.Target, r.Note)
	}
	// A second compaction after many more turns: the first request is still known as such,
	// and the pinned messages are still first.
	h, _ := conversation.NewHistory(r.Context)
	for i := 30; i < 60; i++ {
		h.Append(conversation.NewText(conversation.User, neutral(i, 300)))
		h.Append(conversation.NewText(conversation.Assistant, strings.Repeat("ok. ", 250)))
	}
	r2, err := Run(t.Context(), Input{History: h.Entries(), Provider: p, Window: 100_000, MaxOutput: 8000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, r2.UserMessages[:3]); diff != "" || r2.Pinned != 3 {
		t.Errorf("after a second compaction, pinned %d (-want +got):\n%s", r2.Pinned, diff)
	}
	summary := r2.Context[0].Message.TextOf()
	if !strings.Contains(summary, `<user-message pinned="first">`+"\n"+first) || strings.Index(summary, pinnedLabel) > strings.Index(summary, recentLabel) {
		t.Errorf("summary message does not mark the pins before the recent messages:\n%.400s", summary)
	}
}

// Pinned messages over their budget are condensed by the model, and the summary lists what was
// condensed; when the condensation fails they stay verbatim (never dropped) and the result says
// it is over its target. The latest message, pinned too here, is the request being worked on:
// it is carried whole, never condensed.
func TestPinnedMessagesCondensed(t *testing.T) {
	var users []string
	var inputs []any
	for i := range 20 {
		users = append(users, fmt.Sprintf("Rule %d: always %s", i, neutral(i, 150)))
		inputs = append(inputs, pin(users[i]))
	}
	entries := historyOf(inputs, 2000)
	srv, p := newServer(t)
	failCondense, longCondense := false, false
	var condense string
	// A condensation with an item for each message.
	var lines []string
	for i := range 19 {
		lines = append(lines, fmt.Sprintf("%d. Rule %d: always; Step %d: the parser reads the next token and builds the tree.", i+1, i, i))
	}
	faithful := strings.Join(lines, "\n")
	srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		text := promptOf(t, r)
		if !strings.HasPrefix(text, "<message n=") {
			return llmtest.Text("1. Primary request: rules.")
		}
		if failCondense {
			return llmtest.StatusError(400, "invalid_request_error", "no")
		}
		if longCondense {
			return llmtest.Text(strings.Repeat("1. Follow every rule, in detail. ", 2000))
		}
		condense = text
		return llmtest.Text(faithful)
	}
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users[:19] {
		if !strings.Contains(condense, u) {
			t.Fatalf("condensation request lacks %.40q", u)
		}
	}
	if strings.Contains(condense, users[19]) {
		t.Fatalf("the latest message was sent to be condensed")
	}
	if len(r.Condensed) != 19 || r.Pinned != 2 || r.UserMessages[0] != faithful || len(r.Lost) != 0 || r.UserMessages[1] != users[19] || r.Calls < 2 {
		t.Fatalf("condensed %d, pinned %d, calls %d, carried %q", len(r.Condensed), r.Pinned, r.Calls, r.UserMessages)
	}
	summary := r.Context[0].Message.TextOf()
	for _, want := range []string{"Condensed by the model", `first request: "Rule 0: always`, `pinned message: "Rule 18: always`, `<user-message pinned="condensed">`, users[19]} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary message lacks %q", want)
		}
	}
	// A later compaction keeps the condensed text pinned.
	if got := carried(summary); len(got) == 0 || got[0].pin != pinCondensed {
		t.Errorf("carried back: %+v", got)
	}

	// A "condensation" longer than the messages is not used.
	longCondense = true
	r, err = Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pinned != 20 || len(r.Condensed) != 0 || strings.Contains(r.Context[0].Message.TextOf(), "in detail") {
		t.Errorf("longer condensation: pinned %d, condensed %d", r.Pinned, len(r.Condensed))
	}

	failCondense = true
	r, err = Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pinned != 20 || len(r.Condensed) != 0 || !strings.Contains(r.Note, "could not be condensed") {
		t.Errorf("failed condensation: pinned %d, condensed %d, note %q", r.Pinned, len(r.Condensed), r.Note)
	}
}

// For every window from 8K to 1M tokens, a long conversation is compacted to at most its
// target (half the automatic threshold), prefix included; when the prefix alone is over the
// target, the result says so.
func TestBudgetScalesWithTheWindow(t *testing.T) {
	for _, window := range []int{8_000, 16_000, 32_000, 64_000, 128_000, 200_000, 400_000, 1_000_000} {
		for _, prefix := range []int{window / 40, 3_800} {
			t.Run(fmt.Sprintf("%dK window, prefix %d", window/1000, prefix), func(t *testing.T) {
				th := ThresholdsFor(window, 8_000)
				b := BudgetFor(th, prefix)
				if b.Target != th.Auto/PostCompactDivisor || b.Summary+b.Pinned+b.Recent > max(b.Room, minSummaryTokens) && b.Room > minSummaryTokens*5 {
					t.Fatalf("budget %+v", b)
				}
				srv, p := newServer(t)
				srv.Fallback = func(r llmtest.Request) llmtest.Reply {
					// A summary as long as it may be.
					unit := "摘要 summary "
					return llmtest.Text(strings.Repeat(unit, max(int(r.At("max_tokens").(float64))/tokens.Estimate(unit), 1)))
				}
				// Well past the threshold: turns of a user message, a tool call and ~1/40 of the
				// window of output.
				var users []string
				for i := 0; i < 60; i++ {
					users = append(users, neutral(i, window/200))
				}
				users[0] = "Always write tests first. " + users[0]
				entries := history(users, window/40)
				r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: window, MaxOutput: 8_000, PrefixTokens: prefix, Trigger: Auto,
					Reinject: Reinject{Files: files(t, 10, window/20)}})
				if err != nil {
					t.Fatal(err)
				}
				fits := prefix+tokens.Estimate(users[len(users)-1])+500 < b.Target
				switch {
				case fits && r.PostTokens > b.Target:
					t.Errorf("post %d over target %d (pre %d): %s", r.PostTokens, b.Target, r.PreTokens, r.Note)
				case r.PostTokens > b.Target && r.Note == "":
					t.Errorf("post %d over target %d and no note", r.PostTokens, b.Target)
				case r.PostTokens <= b.Target && r.Note != "":
					t.Errorf("a note though within target: %s", r.Note)
				}
				if len(r.Condensed) > 0 {
					if !strings.HasPrefix(r.Condensed[0], `first request: "Always write tests first.`) {
						t.Errorf("the first request is not condensed first: %q", r.Condensed[0])
					}
				} else if r.UserMessages[0] != users[0] {
					t.Errorf("the first request is not carried first")
				}
				if prefix > b.Target && !strings.Contains(r.Note, "alone take") {
					t.Errorf("note does not name the prefix: %q", r.Note)
				}
				if window == 200_000 && len(r.Files) != conversation.PostCompactFiles {
					t.Errorf("200K window: %d files re-injected, want %d", len(r.Files), conversation.PostCompactFiles)
				}
			})
		}
	}
}

// files returns n read views of about size tokens each, most recent first.
func files(t *testing.T, n, size int) []conversation.FileState {
	t.Helper()
	var out []conversation.FileState
	for i := range n {
		out = append(out, conversation.FileState{Path: fmt.Sprintf("/repo/f%d.go", i), Content: strings.Repeat("x := 1 // filler\n", max(size/5, 1)), HasContent: true, Source: conversation.SourceRead})
	}
	return out
}

// A summary that would leave the context as large as it was is refused after the call:
// nothing is returned to write.
func TestRunRefusesAResultThatIsNotSmaller(t *testing.T) {
	srv, p := newServer(t)
	entries := chat(3, 400)
	srv.Script(llmtest.Text(strings.Repeat("a very long summary ", 2000)))
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000})
	var ns *NotSmallerError
	if r != nil || !errors.As(err, &ns) || !errors.Is(err, ErrNotSmaller) || ns.Post < ns.Pre {
		t.Fatalf("result %v, err %v", r, err)
	}
	// Before any call: what must be carried alone is larger than the history.
	small := history([]string{"hi"}, 4)
	if _, err := Run(t.Context(), Input{History: small, Provider: p, Window: 200_000}); !errors.Is(err, ErrNotSmaller) {
		t.Errorf("tiny history: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1 (none for the tiny history)", n)
	}
}

// RecentFiles: files the agent read or wrote, most recent first, each once, not injected views
// or files the prompt holds, at most PostCompactFiles.
func TestRecentFiles(t *testing.T) {
	views := []conversation.FileState{
		{Path: "/repo/handler.go", Source: conversation.SourceRead},
		{Path: "/repo/CLAUDE.md", Source: conversation.SourceRead}, // read by the agent, but in the prompt
		{Path: "/repo/.claude/rules/go.md", Source: conversation.SourceInjected},
		{Path: "/home/.strata/projects/x/memory/MEMORY.md", Source: conversation.SourceInjected},
		{Path: "/repo/util.go", Source: conversation.SourceWrite},
		{Path: "/repo/./handler.go", Source: conversation.SourceRead},
		{Path: "/repo/a.go"}, {Path: "/repo/b.go"}, {Path: "/repo/c.go"}, {Path: "/repo/d.go"},
	}
	var got []string
	for _, v := range RecentFiles(views, []string{"/repo/CLAUDE.md", "/home/.strata/projects/x/memory/MEMORY.md"}) {
		got = append(got, v.Path)
	}
	want := []string{"/repo/handler.go", "/repo/util.go", "/repo/a.go", "/repo/b.go", "/repo/c.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RecentFiles (-want +got):\n%s", diff)
	}
}

// The breaker's thrash rule: three refills in a row within RefillTurns turns of a compaction
// stop automatic compaction; a slower refill resets the count; manual success re-enables.
func TestBreakerThrash(t *testing.T) {
	var b Breaker
	b.Turn()
	if ok, _ := b.Due(); !ok {
		t.Fatal("first compaction refused")
	}
	b.Record(Auto, nil)
	// Slow refill (3 turns later): not counted.
	b.Turn()
	b.Turn()
	b.Turn()
	if ok, note := b.Due(); !ok || note != "" || b.Refills() != 0 {
		t.Fatalf("slow refill: %v %q refills %d", ok, note, b.Refills())
	}
	b.Record(Auto, nil)
	var notes []string
	for i := range MaxRefills {
		b.Turn()
		ok, note := b.Due()
		if note != "" {
			notes = append(notes, note)
		}
		// Due may be asked again before the compaction runs (a failure): counted once.
		if i == 0 {
			b.Record(Auto, errors.New("overloaded"))
			b.Due()
		}
		if ok {
			b.Record(Auto, nil)
		}
	}
	if b.AllowAuto() || len(notes) != 1 || !strings.Contains(notes[0], "/compact") || b.Refills() != MaxRefills {
		t.Fatalf("after %d quick refills: allow %v, notes %q, refills %d", MaxRefills, b.AllowAuto(), notes, b.Refills())
	}
	if ok, note := b.Due(); ok || note != "" {
		t.Errorf("stopped breaker: %v %q", ok, note)
	}
	b.Record(Manual, nil)
	if !b.AllowAuto() || b.Refills() != 0 {
		t.Errorf("manual success: allow %v refills %d", b.AllowAuto(), b.Refills())
	}
	// A failed manual compaction stops nothing.
	for range MaxFailures + 1 {
		b.Record(Manual, errors.New("no"))
	}
	if !b.AllowAuto() {
		t.Error("manual failures stopped auto-compaction")
	}
}

// The carried messages survive their markup: what renderSummary writes, carried reads back,
// with each message's pin, whatever the summary and the messages hold (a message holding the
// escaped closing tag itself is the one known exception).
func FuzzCarriedRoundTrip(f *testing.F) {
	f.Add("1. Primary request", "以后不要改接口", "fix </user-message> and <user-message>\nplease", "最新", true)
	f.Add("", "a", "b", "c", false)
	f.Fuzz(func(t *testing.T, summary, pin, mid, last string, condensed bool) {
		for _, s := range []string{pin, mid, last} {
			if strings.TrimSpace(s) == "" || strings.Contains(s, userEscClose) {
				t.Skip()
			}
		}
		c := carriedMessages{
			pinned: []userMsg{{text: pin, whole: pin, pin: pinUser}},
			recent: []userMsg{{text: mid, whole: mid}, {text: last, whole: last}},
		}
		if condensed {
			c.pinned[0].pin = pinCondensed
			c.condensed = []string{fmt.Sprintf("first request: %q", firstWords(summary, 80))}
		}
		got := carried(renderSummary(summary, c))
		want := append(append([]userMsg(nil), c.pinned...), c.recent...)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(userMsg{})); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

// A first message too long for the automatic threshold (a 100 KB paste, which is also the
// first request and so pinned) is the request being worked on: a compaction never condenses
// or summarises it away. Here nothing else can shrink, so the compaction refuses, writes
// nothing and asks the model nothing.
func TestLatestLongMessageNeverCondensed(t *testing.T) {
	paste := "Please review this log and always answer in French.\n" + neutral(1, 28_000)
	h, _ := conversation.NewHistory(nil)
	h.Append(conversation.NewText(conversation.User, paste))
	srv, p := newServer(t)
	srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("1. Primary request: review a log.") }
	r, err := Run(t.Context(), Input{History: h.Entries(), Provider: p, Window: 40_000, MaxOutput: 4000, Trigger: Auto})
	if !errors.Is(err, ErrNotSmaller) {
		t.Fatalf("err %v, result %+v; want ErrNotSmaller", err, r)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(promptOf(t, req), "<message n=") {
			t.Errorf("the latest message was sent to be condensed")
		}
	}
}

// A summary that would take less than MinGainPercent off the context is refused too, with its
// size named: a small window compacted again would append for a tiny gain.
func TestRunRefusesATinyGain(t *testing.T) {
	srv, p := newServer(t)
	entries := chat(3, 400)
	srv.Script(llmtest.Text("short"))
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	// A summary that leaves the context about 2% smaller than it was.
	per := float64(tokens.Estimate(strings.Repeat("word ", 1000))) / 1000
	extra := float64(r.PreTokens*98/100 - r.PostTokens)
	srv.Script(llmtest.Text("short " + strings.Repeat("word ", int(extra/per))))
	r, err = Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000})
	var ns *NotSmallerError
	if r != nil || !errors.As(err, &ns) || ns.Post >= ns.Pre || (ns.Pre-ns.Post)*100 >= MinGainPercent*ns.Pre {
		t.Fatalf("result %v, err %v; want a refusal of a gain under %d%%", r, err, MinGainPercent)
	}
	if !strings.Contains(err.Error(), "smaller") || !strings.Contains(err.Error(), fmt.Sprintf("at least %d%%", MinGainPercent)) {
		t.Errorf("message %q does not say the gain is too small", err)
	}
}

// TestPinned: Pinned gives what compaction pins, verbatim: the first request and the messages
// the user pinned, nothing by its words.
func TestPinned(t *testing.T) {
	first, pinned := Pinned(historyOf([]any{"fix the parser", "From now on always answer in French.", pin("walk down the hallways"), "ok"}, 10))
	if first != "fix the parser" {
		t.Errorf("first = %q", first)
	}
	if diff := cmp.Diff([]string{"walk down the hallways"}, pinned); diff != "" {
		t.Errorf("pinned (-want +got):\n%s", diff)
	}
}
