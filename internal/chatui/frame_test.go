package chatui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestFrameKeepsItsBorder: at every size, the / menu, the resume picker, the Ctrl-O view and
// a yes/no question fit within the frame's cap, so the cap never cuts the box's top border
// (at 80×20 the picker's rows pushed it out).
func TestFrameKeepsItsBorder(t *testing.T) {
	var cmds []Command
	for _, c := range []string{"/clear", "/compact", "/context", "/cost", "/copy", "/cx", "/cy", "/cz"} {
		cmds = append(cmds, Command{Name: c, Help: "what it does"})
	}
	var sessions []Session
	for i := range 12 {
		sessions = append(sessions, Session{ID: fmt.Sprint(i), Short: fmt.Sprint(i), Title: "a session", When: time.Unix(0, 0)})
	}
	states := map[string]func(h *harness){
		"menu":   func(h *harness) { h.typeText("/c") },
		"picker": func(h *harness) { h.m.update(sessionsMsg{list: sessions}) },
		"viewer": func(h *harness) {
			h.m.keepOutput(toolOutput{line: "Bash x", text: strings.Repeat("out\n", 200)})
			h.press("ctrl+o")
		},
		"confirm": func(h *harness) {
			h.m.update(confirmMsg{question: "Use the MCP server?", detail: []string{"strata mcp", "It runs a command."}, reply: make(chan bool, 1)})
		},
	}
	for _, size := range [][2]int{{140, 45}, {80, 24}, {60, 30}, {80, 20}, {60, 16}} {
		for name, set := range states {
			h := newHarness(t, Options{Commands: cmds})
			h.m.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			set(h)
			full := len(h.m.liveLines())
			if v := h.view(); (name != "viewer" && !strings.Contains(v, "╭")) || full > h.m.frameCap() {
				t.Errorf("%dx%d %s: the frame takes %d lines, more than its %d; its top border is cut:\n%s", size[0], size[1], name, full, h.m.frameCap(), v)
			}
		}
	}
}
