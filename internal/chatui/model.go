package chatui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tokens"
)

// exitWindow is how soon a second Ctrl-C must follow the first to quit.
const exitWindow = 2 * time.Second

// Messages the model receives besides keys.
type (
	eventMsg struct {
		e agent.Event
		// before is the file a Write is about to replace, read before it runs; line is where
		// an Edit's new text starts in the file, read after it ran.
		before string
		line   int
	}
	turnDoneMsg struct {
		id  int
		err error
	}
	askMsg struct {
		req   permission.Request
		reply chan Reply
		diff  []string // an Edit's or Write's diff with context, as the file is now
		// printed: the command or diff was too tall for the dialog and went to the scrollback.
		printed bool
	}
	askDoneMsg struct{}
	tickMsg    struct{ id int }
	printedMsg struct{}
	commandMsg struct {
		out    string
		quit   bool
		err    error
		output *toolOutput // a `!` command's, for the Ctrl-O view
	}
	sessionsMsg struct {
		list []Session
		err  error
	}
	resumedMsg struct {
		id    string
		turns []Turn
		err   error
	}
	editorDoneMsg struct{ err error }
	firstMsg      struct{} // send Options.Prompt
	openedMsg     struct {
		op  Opened
		err error
	}
	confirmMsg struct {
		question string
		detail   []string
		reply    chan bool
	}
)

// model is the bubbletea model: the input box, the live answer and the dialogs. Finished
// output goes to the scrollback through an ordered outbox.
type model struct {
	o      Options
	send   func(tea.Msg)
	width  int
	height int // 0 until the terminal says
	now    func() time.Time

	ed        editor
	pastes    []string          // what was pasted into ed since it was last cleared, in order
	pasted    map[string]string // long pastes by their placeholder, for the session
	pasteN    int
	hist      []Prompt
	histIdx   int // len(hist) when not browsing
	draft     string
	hint      string // the input's placeholder
	notice    string // one line under the input (the Ctrl-C hint, errors)
	lastCtrlC time.Time

	opening bool  // Options.Open runs: messages wait for it
	openErr error // why the session could not be opened

	// The running answer.
	turnID   int
	running  bool
	cancel   context.CancelFunc
	started  time.Time
	stream   string // the assistant text of the current request not yet printed
	outToks  int
	usedToks int
	frame    int
	thinking bool            // the model is thinking (its thinking is not shown)
	tool     *agent.ToolCall // the tool call running, named in the spinner
	queue    []queued        // messages sent during the answer, in order
	menuSel  int             // the chosen line of the / menu
	mode     string          // the permission mode
	atList   []string        // the @ picker's files; nil: closed
	atSel    int
	atQuery  string            // what atList was found for
	atClosed string            // the mention Esc closed the picker on
	befores  map[string]string // Write's old content by tool call id
	outputs  []toolOutput      // the tool outputs the Ctrl-O view shows
	viewer   *viewerState      // the Ctrl-O view; nil: closed

	jobs        jobs
	ask         *askMsg
	feedback    *editor // the "no, do this instead" text, while it is typed
	search      *searchState
	picker      *pickerState
	memText     string // a "#" memory waiting for its type
	confirm     *confirmState
	status      string // the status line as of the last answer or command, shown under the input
	completions []string

	outbox    []string
	printing  bool
	lastPrint string // the print in flight
	quitting  bool
}

func newModel(o Options, send func(tea.Msg)) *model {
	m := &model{o: o, send: send, width: 80, now: time.Now, befores: map[string]string{}, mode: o.Mode}
	hist, err := o.History.Load()
	if err != nil {
		m.notice = err.Error()
	}
	m.hist, m.histIdx = hist, len(hist)
	return m
}

// Init queues the header; it is printed once the terminal's size is known, so that the
// first print is cut to the screen like every other.
func (m *model) Init() tea.Cmd {
	if m.o.Open != nil {
		m.opening = true
		return m.background(func(ctx context.Context) tea.Msg {
			op, err := m.o.Open(ctx)
			return openedMsg{op, err}
		})
	}
	m.start()
	if strings.TrimSpace(m.o.Prompt) != "" {
		return func() tea.Msg { return firstMsg{} }
	}
	return nil
}

