package chatui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
)

// TestCtrlOShowsTheWholeOutput: a long output's preview names ctrl+o; ctrl+o opens the newest
// output (a CJK one, wrapped by display width inside the screen), ← goes to the long one,
// paging shows every one of its lines, and ctrl+o closes the view back to the input.
func TestCtrlOShowsTheWholeOutput(t *testing.T) {
	h := newHarness(t, Options{Cwd: "/src/acme"})
	h.m.update(tea.WindowSizeMsg{Width: 60, Height: 24})
	var long strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&long, "output line %03d\n", i)
	}
	cjk := strings.Repeat("記憶の層を検索する", 12) + "\n終わり"
	bash := &agent.ToolCall{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	read := &agent.ToolCall{ID: "t2", Name: "Read", Input: json.RawMessage(`{"file_path":"/src/acme/notes.txt"}`)}
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventToolEnd, Tool: bash, Output: long.String()}})
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventToolEnd, Tool: read, Output: cjk}})
	if out := h.printed(); !strings.Contains(out, "… +116 lines (ctrl+o to expand)") || strings.Contains(out, "output line 005") {
		t.Errorf("the folded preview:\n%s", out)
	}

	h.press("ctrl+o")
	v := h.view()
	if !strings.Contains(v, "Read notes.txt  (2 of 2)") || !strings.Contains(v, "終わり") {
		t.Errorf("ctrl+o does not show the newest output whole:\n%s", v)
	}
	shown := ""
	for _, l := range strings.Split(v, "\n") {
		if w := cols(l); w > 60 {
			t.Errorf("a line of the view is %d columns wide, more than the screen:\n%s", w, l)
		}
		if strings.Contains(l, "記憶") {
			shown += strings.TrimSpace(l)
		}
	}
	if want := strings.Repeat("記憶の層を検索する", 12); shown != want {
		t.Errorf("the CJK line is not whole in the view:\n%s", v)
	}
	if strings.Contains(v, "enter send") {
		t.Errorf("the input's hints show under the view:\n%s", v)
	}

	h.press("left")
	seen := map[string]bool{}
	for range 20 {
		for _, l := range strings.Split(h.view(), "\n") {
			if i := strings.Index(l, "output line "); i >= 0 {
				seen[strings.TrimSpace(l[i:])] = true
			}
		}
		h.press("pgdown")
	}
	for i := 1; i <= 120; i++ {
		if !seen[fmt.Sprintf("output line %03d", i)] {
			t.Fatalf("paging through the long output never showed line %d (saw %d lines)", i, len(seen))
		}
	}
	if v := h.view(); !strings.Contains(v, "Bash go test ./...  (1 of 2)") || !strings.Contains(v, "of 120") {
		t.Errorf("the long output's view:\n%s", v)
	}
	h.typeText("x") // keys go to the view, not the input
	if !h.m.ed.Empty() {
		t.Errorf("a key reached the input under the view: %q", h.m.ed.String())
	}

	h.press("ctrl+o")
	if v := h.view(); strings.Contains(v, "(1 of 2)") || !strings.Contains(v, "› ") {
		t.Errorf("ctrl+o did not close the view:\n%s", v)
	}
}

// TestCtrlOWithoutOutput: before any tool ran, ctrl+o says so and opens nothing.
func TestCtrlOWithoutOutput(t *testing.T) {
	h := newHarness(t, Options{})
	h.press("ctrl+o")
	if h.m.viewer != nil || !strings.Contains(h.view(), "No tool output yet") {
		t.Errorf("ctrl+o with no output:\n%s", h.view())
	}
}

// TestPastePlaceholderShownAndKeptInHistory: ctrl+o on an input holding a placeholder shows
// the paste whole (the hint names the key) and closes again with the input as it was; the
// history keeps the pastes (a large one in a file of its own), and ↑ in a later session
// brings back the placeholders, renumbered where this session used the number, and sends the
// pastes whole.
func TestPastePlaceholderShownAndKeptInHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h := newHarness(t, Options{History: History{Path: path, Project: "/p"}})
	var small, large strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&small, "pasted line %03d\n", i)
	}
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&large, "large paste line %04d\n", i)
	}
	h.typeText("look: ")
	h.m.update(tea.PasteMsg{Content: small.String()})
	h.typeText(" and ")
	h.m.update(tea.PasteMsg{Content: large.String()})
	if v := h.view(); !strings.Contains(v, "ctrl+o show the pasted text") {
		t.Errorf("the hint does not name the key:\n%s", v)
	}
	h.press("ctrl+o")
	seen := map[string]bool{}
	for range 20 {
		for _, l := range strings.Split(h.view(), "\n") {
			if i := strings.Index(l, "pasted line "); i >= 0 {
				seen[strings.TrimSpace(l[i:])] = true
			}
		}
		h.press("pgdown")
	}
	if len(seen) != 120 || !strings.Contains(h.view(), "[Pasted text #1 +120 lines]  (1 of 2)") {
		t.Errorf("the view showed %d of the paste's 120 lines:\n%s", len(seen), h.view())
	}
	h.press("right")
	if v := h.view(); !strings.Contains(v, "[Pasted text #2 +2000 lines]  (2 of 2)") || !strings.Contains(v, "large paste line 0001") {
		t.Errorf("→ does not show the second paste:\n%s", v)
	}
	h.press("esc")
	want := "look: [Pasted text #1 +120 lines] and [Pasted text #2 +2000 lines]"
	if got := h.m.ed.String(); got != want || h.m.viewer != nil {
		t.Fatalf("after the view the input is %q (view open: %v)", got, h.m.viewer != nil)
	}
	h.pump(h.startTurn(h.press("enter")))

	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"pastedContents":{"1":{"id":1,"type":"text","content":"pasted line 001\n`) || strings.Contains(string(b), "large paste line") {
		t.Errorf("history.jsonl does not keep the pastes as it should:\n%.400s", b)
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "pastes", "*.txt")); len(files) != 1 {
		t.Errorf("the large paste is in %d files, want 1", len(files))
	}

	// A later session: its own paste #1 first; ↑ renumbers the recalled ones.
	h2 := newHarness(t, Options{History: History{Path: path, Project: "/p"}})
	h2.m.update(tea.PasteMsg{Content: strings.Repeat("other\n", 30)})
	h2.press("ctrl+u")
	h2.press("up")
	if got := h2.m.ed.String(); got != "look: [Pasted text #2 +120 lines] and [Pasted text #3 +2000 lines]" {
		t.Fatalf("↑ brought back %q", got)
	}
	h2.pump(h2.startTurn(h2.press("enter")))
	if got, want := h2.b.prompts[0], "look: "+small.String()+" and "+large.String(); got != want {
		t.Errorf("the recalled message was not sent with its pastes: %.200q", got)
	}
	if parts := h2.b.inputs[0].Parts; len(parts) != 4 || parts[1].Origin != conversation.Pasted || parts[3].Origin != conversation.Pasted {
		t.Errorf("the recalled pastes are not marked as pasted: %+v", len(parts))
	}
}
