package chatui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/strata-mem/strata/agent"
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
	if !strings.Contains(v, "Read notes.txt  (output 2 of 2)") || !strings.Contains(v, "終わり") {
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
	if v := h.view(); !strings.Contains(v, "Bash go test ./...  (output 1 of 2)") || !strings.Contains(v, "of 120") {
		t.Errorf("the long output's view:\n%s", v)
	}
	h.typeText("x") // keys go to the view, not the input
	if !h.m.ed.Empty() {
		t.Errorf("a key reached the input under the view: %q", h.m.ed.String())
	}

	h.press("ctrl+o")
	if v := h.view(); strings.Contains(v, "output 1 of 2") || !strings.Contains(v, "› ") {
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