// opened starts the UI on the session Options.Open opened: the header, the first message or
// those typed meanwhile. A session that did not open ends the UI.
func (m *model) opened(msg openedMsg) tea.Cmd {
	m.opening, m.cancel = false, nil
	if msg.err != nil {
		m.openErr = msg.err
		return m.quit()
	}
	m.o.Header, m.o.Resumed, m.o.Hooks, m.mode = msg.op.Header, msg.op.Resumed, msg.op.Hooks, msg.op.Mode
	m.start()
	for _, n := range msg.op.Notes {
		m.print(sWarn().Render(termtext.Line(n)))
	}
	if strings.TrimSpace(m.o.Prompt) != "" {
		m.queue = append([]queued{{text: m.o.Prompt}}, m.queue...)
	}
	return m.next(false)
}

// start queues what the UI shows first: the header and the end of a resumed conversation.
func (m *model) start() {
	if m.o.Header != "" {
		m.print(m.o.Header)
	}
	m.showTurns(m.o.Resumed)
	m.status = m.o.Backend.Status()
}

// print queues text for the scrollback.
func (m *model) print(s string) { m.outbox = append(m.outbox, s) }

// flush prints the outbox, then asks for the next flush: one print in flight at a time keeps
// the scrollback in the order things happened. Lines are wrapped narrower than the screen and
// printed at most printRoom at a time: bubbletea inserts a print above the live frame by
// moving the cursor up over both, and what does not fit between the frame and the top of the
// screen is lost (lines, or a stale frame and blank lines left in the scrollback).
func (m *model) flush() tea.Cmd {
	if m.printing || len(m.outbox) == 0 || m.height == 0 {
		return nil
	}
	lines := strings.Split(ansi.Hardwrap(m.drain(), m.width-1, true), "\n")
	if room := m.printRoom(); len(lines) > room {
		m.outbox = []string{strings.Join(lines[room:], "\n")}
		lines = lines[:room]
	}
	m.printing, m.lastPrint = true, strings.Join(lines, "\n")
	return tea.Sequence(tea.Println(m.lastPrint), func() tea.Msg { return printedMsg{} })
}

// printRoom is how many lines one print may take; the live frame keeps to the rest of the
// screen (frameCap).
func (m *model) printRoom() int { return max(2, m.height/3) }

// frameCap is the most lines the live frame may take.
func (m *model) frameCap() int { return max(1, m.height-m.printRoom()-1) }

// drain empties the outbox and returns its text.
func (m *model) drain() string {
	text := strings.Join(m.outbox, "\n")
	m.outbox = nil
	return text
}

