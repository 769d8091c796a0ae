package compact_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/compact"
)

// The agent's turn loop asks the tracker after every turn whether the session notes are due.
func ExampleNotesTracker() {
	var t compact.NotesTracker
	turns := []struct{ ctx, toolCalls int }{
		{4_000, 2},  // too early
		{10_500, 3}, // past 10K: the first notes
		{13_000, 5}, // enough tool calls, not enough growth
		{16_000, 1}, // +5.5K and 6 tool calls since the last update
		{21_000, 1}, // +5K but one tool call so far
		{23_000, 0}, // a turn without tool calls: a pause, write now
	}
	for _, turn := range turns {
		due := t.Due(turn.ctx, turn.toolCalls)
		if due {
			t.Started(turn.ctx)
		}
		fmt.Println(turn.ctx, due)
	}
	// Output:
	// 4000 false
	// 10500 true
	// 13000 false
	// 16000 true
	// 21000 false
	// 23000 true
}

// The notes fork's file: created from the template, edited in place, and nothing else.
func ExampleOpenNotes() {
	dir, _ := os.MkdirTemp("", "notes")
	defer os.RemoveAll(dir)
	n, err := compact.OpenNotes(compact.NotesPath(filepath.Join(dir, "session.jsonl")))
	if err != nil {
		fmt.Println(err)
		return
	}
	text, _ := n.Read()
	fmt.Println(strings.SplitN(text, "\n", 2)[0], compact.HasNotes(text))

	desc := "_What is being done right now, what was just finished, and the very next step._"
	if _, err := n.EditPath(n.Path(), desc, desc+"\n修复 parser.go；下一步：运行 go test ./parser", false); err != nil {
		fmt.Println(err)
	}
	text, _ = n.Read()
	fmt.Println(compact.HasNotes(text), len(compact.CheckNotes(text)))

	_, err = n.Write(filepath.Join(dir, "elsewhere.md"), text)
	fmt.Println(errors.Is(err, compact.ErrNotesOnly))
	_, err = n.Edit("## Worklog\n", "", false)
	fmt.Println(errors.Is(err, compact.ErrNotesOnly))
	// Output:
	// # Session notes false
	// true 0
	// true
	// true
}
