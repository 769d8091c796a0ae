package chatui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/permission"
)

// The dialogs' keys: the permission question, history search, the memory type, a yes/no
// confirmation, the /resume picker and @ completion.

type pickerState struct {
	all    []Session
	query  string
	cursor int
}

type searchState struct {
	query string
	match int // index into hist, -1 for none
}

// alwaysRule is the rule the "don't ask again" answer allows, shown before it is chosen; ""
// when none is offered (the dialog then has no "a").
func alwaysRule(r permission.Request) string { return r.Always }

// alwaysText says what "a" does: the rule, and where it holds when the caller says so.
func (m *model) alwaysText(r permission.Request) string {
	if m.o.AlwaysText != nil {
		return termtext.Line(m.o.AlwaysText(r))
	}
	return "don't ask again for " + termtext.Line(alwaysRule(r))
}

func (m *model) askKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.ask
	s := k.String()
	reply := Reply{Answer: -1}
	if m.feedback != nil {
		switch s {
		case "enter":
			reply = Reply{Answer: NoInstead, Feedback: strings.TrimSpace(m.feedback.String())}
			if reply.Feedback == "" {
				reply.Answer = No
			}
		case "esc", "ctrl+c":
			reply.Answer = No
		default:
			editKey(m.feedback, k)
			return nil
		}
	} else {
		switch s {
		case "y", "Y":
			reply.Answer = Yes
		case "a", "A":
			if alwaysRule(a.req) != "" {
				reply.Answer = Always
			}
		case "n", "N":
			m.feedback = &editor{}
			return nil
		case "esc", "ctrl+c":
			reply.Answer = No
		}
	}
	if reply.Answer < 0 {
		return nil
	}
	m.ask, m.feedback = nil, nil
	a.reply <- reply
	verdict := map[Answer]string{Yes: "yes", Always: "yes, and " + m.alwaysText(a.req), No: "no", NoInstead: "no: " + termtext.OneLine(termtext.Line(reply.Feedback))}[reply.Answer]
	what := m.summary(a.req)
	if cmd := commandOf(a.req); cmd != "" {
		what = "Bash " + termtext.Line(commandLine(cmd))
	}
	m.print(sDim().Render("  ? " + ansi.Truncate(what, max(20, m.width-8-cols(verdict)), "…") + " → " + verdict))
	return nil
}

// editKey applies an editing key to a one-purpose editor (the dialog's feedback line).
func editKey(e *editor, k tea.KeyPressMsg) {
	switch k.String() {
	case "backspace", "ctrl+h":
		e.Backspace()
	case "left":
		e.Left()
	case "right":
		e.Right()
	case "ctrl+u":
		e.KillLine()
	case "ctrl+w":
		e.DeleteWord()
	case "shift+enter", "alt+enter", "ctrl+j":
		e.Insert("\n")
	default:
		if k.Text != "" {
			e.Insert(k.Text)
		}
	}
}

func (m *model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	s := m.search
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+g":
		m.search = nil
		return nil
	case "enter", "tab", "right", "left":
		if s.match >= 0 {
			m.recall(m.hist[s.match])
			m.histIdx = s.match
		}
		m.search = nil
		return nil
	case "ctrl+r":
		s.match = m.findHistory(s.query, s.match-1)
		return nil
	case "backspace":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
		}
	default:
		if k.Text == "" {
			return nil
		}
		s.query += k.Text
	}
	s.match = m.findHistory(s.query, len(m.hist)-1)
	return nil
}

// findHistory returns the newest prompt at or before from that contains q, or -1.
func (m *model) findHistory(q string, from int) int {
	if q == "" {
		return -1
	}
	for i := min(from, len(m.hist)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(m.hist[i].Text), strings.ToLower(q)) {
			return i
		}
	}
	return -1
}

