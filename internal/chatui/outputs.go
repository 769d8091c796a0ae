package chatui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/termtext"
)

// The Ctrl-O view: a tool call's whole output, opened over the input from its folded preview
// in the scrollback, scrolled in the live frame and closed again; on an input that holds paste
// placeholders, the pastes they stand for, before they are sent.

// toolOutput is one tool call's output (or a paste), kept for the Ctrl-O view.
type toolOutput struct {
	line  string // the tool line, as the scrollback shows it (a paste: its placeholder)
	text  string
	isErr bool
}

// outputsKept is how many outputs the view keeps, the newest last.
const outputsKept = 50

// viewerState is the open view: what it shows, which of them, and its first line shown.
type viewerState struct {
	list    []toolOutput
	at, top int
}

// keepOutput records an output for the view.
func (m *model) keepOutput(o toolOutput) {
	m.outputs = append(m.outputs, o)
	if n := len(m.outputs); n > outputsKept {
		m.outputs = append([]toolOutput(nil), m.outputs[n-outputsKept:]...)
	}
}

// openViewer opens the view on the pastes the input holds, else on the newest output, or
// says there is none.
func (m *model) openViewer() {
	if ps := m.inputPastes(); len(ps) > 0 {
		m.viewer = &viewerState{list: ps}
		return
	}
	if len(m.outputs) == 0 {
		m.notice = "No tool output yet: ctrl+o shows a tool's whole output once one has run."
		return
	}
	m.viewer = &viewerState{list: slices.Clone(m.outputs), at: len(m.outputs) - 1}
}

// inputPastes is the pastes whose placeholders the input holds, in their order there.
func (m *model) inputPastes() []toolOutput {
	text := m.ed.String()
	var out []toolOutput
	for _, ph := range placeholderRE().FindAllString(text, -1) {
		if p, ok := m.pasted[ph]; ok {
			out = append(out, toolOutput{line: sUser().Render(ph), text: p})
		}
	}
	return out
}

// viewerRows is how many output lines the view shows: the frame's room less the spinner, the
// view's head and foot and the line of notices.
func (m *model) viewerRows() int {
	if m.height == 0 {
		return 20
	}
	return max(3, m.frameCap()-7)
}

// viewerLines is the viewed output wrapped to the screen (a wide character takes two
// columns).
func (m *model) viewerLines() []string {
	o := m.viewer.list[m.viewer.at]
	text := strings.ReplaceAll(strings.TrimRight(termtext.Clean(o.text), "\n"), "\t", "    ")
	if strings.TrimSpace(text) == "" {
		return []string{"(no output)"}
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, wrap(l, m.width-4)...)
	}
	return out
}

// viewerKey handles a key while the view is open: ↑/↓ and PgUp/PgDn scroll, Home/End go to
// either end, ←/→ show the previous or next output, Ctrl-O, Esc or q close it.
func (m *model) viewerKey(k tea.KeyPressMsg) tea.Cmd {
	v := m.viewer
	rows := m.viewerRows()
	last := max(0, len(m.viewerLines())-rows)
	switch k.String() {
	case "ctrl+o", "esc", "q", "ctrl+c":
		m.viewer = nil
		return nil
	case "up", "k":
		v.top--
	case "down", "j", "enter":
		v.top++
	case "pgup", "b":
		v.top -= rows
	case "pgdown", "space", " ":
		v.top += rows
	case "home", "g":
		v.top = 0
	case "end", "G":
		v.top = last
	case "left", "h":
		if v.at > 0 {
			v.at, v.top = v.at-1, 0
		}
		return nil
	case "right", "l":
		if v.at < len(v.list)-1 {
			v.at, v.top = v.at+1, 0
		}
		return nil
	}
	v.top = max(0, min(v.top, last))
	return nil
}

// viewerView draws the view: the tool line and which output it is, the lines in view, and
// the keys with where the view is in the output.
func (m *model) viewerView() string {
	v := m.viewer
	o := v.list[v.at]
	lines := m.viewerLines()
	rows := m.viewerRows()
	end := min(len(lines), v.top+rows)
	st := sDim()
	if o.isErr {
		st = sErr()
	}
	out := []string{o.line + sDim().Render(fmt.Sprintf("  (%d of %d)", v.at+1, len(v.list)))}
	for _, l := range lines[v.top:end] {
		out = append(out, "  "+st.Render(l))
	}
	where := fmt.Sprintf("lines %d–%d of %d", v.top+1, end, len(lines))
	out = append(out, sDim().Render(ansi.Truncate(where+" · ↑/↓ pgup/pgdn scroll · ←/→ the others · ctrl+o or esc close", m.width-1, "…")))
	return strings.Join(out, "\n")
}
