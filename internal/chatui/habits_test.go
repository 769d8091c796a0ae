package chatui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/strata-mem/strata/agent"
)

// TestQueueAndRunningTool: Enter during an answer queues the message (shown under the spinner,
// which names the running tool) and sends it when the answer ends; after an interrupt the
// queue goes back into the input instead.
func TestQueueAndRunningTool(t *testing.T) {
	h := newHarness(t, Options{})
	h.b.block = true
	h.b.events = []agent.Event{{Kind: agent.EventToolStart, Tool: &agent.ToolCall{ID: "b1", Name: "Bash", Input: []byte(`{"command":"go test ./..."}`)}}}
	h.typeText("first")
	done := h.startTurn(h.press("enter"))
	h.m.update(<-h.sent) // the tool starts
	h.typeText("second")
	h.press("enter")
	v := h.view()
	if !strings.Contains(v, "Running Bash go test ./...") || !strings.Contains(v, "queued: second") {
		t.Errorf("the spinner does not name the tool, or the queue is not shown:\n%s", v)
	}
	if !h.m.ed.Empty() {
		t.Errorf("the queued message stayed in the input: %q", h.m.ed.String())
	}
	h.b.release <- struct{}{}
	cmd := h.m.update(<-done)
	if cmd == nil {
		t.Fatal("the queued message was not sent when the answer ended")
	}
	h.b.events = nil
	h.b.block = false
	h.pump(h.startTurn(cmd))
	if got := strings.Join(h.b.prompts, "|"); got != "first|second" {
		t.Errorf("prompts = %q", got)
	}

	// Interrupted: the queue returns to the input.
	h.b.block = true
	h.typeText("third")
	done = h.startTurn(h.press("enter"))
	h.typeText("fourth")
	h.press("enter")
	h.press("esc")
	if cmd := h.m.update(<-done); cmd != nil {
		t.Error("a queued message was sent after an interrupt")
	}
	if got := h.m.ed.String(); got != "fourth" {
		t.Errorf("input after the interrupt = %q, want the queued message", got)
	}
}

// TestSlashMenu: "/" opens a menu of the commands the text begins; ↓ chooses, Tab completes
// (with a space for a command that takes arguments), Enter runs the chosen command.
func TestSlashMenu(t *testing.T) {
	cmds := []Command{{Name: "/clear", Help: "start a new session"}, {Name: "/compact", Args: "[text]", Help: "compact now"}, {Name: "/cost", Help: "tokens used"}, {Name: "/model", Args: "[NAME]", Help: "switch"}}
	h := newHarness(t, Options{Commands: cmds})
	h.typeText("/c")
	v := h.view()
	for _, want := range []string{"/clear", "/compact [text]", "compact now", "/cost"} {
		if !strings.Contains(v, want) {
			t.Errorf("the menu lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "/model") {
		t.Errorf("the menu offers a command that does not match:\n%s", v)
	}
	h.press("down", "tab")
	if got := h.m.ed.String(); got != "/compact " {
		t.Errorf("Tab completed to %q", got)
	}
	if v := h.view(); strings.Contains(v, "compact now") {
		t.Errorf("the menu stays open after the command is complete:\n%s", v)
	}
	h.m.ed.Set("")
	h.typeText("/co")
	h.m.update(h.press("down", "enter")())
	if got := strings.Join(h.b.commands, "|"); got != "/cost" {
		t.Errorf("Enter ran %q, want /cost", got)
	}
}

// TestShiftTabCyclesTheMode: Shift-Tab asks the session for the next mode and shows it under
// the input; ask mode shows nothing.
func TestShiftTabCyclesTheMode(t *testing.T) {
	modes := []string{"accept-edits", "plan", "ask"}
	i := 0
	h := newHarness(t, Options{Hooks: Hooks{CycleMode: func() string { i++; return modes[i-1] }}})
	h.m.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if v := h.view(); !strings.Contains(v, "accept edits on") {
		t.Errorf("after one Shift-Tab:\n%s", v)
	}
	h.m.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if v := h.view(); !strings.Contains(v, "plan mode on") {
		t.Errorf("after two:\n%s", v)
	}
	h.m.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if v := h.view(); strings.Contains(v, "mode on") || strings.Contains(v, "edits on") || i != 3 {
		t.Errorf("after three (%d calls):\n%s", i, v)
	}
}

// TestAtPicker: "@" opens a picker of the files the Files hook finds for the text after it,
// updated as it is typed; ↓ chooses, Enter puts the file in place; Esc closes the picker.
func TestAtPicker(t *testing.T) {
	var asked []string
	files := func(q string, max int) []string {
		asked = append(asked, q)
		if q == "" {
			return []string{"README.md", "docs/chat.md"}
		}
		return []string{"internal/chatui/model.go", "internal/chatui/view.go"}
	}
	h := newHarness(t, Options{Hooks: Hooks{Files: files}})
	h.typeText("look at @")
	if v := h.view(); !strings.Contains(v, "@README.md") || !strings.Contains(v, "@docs/chat.md") {
		t.Errorf("the picker does not list the files:\n%s", v)
	}
	h.typeText("cm")
	if v := h.view(); !strings.Contains(v, "@internal/chatui/view.go") || strings.Contains(v, "@README.md") {
		t.Errorf("the picker was not updated:\n%s", v)
	}
	h.press("down", "enter")
	if got := h.m.ed.String(); got != "look at @internal/chatui/view.go " {
		t.Errorf("input = %q", got)
	}
	if v := h.view(); strings.Contains(v, "@internal/chatui/model.go") || len(h.b.prompts) != 0 {
		t.Errorf("the picker stayed open or Enter sent the message:\n%s", v)
	}
	h.typeText("and @x")
	h.press("esc")
	if v := h.view(); strings.Contains(v, "@internal/chatui/model.go") {
		t.Errorf("Esc did not close the picker:\n%s", v)
	}
	if strings.Join(asked, ",") != ",c,cm,,x" {
		t.Errorf("queries: %q", asked)
	}
}