func (m *model) memKey(s string) tea.Cmd {
	if s == "esc" || s == "ctrl+c" {
		m.memText = ""
		return nil
	}
	typ := ""
	for _, t := range m.o.Hooks.MemoryTypes {
		if s == t.Key {
			typ = t.Name
		}
	}
	if typ == "" {
		return nil
	}
	text := m.memText
	m.memText = ""
	m.print(sUser().Render("# ") + termtext.Line(text) + sDim().Render(" ("+typ+")"))
	return m.background(func(ctx context.Context) tea.Msg {
		where, err := m.o.Hooks.Remember(ctx, typ, text)
		return commandMsg{out: sDim().Render("  ⎿  " + termtext.Line(where)), err: err}
	})
}

// confirmState is a yes/no question (/init over an existing CLAUDE.md, a project's MCP
// server); done gets the answer: y is yes, n, Esc, Ctrl-C and Enter no.
type confirmState struct {
	question string
	detail   []string
	done     func(yes bool) tea.Cmd
}

func (m *model) confirmKey(s string) tea.Cmd {
	c := m.confirm
	switch s {
	case "y", "Y":
		m.confirm = nil
		return c.done(true)
	case "n", "N", "esc", "ctrl+c", "enter":
		m.confirm = nil
		return c.done(false)
	}
	return nil
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	list := p.filtered()
	switch k.String() {
	case "esc", "ctrl+c":
		m.picker = nil
	case "up", "ctrl+p":
		p.cursor = max(0, p.cursor-1)
	case "down", "ctrl+n":
		p.cursor = min(len(list)-1, p.cursor+1)
	case "enter":
		if len(list) == 0 {
			return nil
		}
		id := list[p.cursor].ID
		m.picker = nil
		return m.job(func() tea.Msg {
			turns, err := m.o.Backend.Resume(context.Background(), id)
			return resumedMsg{id, turns, err}
		})
	case "backspace":
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
			p.cursor = 0
		}
	default:
		if k.Text != "" {
			p.query += k.Text
			p.cursor = 0
		}
	}
	return nil
}

// filtered is the picker's sessions whose title or id holds the query (case-insensitive).
func (p *pickerState) filtered() []Session {
	if p.query == "" {
		return p.all
	}
	q := strings.ToLower(p.query)
	var out []Session
	for _, s := range p.all {
		if strings.Contains(strings.ToLower(s.Title), q) || strings.HasPrefix(s.ID, q) {
			out = append(out, s)
		}
	}
	return out
}

// showResumed prints the earlier conversation of a resumed session.
func (m *model) showResumed(id string, turns []Turn) {
	m.print(sDim().Render(fmt.Sprintf("Resumed session %s.", id)))
	m.showTurns(turns)
}

// showTurns prints a resumed conversation's messages.
func (m *model) showTurns(turns []Turn) {
	for _, t := range turns {
		switch {
		case t.Role == "user":
			m.print(userLine(t.Text, m.width))
		case t.Role == "warning":
			m.print(sWarn().Render("warning: " + termtext.Line(t.Text)))
		case strings.TrimSpace(t.Text) != "":
			m.print("\n" + Markdown(t.Text, m.width-2))
		}
	}
}

// complete expands the @mention before the cursor: one candidate replaces it, several are
// listed under the input and their common prefix is filled in.
func (m *model) complete() {
	word, start := m.ed.WordAtCursor()
	if !strings.HasPrefix(word, "@") {
		return
	}
	if m.o.Hooks.Complete == nil {
		m.notice = "@ completion is not available in this build."
		return
	}
	c := m.o.Hooks.Complete(word[1:])
	switch len(c) {
	case 0:
		m.notice = "no path starts with " + termtext.Line(word[1:])
	case 1:
		m.ed.ReplaceWord(start, "@"+c[0])
		m.completions = nil
	default:
		m.ed.ReplaceWord(start, "@"+commonPrefix(c))
		m.completions = c
	}
}

func commonPrefix(s []string) string {
	p := s[0]
	for _, x := range s[1:] {
		for !strings.HasPrefix(x, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