func (m *model) stopTurn() {
	if m.cancel != nil {
		m.cancel()
	}
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if f := m.flush(); f != nil {
		cmd = tea.Batch(cmd, f)
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(20, msg.Width), msg.Height
	case printedMsg:
		m.printing = false
	case firstMsg:
		return m.submit(m.o.Prompt)
	case openedMsg:
		return m.opened(msg)
	case confirmMsg:
		reply := msg.reply
		m.confirm = &confirmState{question: msg.question, detail: msg.detail, done: func(yes bool) tea.Cmd {
			reply <- yes
			m.print(sDim().Render("  ? " + ansi.Truncate(termtext.Line(msg.question), m.width-12, "…") + " → " + map[bool]string{true: "yes", false: "no"}[yes]))
			return nil
		}}
	case clearNoticeMsg:
		if !m.lastCtrlC.IsZero() && m.now().Sub(m.lastCtrlC) >= exitWindow {
			m.lastCtrlC, m.notice = time.Time{}, ""
		}
	case tea.PasteMsg:
		switch {
		case m.feedback != nil:
			m.feedback.Insert(msg.Content)
		case m.ask == nil && m.picker == nil:
			m.paste(strings.ReplaceAll(strings.ReplaceAll(msg.Content, "\r\n", "\n"), "\r", "\n"))
		}
	case tea.KeyPressMsg:
		return m.key(msg)
	case tickMsg:
		if msg.id == m.turnID && m.running {
			m.frame++
			return tick(m.turnID)
		}
	case eventMsg:
		m.event(msg)
	case turnDoneMsg:
		if msg.id == m.turnID {
			return m.turnDone(msg.err)
		}
	case askMsg:
		m.ask = &msg
		m.flushStream(true)
		if m.height > 0 && len(m.liveLines()) > m.frameCap() {
			m.print(strings.Join(append([]string{""}, m.askHead(min(m.width, 120)-2)...), "\n"))
			m.ask.printed = true
		}
	case askDoneMsg:
		m.ask, m.feedback = nil, nil
	case commandMsg:
		m.status = m.o.Backend.Status() // /model, /clear, /compact change it
		if msg.output != nil {
			m.keepOutput(*msg.output)
		}
		if msg.out != "" {
			m.print(strings.TrimRight(msg.out, "\n"))
		}
		if msg.err != nil {
			m.print(sErr().Render(humanError(msg.err)))
		}
		if msg.quit {
			return m.quit()
		}
	case sessionsMsg:
		if msg.err != nil {
			m.print(sErr().Render(humanError(msg.err)))
		}
		if len(msg.list) == 0 {
			m.print("No sessions in this directory yet.")
			break
		}
		m.picker = &pickerState{all: msg.list}
	case resumedMsg:
		if msg.err != nil {
			m.print(sErr().Render("cannot resume: " + humanError(msg.err)))
			break
		}
		m.showResumed(msg.id, msg.turns)
		m.status = m.o.Backend.Status()
	case editorDoneMsg:
		if msg.err != nil {
			m.print(sErr().Render("editor: " + humanError(msg.err)))
		}
	}
	return nil
}

func tick(id int) tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{id} })
}

func (m *model) quit() tea.Cmd {
	m.quitting = true
	m.stopTurn()
	return tea.Quit
}

// key handles a key press in whichever mode is up: the permission dialog, the resume picker,
// history search, the memory type question, or the input.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch {
	case m.ask != nil:
		return m.askKey(k)
	case m.viewer != nil:
		return m.viewerKey(k)
	case m.picker != nil:
		return m.pickerKey(k)
	case m.search != nil:
		return m.searchKey(k)
	case m.memText != "":
		return m.memKey(s)
	case m.confirm != nil:
		return m.confirmKey(s)
	}
	if s != "ctrl+c" {
		m.lastCtrlC = time.Time{}
		if strings.HasPrefix(m.notice, "Press Ctrl-C") {
			m.notice = ""
		}
	}
	if s != "tab" {
		m.completions = nil
	}
	if menu := m.slashMenu(); len(menu) > 0 && m.menuKey(s, menu) {
		if s == "enter" {
			return m.submit(m.ed.String())
		}
		return nil
	}
	if len(m.atList) > 0 && m.atKey(s) {
		return nil
	}
	defer m.findFiles()
	switch s {
	case "ctrl+c":
		now := m.now()
		if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) <= exitWindow {
			return m.quit()
		}
		m.lastCtrlC = now
		m.notice = "Press Ctrl-C again to exit"
		if m.running {
			m.stopTurn()
		}
		m.ed.Set("")
		m.pastes = nil
		m.histIdx = len(m.hist)
		return tea.Tick(exitWindow, func(time.Time) tea.Msg { return clearNoticeMsg{} })
	case "ctrl+d":
		if m.ed.Empty() {
			return m.quit()
		}
		m.ed.Delete()
	case "esc":
		if m.running {
			m.stopTurn()
		}
	case "enter":
		text := m.ed.String()
		if strings.HasSuffix(text, "\\") && m.ed.pos == len(m.ed.text) {
			m.ed.Backspace()
			m.ed.Insert("\n")
			return nil
		}
		if m.running || m.opening { // one answer at a time: the message waits for this one to end
			if strings.TrimSpace(text) != "" {
				m.queue = append(m.queue, queued{text, m.pastes})
				m.ed.Set("")
				m.pastes = nil
			}
			return nil
		}
		return m.submit(text)
	case "shift+enter", "alt+enter", "ctrl+j":
		m.ed.Insert("\n")
	case "backspace", "ctrl+h":
		m.ed.Backspace()
	case "delete":
		m.ed.Delete()
	case "left", "ctrl+b":
		m.ed.Left()
	case "right", "ctrl+f":
		m.ed.Right()
	case "home", "ctrl+a":
		m.ed.Home()
	case "end", "ctrl+e":
		m.ed.End()
	case "ctrl+u":
		m.ed.KillLine()
	case "ctrl+k":
		m.ed.KillEnd()
	case "ctrl+w", "alt+backspace":
		m.ed.DeleteWord()
	case "up":
		if !m.ed.OnFirstLine() {
			m.ed.Up()
		} else if m.histIdx > 0 {
			if m.histIdx == len(m.hist) {
				m.draft = m.ed.String()
			}
			m.histIdx--
			m.recall(m.hist[m.histIdx])
		}
	case "down":
		if !m.ed.OnLastLine() {
			m.ed.Down()
		} else if m.histIdx < len(m.hist) {
			m.histIdx++
			if m.histIdx == len(m.hist) {
				m.ed.Set(m.draft)
			} else {
				m.recall(m.hist[m.histIdx])
			}
		}
	case "ctrl+l":
		return tea.ClearScreen
	case "ctrl+o":
		m.openViewer()
	case "shift+tab":
		if m.o.Hooks.CycleMode == nil {
			m.notice = "Switching the permission mode is not available in this build."
			break
		}
		m.mode = m.o.Hooks.CycleMode()
	case "ctrl+r":
		m.search = &searchState{match: -1}
	case "tab":
		m.complete()
	default:
		if k.Text != "" {
			m.ed.Insert(k.Text)
			m.menuSel = 0
		}
	}
	return nil
}

