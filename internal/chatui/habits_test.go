package chatui

import (
	"strings"
	"testing"

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
