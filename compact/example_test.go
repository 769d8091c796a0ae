package compact_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/work"
)

// The thresholds of a 200K-token window whose replies are capped at 32K tokens, and what a
// context of 170K tokens calls for.
func ExampleThresholdsFor() {
	th := compact.ThresholdsFor(200_000, 32_000)
	fmt.Println(th.Warn, th.Auto, th.Block)
	fmt.Println(th.Level(170_000))
	// Output:
	// 147000 167000 197000
	// auto
}

// The breaker an agent holds: three failed automatic compactions in a row stop them, and the
// third failure returns the message for the user.
func ExampleBreaker() {
	var b compact.Breaker
	for range compact.MaxFailures {
		if note := b.Record(compact.Auto, fmt.Errorf("model overloaded")); note != "" {
			fmt.Println(b.AllowAuto(), note != "")
		}
	}
	b.Record(compact.Manual, nil) // a manual compaction succeeded
	fmt.Println(b.AllowAuto())
	// Output:
	// false true
	// true
}

// Run decides from values only; the caller applies the result. Here the session notes are the
// summary, so no model is called: the recent messages are kept, the todo list comes back after
// the summary, and the context is a fraction of what it was.
func ExampleRun() {
	h, _ := conversation.NewHistory(nil)
	for i := range 12 {
		h.Append(conversation.NewText(conversation.User, fmt.Sprintf("修复解析器的第 %d 个错误", i+1)))
		h.Append(conversation.NewText(conversation.Assistant, strings.Repeat("Fixed; the tests pass. ", 150)))
	}
	notes := compact.NotesTemplate + "\nThe parser is fixed; next: run the benchmarks.\n"
	r, err := compact.Run(context.Background(), compact.Input{
		History: h.Entries(),
		Notes:   compact.SessionNotes{Text: notes},
		Window:  30_000,
		Reinject: compact.Reinject{Todos: []work.Todo{
			{Content: "Run the benchmarks", Status: work.TodoPending, ActiveForm: "Running the benchmarks"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Method, r.Calls, r.Kept, r.PostTokens < r.PreTokens/2)
	for _, e := range r.Entries[:4] {
		fmt.Println(e.Type, e.Subtype, e.IsCompactSummary, e.IsMeta)
	}
	// Output:
	// session-memory 0 4 true
	// system compact_boundary false false
	// user  true false
	// user  false true
	// user  false false
}