// atPicker is how many files the @ picker shows.
const atPicker = 6

// findFiles fills the @ picker for the word at the cursor, when it is an @mention.
func (m *model) findFiles() {
	word, _ := m.ed.WordAtCursor()
	if m.o.Hooks.Files == nil || !strings.HasPrefix(word, "@") || word == m.atClosed {
		m.atList, m.atSel = nil, 0
		return
	}
	if q := word[1:]; q != m.atQuery || m.atList == nil {
		m.atList, m.atSel, m.atQuery = m.o.Hooks.Files(q, atPicker), 0, q
	}
}

// atKey handles a key while the @ picker is open: ↑/↓ choose, Tab or Enter puts the chosen
// file in place of the mention, Esc closes the picker. It reports whether it took the key.
func (m *model) atKey(s string) bool {
	switch s {
	case "up":
		m.atSel = (m.atSel + len(m.atList) - 1) % len(m.atList)
	case "down":
		m.atSel = (m.atSel + 1) % len(m.atList)
	case "tab", "enter":
		_, start := m.ed.WordAtCursor()
		m.ed.ReplaceWord(start, "@"+m.atList[m.atSel]+" ")
		m.atList = nil
	case "esc":
		m.atClosed, _ = m.ed.WordAtCursor()
		m.atList = nil
	default:
		return false
	}
	return true
}

// slashMenu is what the `/` menu offers for the input: the commands its text begins, while
// it is one word after a slash.
func (m *model) slashMenu() []Command {
	text := m.ed.String()
	if !strings.HasPrefix(text, "/") || strings.ContainsAny(text, " \n") {
		return nil
	}
	var out []Command
	for _, c := range m.o.Commands {
		if strings.HasPrefix(c.Name, text) {
			out = append(out, c)
		}
	}
	return out
}

// menuKey handles a key while the `/` menu is open: ↑/↓ choose, Tab completes the chosen
// command, Enter completes it before it is sent. It reports whether it took the key.
func (m *model) menuKey(s string, menu []Command) bool {
	m.menuSel = min(m.menuSel, len(menu)-1)
	c := menu[m.menuSel]
	switch s {
	case "up":
		m.menuSel = (m.menuSel + len(menu) - 1) % len(menu)
	case "down":
		m.menuSel = (m.menuSel + 1) % len(menu)
	case "tab":
		m.ed.Set(c.Name)
		if c.Args != "" {
			m.ed.Insert(" ")
		}
	case "enter":
		if m.running || m.opening || m.ed.String() == c.Name {
			return false
		}
		m.ed.Set(c.Name)
	default:
		return false
	}
	return true
}

