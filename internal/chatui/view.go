package chatui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/toolcall"
)

// spinnerFrames are the waiting animation's frames.
var spinnerFrames = []string{"·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"}

// View draws the live part under the scrollback: the open end of the answer, the spinner, a
// dialog or the input box, and one line of notices.
func (m *model) View() tea.View {
	if m.quitting || m.height == 0 || (m.opening && m.confirm == nil) {
		// Nothing before the size is known, nor while the session opens unless it asks: a
		// frame drawn before the first print can be left behind in the scrollback.
		return tea.NewView("")
	}
	frame := m.liveLines()
	if c := m.frameCap(); m.height > 0 && len(frame) > c {
		frame = frame[len(frame)-c:] // never taller than the frame may be (see flush)
	}
	return tea.NewView(strings.Join(frame, "\n"))
}

// liveLines is the live part's lines, before the cap.
func (m *model) liveLines() []string {
	var parts []string
	if m.running && m.ask == nil {
		parts = append(parts, "", m.spinnerLine())
	}
	switch {
	case m.ask != nil:
		parts = append(parts, "", m.askView())
	case m.viewer != nil:
		parts = append(parts, "", m.viewerView())
	case m.picker != nil:
		parts = append(parts, "", m.pickerView())
	case m.memText != "":
		parts = append(parts, "", m.memView())
	case m.confirm != nil:
		parts = append(parts, "", m.confirmView())
	default:
		parts = append(parts, "", m.inputView())
	}
	if len(m.completions) > 0 {
		parts = append(parts, sDim().Render(ansi.Truncate(strings.Join(m.completions, "  "), m.width, "…")))
	}
	open := m.ask != nil || m.picker != nil || m.viewer != nil // a dialog over the input
	if menu := m.slashMenu(); len(menu) > 0 && !open && m.search == nil {
		parts = append(parts, m.menuView(menu)...)
	}
	if len(m.atList) > 0 && !open && m.search == nil {
		for i, f := range m.atList {
			row := ansi.Truncate("  @"+termtext.Line(f), m.width-1, "…")
			if i == m.atSel {
				row = sSelected().Render(row)
			} else {
				row = sDim().Render(row)
			}
			parts = append(parts, row)
		}
	}
	if line := modeLine(m.mode); line != "" && !open {
		parts = append(parts, line)
	}
	foot := m.notice
	if foot == "" && !open {
		foot = "enter send · shift+enter or \\ newline · ↑ history · ctrl+r search · esc interrupt · ctrl+d quit"
		if m.status != "" {
			foot = m.status + "  ·  " + foot
		}
		if placeholderRE().MatchString(m.ed.String()) { // first, so that a narrow screen shows it
			foot = "ctrl+o show the pasted text · " + foot
		}
	}
	parts = append(parts, sDim().Render(ansi.Truncate(foot, m.width, "…")))
	frame := strings.Split(strings.Join(parts, "\n"), "\n")
	if m.running && strings.TrimSpace(m.stream) != "" {
		if room := m.frameCap() - len(frame) - 1; m.height == 0 || room >= 2 {
			frame = append(append([]string{""}, strings.Split(m.liveStream(room), "\n")...), frame...)
		}
	}
	return frame
}

func (m *model) inputView() string {
	inner := max(20, m.width-4)
	if m.search != nil {
		found := ""
		if m.search.match >= 0 {
			found = termtext.OneLine(m.hist[m.search.match].Text)
		}
		line := fmt.Sprintf("(reverse-i-search)`%s': %s", m.search.query, termtext.Line(found))
		return sBox().Width(m.width).Render(ansi.Truncate(line, inner, "…"))
	}
	prompt := sPrompt().Render("› ")
	switch {
	case strings.HasPrefix(m.ed.String(), "!"):
		prompt = sWarn().Render("! ")
	case strings.HasPrefix(m.ed.String(), "#"):
		prompt = sSelected().Render("# ")
	}
	return sBox().Width(m.width).Render(m.ed.View(prompt, inner, m.hint))
}

func (m *model) spinnerLine() string {
	el := m.now().Sub(m.started).Round(time.Second)
	toks := m.usedToks + m.outToks
	frame := spinnerFrames[m.frame%len(spinnerFrames)]
	word := " Working…"
	switch {
	case m.tool != nil:
		word = " Running " + ansi.Truncate(ToolLine(m.tool.Name, m.tool.Input, m.o.Cwd, m.width), max(10, m.width-50), "…") + "…"
	case m.thinking:
		word = " Thinking…"
	}
	line := sSpinner().Render(frame+word) + sDim().Render(fmt.Sprintf(" (%s · ↓ %s tokens · esc to interrupt)", el, kTokens(toks)))
	return line + m.queueLines()
}

