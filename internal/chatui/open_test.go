package chatui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// openHarness is a harness whose Options.Open asks one question through the UI's dialog, as
// the chat asks about a project's MCP server, and reports the answer.
func openHarness(t *testing.T, openErr error) (*harness, <-chan tea.Msg, chan [2]bool) {
	t.Helper()
	answers := make(chan [2]bool, 1)
	var h *harness
	h = newHarness(t, Options{Prompt: "", Open: func(ctx context.Context) (Opened, error) {
		reply := make(chan bool, 1)
		h.m.send(confirmMsg{question: `Use the MCP server "strata" of this project's .mcp.json?`, detail: []string{"strata mcp"}, reply: reply})
		select {
		case yes := <-reply:
			answers <- [2]bool{yes, true}
		case <-ctx.Done():
			answers <- [2]bool{false, false}
		}
		return Opened{Header: "HEADER of the opened session", Mode: "plan", Hooks: Hooks{CycleMode: func() string { return "ask" }}}, openErr
	}})
	cmd := h.m.Init()
	if cmd == nil || !h.m.opening {
		t.Fatal("Init did not start opening the session")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-h.sent:
		h.m.update(msg)
	case <-time.After(5 * time.Second):
		t.Fatal("the opening never asked")
	}
	return h, done, answers
}

// TestOpenAsksInTheUI: the session opens once the UI shows; its question is the UI's dialog,
// answered with one key and left as one line in the scrollback; a message typed meanwhile
// waits and is sent once the session is open, after the header.
func TestOpenAsksInTheUI(t *testing.T) {
	h, done, answers := openHarness(t, nil)
	v := h.view()
	if !strings.Contains(v, `Use the MCP server "strata" of this project's .mcp.json?`) || !strings.Contains(v, "strata mcp") || !strings.Contains(v, "y yes") {
		t.Fatalf("the question is not shown as a dialog:\n%s", v)
	}
	h.press("y")
	if a := <-answers; a != [2]bool{true, true} {
		t.Fatalf("answer = %v, want yes", a)
	}
	opened := <-done
	h.typeText("hello")
	h.press("enter")
	if len(h.m.queue) != 1 || len(h.b.prompts) != 0 {
		t.Fatalf("a message typed while the session opens does not wait: %d queued, %d sent", len(h.m.queue), len(h.b.prompts))
	}
	h.pump(h.startTurn(h.m.update(opened)))
	if got := strings.Join(h.b.prompts, "|"); got != "hello" {
		t.Errorf("prompts = %q", got)
	}
	out := h.printed()
	q, hd, msg := strings.Index(out, `MCP server "strata" of this project's .mcp.json? → yes`), strings.Index(out, "HEADER of the opened session"), strings.Index(out, "› hello")
	if q < 0 || hd < q || msg < hd {
		t.Errorf("the scrollback does not have the answer, the header and the message in order:\n%s", out)
	}
	if h.m.mode != "plan" || h.m.o.Hooks.CycleMode == nil {
		t.Errorf("the opened session's mode and hooks are not taken: %q", h.m.mode)
	}
}

// TestOpenQuitBeforeAnswering: quitting while the question is up leaves it unanswered (the
// caller keeps no answer), and a session that did not open ends the UI with its error.
func TestOpenQuitBeforeAnswering(t *testing.T) {
	h, done, answers := openHarness(t, nil)
	h.press("ctrl+c") // the dialog's no would answer; Ctrl-C in the dialog is a no too
	if a := <-answers; a != [2]bool{false, true} {
		t.Fatalf("ctrl+c in the dialog = %v, want an answered no", a)
	}
	<-done

	h, done, answers = openHarness(t, nil)
	h.m.quit()
	if a := <-answers; a != [2]bool{false, false} {
		t.Fatalf("quitting = %v, want no answer", a)
	}
	<-done

	boom := errors.New("no model configured")
	h, done, _ = openHarness(t, boom)
	h.press("n")
	if cmd := h.m.update(<-done); cmd == nil || !h.m.quitting || !errors.Is(h.m.openErr, boom) {
		t.Errorf("a session that did not open does not end the UI with its error (%v)", h.m.openErr)
	}
}