type clearNoticeMsg struct{}

// Long pastes stand in the input as one placeholder line: more lines or bytes than these.
const (
	pasteMaxLines = 10
	pasteMaxBytes = 2000
)

// paste puts pasted text into the input: as it is, or, when long, as a placeholder line
// ("[Pasted text #1 +120 lines]") that submit replaces by the text. Either way the text is
// remembered as pasted, for the message's provenance.
func (m *model) paste(text string) {
	m.pastes = append(m.pastes, text)
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if lines <= pasteMaxLines && len(text) <= pasteMaxBytes {
		m.ed.Insert(text)
		return
	}
	m.pasteN++
	size := fmt.Sprintf("+%d lines", lines)
	if lines == 1 {
		size = fmt.Sprintf("%d chars", len([]rune(text)))
	}
	ph := fmt.Sprintf("[Pasted text #%d %s]", m.pasteN, size)
	if m.pasted == nil {
		m.pasted = map[string]string{}
	}
	m.pasted[ph] = text
	m.ed.Insert(ph)
}

// expandPastes replaces the placeholders in text by the pastes they stand for.
func (m *model) expandPastes(text string) string {
	for ph, p := range m.pasted {
		text = strings.ReplaceAll(text, ph, p)
	}
	return text
}

// submit sends what the input holds: a slash command, `!` shell, `#` memory, or a message.
func (m *model) submit(text string) tea.Cmd {
	trim := strings.TrimSpace(text)
	if trim == "" {
		return nil
	}
	pastes := m.pastes
	m.ed.Set("")
	m.pastes, m.hint = nil, ""
	m.addHistory(text)
	switch {
	case strings.HasPrefix(trim, "/"):
		return m.command(trim)
	case strings.HasPrefix(trim, "!"):
		cmd := strings.TrimSpace(trim[1:])
		m.print(sUser().Render("! ") + termtext.Line(cmd))
		if m.o.Hooks.Shell == nil {
			m.print(sWarn().Render("  Shell mode is not available in this build."))
			return nil
		}
		width := m.width // the model is not read off the event loop
		return m.background(func(ctx context.Context) tea.Msg {
			out, err := m.o.Hooks.Shell(ctx, cmd)
			return commandMsg{out: Preview(out, err != nil, width), err: err, output: &toolOutput{line: sWarn().Render("! ") + termtext.Line(cmd), text: out, isErr: err != nil}}
		})
	case strings.HasPrefix(trim, "#"):
		m.memText = strings.TrimSpace(trim[1:])
		if m.memText == "" {
			return nil
		}
		if m.o.Hooks.Remember == nil || len(m.o.Hooks.MemoryTypes) == 0 {
			m.print(sWarn().Render("Saving memories with # is not available in this build."))
			m.memText = ""
		}
		return nil
	}
	m.print(userLine(text, m.width))
	for ph, p := range m.pasted { // a placeholder recalled from the history is a paste too
		if strings.Contains(text, ph) {
			pastes = append(pastes, p)
		}
	}
	return m.startTurn(inputOf(m.expandPastes(text), pastes))
}

// inputOf marks the parts of text that are pastes, as recorded when they arrived: the first
// paste that still stands whole in text, then the next after it (one edited since is typed
// text now).
func inputOf(text string, pastes []string) conversation.Input {
	var in conversation.Input
	pastes = slices.DeleteFunc(slices.Clone(pastes), func(p string) bool { return p == "" })
	for {
		at, k := -1, -1
		for j, p := range pastes {
			if i := strings.Index(text, p); i >= 0 && (at < 0 || i < at) {
				at, k = i, j
			}
		}
		if k < 0 {
			break
		}
		p := pastes[k]
		pastes = slices.Delete(pastes, k, k+1)
		if at > 0 {
			in.Parts = append(in.Parts, conversation.Part{Origin: conversation.Typed, Text: text[:at]})
		}
		in.Parts = append(in.Parts, conversation.Part{Origin: conversation.Pasted, Text: p})
		text = text[at+len(p):]
	}
	if text != "" || len(in.Parts) == 0 {
		in.Parts = append(in.Parts, conversation.Part{Origin: conversation.Typed, Text: text})
	}
	return in
}