// queueLines is the messages waiting to be sent, a line each.
func (m *model) queueLines() string {
	var b strings.Builder
	for _, q := range m.queue {
		b.WriteString("\n" + sDim().Render(ansi.Truncate("  ⎿  queued: "+termtext.OneLine(q.text), m.width-1, "…")))
	}
	return b.String()
}

// confirmView is a yes/no question, what it is about under it.
func (m *model) confirmView() string {
	w := min(m.width, 100)
	rows := []string{sBold().Render(wrapPlain(m.confirm.question, w-4))}
	for _, d := range m.confirm.detail {
		rows = append(rows, sDim().Render(wrapPlain(d, w-4)))
	}
	rows = append(rows, "", sKey().Render("y")+" yes   "+sKey().Render("n")+" no")
	return sAskBox().Width(w).Render(strings.Join(rows, "\n"))
}

func kTokens(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func (m *model) askView() string {
	r := m.ask.req
	w := min(m.width, 120)
	body := append(m.askHead(w-4), "")
	if m.feedback != nil {
		body = append(body, "No. What should the model do instead?",
			m.feedback.View(sPrompt().Render("› "), w-4, ""),
			sDim().Render("enter send · esc just no"))
		return sAskBox().Width(w).Render(strings.Join(body, "\n"))
	}
	body = append(body, sKey().Render("y")+"  Yes")
	if rule := alwaysRule(r); rule != "" {
		body = append(body, sKey().Render("a")+"  Yes, and "+strings.Replace(m.alwaysText(r), rule, sSelected().Render(rule), 1))
	}
	body = append(body,
		sKey().Render("n")+"  No, and tell the model what to do instead",
		sKey().Render("esc")+" No")
	return sAskBox().Width(w).Render(strings.Join(body, "\n"))
}

func (m *model) pickerView() string {
	p := m.picker
	list := p.filtered()
	w := min(m.width, 120)
	rows := []string{ansi.Truncate(sBold().Render("Resume a session")+sDim().Render("  ↑/↓ choose · type to search · enter resume · esc cancel"), w-4, "…"),
		sPrompt().Render("search: ") + p.query}
	idW := 0
	for _, s := range list {
		idW = max(idW, cols(s.Short))
	}
	n := m.listRows(10, 6) // the blank line, the box's borders, its two head lines and the foot
	start := max(0, p.cursor-n+1)
	for i := start; i < len(list) && i < start+n; i++ {
		s := list[i]
		title := termtext.Line(s.Title)
		when := s.When.Local().Format("Jan 02 15:04")
		msgs := ""
		if s.Messages > 0 {
			msgs = fmt.Sprintf("%4d msgs  ", s.Messages)
		}
		row := fmt.Sprintf("%s%s  %s  %s%s", s.Short, strings.Repeat(" ", idW-cols(s.Short)), when, msgs, title)
		row = ansi.Truncate(row, w-6, "…")
		if i == p.cursor {
			rows = append(rows, sSelected().Render("❯ "+row))
		} else {
			rows = append(rows, "  "+row)
		}
	}
	if len(list) == 0 {
		rows = append(rows, sDim().Render("  no session matches"))
	}
	return sBox().Width(w).Render(strings.Join(rows, "\n"))
}

// liveStream is the open end of the answer, cut to its last room lines so that the live
// frame keeps within its cap (0 height: not known, not cut).
func (m *model) liveStream(room int) string {
	lines := strings.Split(wrapPlain(m.stream, m.width-2), "\n")
	if m.height > 0 && len(lines) > room {
		lines = append([]string{sDim().Render(fmt.Sprintf("… %d more lines above, printed when the block is complete", len(lines)-room+1))}, lines[len(lines)-room+1:]...)
	}
	return strings.Join(lines, "\n")
}

// wrapPlain wraps the open end of a streamed answer, shown as plain text until its block
// closes.
func wrapPlain(s string, width int) string {
	return strings.Join(wrap(termtext.Clean(strings.TrimRight(s, "\n")), width), "\n")
}

// summary is a permission request's one line, with paths under the working directory shown
// relative to it.
func (m *model) summary(r permission.Request) string {
	s := termtext.Line(r.Summary)
	if m.o.Cwd != "" {
		s = strings.ReplaceAll(s, strings.TrimSuffix(m.o.Cwd, "/")+"/", "")
	}
	return s
}

func (m *model) memView() string {
	w := min(m.width, 100)
	rows := []string{sBold().Render("Save to memory as which type?"), sDim().Render(ansi.Truncate(termtext.Line(m.memText), w-4, "…")), ""}
	for _, t := range m.o.Hooks.MemoryTypes {
		rows = append(rows, ansi.Truncate(sKey().Render(t.Key)+"  "+t.Name+sDim().Render("  "+t.Help), w-4, "…"))
	}
	rows = append(rows, sKey().Render("esc")+" cancel")
	return sAskBox().Width(w).Render(strings.Join(rows, "\n"))
}

// askHead is the question with what it approves in full: a command as written, wrapped, or an
// edit's diff with context. What does not fit in the frame was printed above it (askMsg).
func (m *model) askHead(width int) []string {
	r := m.ask.req
	if m.ask.printed {
		return []string{sBold().Render(wrapPlain("Allow "+m.summaryHead(r)+"?", width)), sDim().Render("  (shown in full above)")}
	}
	return append([]string{sBold().Render(wrapPlain("Allow "+m.summaryHead(r)+"?", width))}, m.askDetail(width)...)
}

// summaryHead is the question's subject: a command is shown under it, so it says "this
// command" and why it is asked.
func (m *model) summaryHead(r permission.Request) string {
	if commandOf(r) == "" {
		return m.summary(r)
	}
	head := "this command"
	if _, why, ok := strings.Cut(r.Summary, " (asked because "); ok {
		head += " (asked because " + termtext.Line(why)
	}
	return head
}

// askDetail is a request's command or diff, wrapped to width.
func (m *model) askDetail(width int) []string {
	if cmd := commandOf(m.ask.req); cmd != "" {
		var out []string
		for _, l := range wrap(termtext.Clean(cmd), width-2) {
			out = append(out, "  "+sTool().Render(l))
		}
		return out
	}
	if len(m.ask.diff) > 0 {
		return strings.Split(RenderDiff(m.ask.diff, width+2), "\n")
	}
	return nil
}

// commandOf is a shell request's command as written, or "".
func commandOf(r permission.Request) string {
	if c, err := toolcall.Decode(r.Tool, r.Input, nil); err == nil {
		if b, ok := c.(*toolcall.Bash); ok {
			return strings.TrimRight(b.Command, "\n")
		}
	}
	return ""
}

// askDiff is the diff an Edit or Write request would make to the file as it is now (nil for
// other tools, or when the edit cannot apply: the agent refuses those before asking).
func askDiff(cwd string, r permission.Request) []string {
	c, err := toolcall.Decode(r.Tool, r.Input, func(p string) string { return absIn(cwd, p) })
	if err != nil {
		return nil
	}
	read := func(path string) string {
		b, _ := fsutil.ReadRegular(path, 8<<20) // a new file: all added
		return string(b)
	}
	switch c := c.(type) {
	case *toolcall.Edit:
		before := read(c.FilePath)
		done, err := c.Apply(before)
		if err != nil {
			return nil
		}
		return Diff(before, done.Text)
	case *toolcall.Write:
		return Diff(read(c.FilePath), c.Content)
	}
	return nil
}

// menuView is the `/` menu: up to menuLines commands around the chosen one, with their help.
func (m *model) menuView(menu []Command) []string {
	sel := min(m.menuSel, len(menu)-1)
	n := m.listRows(menuLines, 6) // the blank line, the input box and the foot
	start := max(0, min(sel-n/2, len(menu)-n))
	var out []string
	for i := start; i < len(menu) && i < start+n; i++ {
		c := menu[i]
		row := ansi.Truncate(fmt.Sprintf("  %-16s %s", strings.TrimSpace(c.Name+" "+c.Args), c.Help), m.width-1, "…")
		if i == sel {
			out = append(out, sSelected().Render(row))
		} else {
			out = append(out, sDim().Render(row))
		}
	}
	return out
}

// menuLines is how many commands the `/` menu shows at once.
const menuLines = 6

// listRows is how many rows of a list (the / menu, the resume picker) the frame has room
// for, at most want, when around them other lines take; at least one. A list fitted here
// keeps the frame within its cap, which would otherwise cut its top: the box's border.
func (m *model) listRows(want, other int) int {
	if m.height == 0 {
		return want
	}
	return max(1, min(want, m.frameCap()-other))
}

// modeLine is the line under the input that names a permission mode other than ask.
func modeLine(mode string) string {
	switch mode {
	case "accept-edits":
		return sSelected().Render("⏵⏵ accept edits on") + sDim().Render(" (shift+tab to cycle)")
	case "plan":
		return sSelected().Render("⏸ plan mode on") + sDim().Render(" (shift+tab to cycle): the model reads and plans, nothing changes")
	case "bypass":
		return sErr().Render("⏵⏵ bypass permissions on") + sDim().Render(" (shift+tab to cycle)")
	}
	return ""
}