// background runs f off the event loop with a context Ctrl-C can cancel.
func (m *model) background(f func(ctx context.Context) tea.Msg) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	return m.job(func() tea.Msg { defer cancel(); return f(ctx) })
}

// jobs tracks the goroutines that run answers and commands on the session, so that UI.Run
// returns only after they ended: the caller closes the session right after.
type jobs struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// job wraps a command that uses the session; once the UI is closed it does nothing.
func (m *model) job(f func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		m.jobs.mu.Lock()
		if m.jobs.closed {
			m.jobs.mu.Unlock()
			return nil
		}
		m.jobs.wg.Add(1)
		m.jobs.mu.Unlock()
		defer m.jobs.wg.Done()
		return f()
	}
}

// closeJobs stops new jobs and waits for those running (after stopTurn cancelled the answer).
func (m *model) closeJobs() {
	m.jobs.mu.Lock()
	m.jobs.closed = true
	m.jobs.mu.Unlock()
	m.jobs.wg.Wait()
}

func (m *model) addHistory(text string) {
	p := Prompt{Text: text}
	for _, ph := range placeholderRE().FindAllString(text, -1) {
		if paste, ok := m.pasted[ph]; ok {
			if p.Pastes == nil {
				p.Pastes = map[string]string{}
			}
			p.Pastes[ph] = paste
		}
	}
	if n := len(m.hist); n == 0 || m.hist[n-1].Text != text {
		m.hist = append(m.hist, p)
	}
	m.histIdx, m.draft = len(m.hist), ""
	if err := m.o.History.Add(p, m.now()); err != nil {
		m.notice = "history: " + humanError(err)
	}
}

// recall puts a prompt of the history into the input, its pastes again behind their
// placeholders. A placeholder keeps its number unless this session has used the number: then
// it takes the next one, so that each placeholder stands for one paste.
func (m *model) recall(p Prompt) {
	text := p.Text
	for _, sub := range placeholderRE().FindAllStringSubmatchIndex(p.Text, -1) {
		ph := p.Text[sub[0]:sub[1]]
		paste, ok := p.Pastes[ph]
		if !ok || m.pasted[ph] == paste {
			continue
		}
		n, _ := strconv.Atoi(p.Text[sub[2]:sub[3]])
		to := ph
		if n <= m.pasteN {
			n = m.pasteN + 1
			to = p.Text[sub[0]:sub[2]] + strconv.Itoa(n) + p.Text[sub[3]:sub[1]]
			text = strings.Replace(text, ph, to, 1)
		}
		m.pasteN = n
		if m.pasted == nil {
			m.pasted = map[string]string{}
		}
		m.pasted[to] = paste
	}
	m.ed.Set(text)
}

func userLine(text string, width int) string {
	lines := strings.Split(termtext.Clean(strings.TrimRight(text, "\n")), "\n")
	for i, l := range lines {
		lead := "  "
		if i == 0 {
			lead = "› "
		}
		lines[i] = sUser().Render(lead) + l
	}
	_ = width
	return "\n" + strings.Join(lines, "\n")
}

func (m *model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	switch {
	case name == "/resume" && strings.TrimSpace(arg) == "":
		return m.job(func() tea.Msg {
			list, err := m.o.Backend.Sessions(context.Background())
			return sessionsMsg{list, err}
		})
	case name == "/init" && m.o.Hooks.Init != nil:
		prompt, exists := m.o.Hooks.Init()
		if exists {
			m.confirm = &confirmState{question: "This project has a CLAUDE.md. Let the model revise it?", done: func(yes bool) tea.Cmd {
				if !yes {
					m.print(sDim().Render("  CLAUDE.md left as it is."))
					return nil
				}
				m.print(userLine("/init", m.width))
				return m.startTurn(conversation.TypedInput(prompt))
			}}
			return nil
		}
		m.print(userLine(line, m.width))
		return m.startTurn(conversation.TypedInput(prompt))
	case name == "/pin" && strings.TrimSpace(arg) != "":
		m.print(userLine(line, m.width))
		in := conversation.TypedInput(strings.TrimSpace(arg))
		in.Pinned = true
		return m.startTurn(in)
	case name == "/memory" && strings.TrimSpace(arg) != "" && m.o.Hooks.EditMemory != nil:
		c, err := m.o.Hooks.EditMemory(strings.TrimSpace(arg))
		if err != nil {
			m.print(sErr().Render(humanError(err)))
			return nil
		}
		return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{err} })
	case name == "/exit" || name == "/quit":
		return m.quit()
	}
	m.print(sUser().Render("› ") + termtext.Line(line))
	return m.job(func() tea.Msg {
		var b bytes.Buffer
		quit, err := m.o.Backend.Command(context.Background(), line, &b)
		return commandMsg{out: b.String(), quit: quit, err: err}
	})
}

// startTurn runs the message on its own goroutine; its events come back as eventMsg.
func (m *model) startTurn(in conversation.Input) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	m.turnID++
	id := m.turnID
	m.running, m.cancel, m.started = true, cancel, m.now()
	m.stream, m.outToks, m.usedToks, m.frame = "", 0, 0, 0
	run := m.job(func() tea.Msg {
		defer cancel()
		err := m.o.Backend.Run(ctx, in, func(e agent.Event) {
			msg := eventMsg{e: e}
			switch {
			case e.Tool == nil:
			case e.Kind == agent.EventToolStart && e.Tool.Name == "Write":
				msg.before = readBefore(m.o.Cwd, e.Tool.Input)
			case e.Kind == agent.EventToolEnd && e.Tool.Name == "Edit" && !e.IsError:
				msg.line = editLine(m.o.Cwd, e.Tool.Input)
			}
			m.send(msg)
		})
		return turnDoneMsg{id, err}
	})
	return tea.Batch(run, tick(id))
}

// readBefore reads the file a Write call is about to replace (at most 1 MiB), for its diff.
func readBefore(cwd string, input []byte) string {
	var in struct {
		Path string `json:"file_path"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		return ""
	}
	b, err := fsutil.ReadRegular(absIn(cwd, in.Path), 1<<20)
	if err != nil {
		return "" // a new file, or one too large to diff: shown as all added
	}
	return string(b)
}

// event renders one agent event: text joins the stream (complete markdown blocks go to the
// scrollback), tool calls become one line with a preview or a diff.
func (m *model) event(msg eventMsg) {
	e := msg.e
	switch e.Kind {
	case agent.EventRequest:
		m.flushStream(true)
		m.thinking = false
	case agent.EventThinking:
		m.thinking = true
		m.outToks += tokens.Estimate(e.Text)
	case agent.EventText:
		m.thinking = false
		m.stream += e.Text
		m.outToks += tokens.Estimate(e.Text)
		m.flushStream(false)
	case agent.EventUsage:
		m.usedToks += e.Usage.OutputTokens
		m.outToks = 0
	case agent.EventToolStart:
		m.flushStream(true)
		m.tool = e.Tool
		if e.Tool != nil && e.Tool.Name == "Write" {
			m.befores[e.Tool.ID] = msg.before
		}
	case agent.EventToolEnd:
		m.tool = nil
		if e.Tool == nil {
			break
		}
		mark := sOK().Render("⏺ ")
		if e.IsError {
			mark = sErr().Render("⏺ ")
		}
		lines := []string{mark + ToolLine(e.Tool.Name, e.Tool.Input, m.o.Cwd, m.width-2)}
		m.keepOutput(toolOutput{line: lines[0], text: e.Output, isErr: e.IsError})
		if d := EditDiff(e.Tool.Name, e.Tool.Input, m.befores[e.Tool.ID], msg.line, m.width); d != "" && !e.IsError {
			lines = append(lines, d)
		} else {
			lines = append(lines, Preview(e.Output, e.IsError, m.width))
		}
		delete(m.befores, e.Tool.ID)
		m.print(strings.Join(lines, "\n"))
	case agent.EventPermission:
		m.flushStream(true)
		if e.Tool != nil {
			m.print(sErr().Render("⏺ ") + ToolLine(e.Tool.Name, e.Tool.Input, m.o.Cwd, m.width-2) + "\n" + sDim().Render("  ⎿  ") + sErr().Render(ansi.Truncate(firstLine(e.Text), m.width-6, "…")))
		}
	case agent.EventRetry:
		m.print(sWarn().Render(ansi.Truncate(retryText(e.Err, e.Wait), m.width-1, "…")))
	case EventAttached:
		m.print(sDim().Render("  attached " + termtext.Line(e.Text)))
	case EventWarning:
		m.flushStream(true)
		m.print(sWarn().Render("warning: " + termtext.Line(e.Text)))
	case agent.EventRecall:
		if len(e.Memories) > 0 {
			m.print(sDim().Render("  recalled " + termtext.Line(strings.Join(e.Memories, ", "))))
		}
	case agent.EventCompact:
		m.flushStream(true)
		m.print(sDim().Render("  " + termtext.Line(e.Text)))
	}
}

// retryText is the one line a retry gets: what the server did, and when the next try is.
func retryText(err error, wait time.Duration) string {
	what := "failed"
	var e *llm.Error
	if errors.As(err, &e) {
		what = e.Kind.Error()
		if e.Status != 0 {
			what += fmt.Sprintf(" (HTTP %d)", e.Status)
		}
	}
	return fmt.Sprintf("  ⎿  the model server: %s · retrying in %s", what, wait.Round(100*time.Millisecond))
}

// packages are the names with which strata's packages start their errors ("memdir: …"), for
// the code that logs them; the UI shows the rest.
var packages = map[string]bool{"agent": true, "chatui": true, "compact": true, "config": true, "conversation": true,
	"extract": true, "fsutil": true, "instructions": true, "llm": true, "mcpserver": true, "memdir": true, "memsync": true,
	"permission": true, "prompt": true, "recall": true, "tool": true, "toolcall": true, "transcript": true, "usage": true,
	"work": true, "workspace": true}

// humanError is err for a person: one line, without package prefixes.
func humanError(err error) string {
	s := termtext.Line(err.Error())
	for {
		pkg, rest, ok := strings.Cut(s, ": ")
		if !ok || !packages[pkg] {
			return s
		}
		s = rest
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return termtext.Line(s)
}

// flushStream prints the stream's complete markdown blocks, or all of it when all is set
// (the request ended, a tool runs, a question is asked).
func (m *model) flushStream(all bool) {
	done, open := SplitStream(m.stream)
	if all {
		done, open = m.stream, ""
	}
	if strings.TrimSpace(done) != "" {
		m.print("\n" + Markdown(done, m.width-2))
	}
	m.stream = open
}

// turnDone ends the answer and sends the next queued message.
func (m *model) turnDone(err error) tea.Cmd {
	m.flushStream(true)
	m.running, m.cancel, m.tool = false, nil, nil
	m.ask, m.feedback = nil, nil
	switch {
	case errors.Is(err, context.Canceled):
		m.print(sWarn().Render("  ⎿  Interrupted") + sDim().Render(" · what should the model do instead?"))
	case err != nil:
		m.print(sErr().Render(humanError(err)))
	}
	if m.status = m.o.Backend.Status(); m.status != "" {
		m.print(sDim().Render(m.status))
	}
	return m.next(err != nil)
}

// next sends the first queued message, if any; after an answer that failed or was
// interrupted the queue goes back into the input instead, to be sent or changed.
func (m *model) next(failed bool) tea.Cmd {
	if len(m.queue) == 0 {
		return nil
	}
	if failed {
		var texts []string
		for _, q := range m.queue {
			texts = append(texts, q.text)
			m.pastes = append(m.pastes, q.pastes...)
		}
		if !m.ed.Empty() {
			texts = append(texts, m.ed.String())
		}
		m.ed.Set(strings.Join(texts, "\n"))
		m.queue = nil
		return nil
	}
	q := m.queue[0]
	m.queue = m.queue[1:]
	saved := m.pastes
	m.pastes = q.pastes
	cmd := m.submit(q.text)
	m.pastes = saved // what is being typed keeps its own pastes
	return cmd
}

// queued is a message sent while an answer ran.
type queued struct {
	text   string
	pastes []string
}
