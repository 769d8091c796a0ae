package chatui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
)

// fakeBackend records what the UI asks of it. Run reports the scripted events, then waits for
// release (or its context) when block is set.
type fakeBackend struct {
	mu       sync.Mutex
	prompts  []string
	commands []string
	events   []agent.Event
	block    bool
	release  chan struct{}
	ctxErr   error
	sessions []Session
	resumed  string
	turns    []Turn
	inputs   []conversation.Input
}

func (b *fakeBackend) Run(ctx context.Context, in conversation.Input, sink agent.Sink) error {
	b.mu.Lock()
	b.prompts = append(b.prompts, in.Text())
	b.inputs = append(b.inputs, in)
	b.mu.Unlock()
	for _, e := range b.events {
		sink(e)
	}
	if b.block {
		select {
		case <-ctx.Done():
			b.mu.Lock()
			b.ctxErr = ctx.Err()
			b.mu.Unlock()
			return ctx.Err()
		case <-b.release:
		}
	}
	return nil
}

func (b *fakeBackend) running() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.prompts)
}

func (b *fakeBackend) Command(ctx context.Context, line string, w io.Writer) (bool, error) {
	b.commands = append(b.commands, line)
	fmt.Fprintf(w, "ran %s\n", line)
	return line == "/bye", nil
}

func (b *fakeBackend) Status() string { return "── fake-model · context 1k" }

func (b *fakeBackend) Sessions(ctx context.Context) ([]Session, error) { return b.sessions, nil }

func (b *fakeBackend) Resume(ctx context.Context, id string) ([]Turn, error) {
	b.resumed = id
	return b.turns, nil
}

// harness is a model with a fake backend; sent collects what the answer's goroutine sends.
type harness struct {
	t    *testing.T
	m    *model
	b    *fakeBackend
	sent chan tea.Msg
	now  time.Time
}

func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	h := &harness{t: t, b: &fakeBackend{release: make(chan struct{})}, sent: make(chan tea.Msg, 100), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if o.Backend == nil {
		o.Backend = h.b
	}
	h.m = newModel(o, func(msg tea.Msg) { h.sent <- msg })
	h.m.now = func() time.Time { return h.now }
	h.m.update(tea.WindowSizeMsg{Width: 100, Height: 40})
	return h
}

var sgrRE = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func plain(s string) string { return sgrRE.ReplaceAllString(s, "") }

// view is the live part without colours.
func (h *harness) view() string { return plain(h.m.View().Content) }

// printed drains and returns what went to the scrollback, without colours.
func (h *harness) printed() string { return plain(h.m.drain()) }

func key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "shift+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "space":
		return tea.KeyPressMsg{Code: ' ', Text: " "}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if c, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// press sends keys; each must read as the key it names.
func (h *harness) press(keys ...string) tea.Cmd {
	h.t.Helper()
	var cmd tea.Cmd
	for _, k := range keys {
		msg := key(k)
		if msg.String() != k {
			h.t.Fatalf("key %q reads as %q", k, msg.String())
		}
		cmd = h.m.update(msg)
	}
	return cmd
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.m.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// startTurn runs the answer a command started on its own goroutine and returns the channel
// its end arrives on.
func (h *harness) startTurn(cmd tea.Cmd) <-chan tea.Msg {
	h.t.Helper()
	if cmd == nil {
		h.t.Fatal("no command: the message was not sent")
	}
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		h.t.Fatalf("want the answer's batch, got %T", cmd())
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }()
	return done
}

// pump applies what the answer's goroutine sent until its end arrives.
func (h *harness) pump(done <-chan tea.Msg) {
	h.t.Helper()
	for {
		select {
		case msg := <-h.sent:
			h.m.update(msg)
		case msg := <-done:
			for len(h.sent) > 0 {
				h.m.update(<-h.sent)
			}
			h.m.update(msg)
			return
		case <-time.After(10 * time.Second):
			h.t.Fatal("the answer never ended")
		}
	}
}

func TestEnterSendsAndStreamIsRendered(t *testing.T) {
	h := newHarness(t, Options{})
	h.b.events = []agent.Event{
		{Kind: agent.EventRequest, Turn: 1},
		{Kind: agent.EventText, Text: "## Plan\n\nUse **bold** "},
		{Kind: agent.EventText, Text: "words.\n\nstill open"},
	}
	h.b.block = true
	h.typeText("hello")
	done := h.startTurn(h.press("enter"))
	// Apply the three events, then look: the complete blocks are printed, the open one is live.
	for range 3 {
		h.m.update(<-h.sent)
	}
	out := h.printed()
	if !strings.Contains(out, "› hello") || !strings.Contains(out, "Plan") || strings.Contains(out, "##") || strings.Contains(out, "**") {
		t.Errorf("printed:\n%s", out)
	}
	if strings.Contains(out, "still open") {
		t.Errorf("the open block was printed before it closed:\n%s", out)
	}
	v := h.view()
	if !strings.Contains(v, "still open") || !strings.Contains(v, "Working…") || !strings.Contains(v, "esc to interrupt") {
		t.Errorf("view while answering:\n%s", v)
	}
	close(h.b.release)
	h.pump(done)
	if out := h.printed(); !strings.Contains(out, "still open") || !strings.Contains(out, "fake-model") {
		t.Errorf("after the answer, printed:\n%s", out)
	}
	if got := h.b.prompts; len(got) != 1 || got[0] != "hello" {
		t.Errorf("prompts = %q", got)
	}
	if h.m.running || strings.Contains(h.view(), "Working") {
		t.Errorf("still running after the answer:\n%s", h.view())
	}
	if !strings.Contains(h.view(), "── fake-model · context 1k  ·  enter send") {
		t.Errorf("no status line under the input:\n%s", h.view())
	}
}

func TestSpinnerShowsElapsedAndTokens(t *testing.T) {
	h := newHarness(t, Options{})
	h.b.block = true
	h.typeText("wait")
	done := h.startTurn(h.press("enter"))
	h.now = h.now.Add(7 * time.Second)
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventUsage, Usage: llm.Usage{OutputTokens: 1500}}})
	if v := h.view(); !strings.Contains(v, "Working… (7s · ↓ 1.5k tokens · esc to interrupt)") {
		t.Errorf("spinner line:\n%s", v)
	}
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventThinking, Text: "hmm, let me see"}})
	if v := h.view(); !strings.Contains(v, "Thinking… (7s") {
		t.Errorf("thinking spinner:\n%s", v)
	}
	f0 := h.m.frame
	h.m.update(tickMsg{h.m.turnID})
	if h.m.frame != f0+1 {
		t.Errorf("a tick did not advance the spinner")
	}
	close(h.b.release)
	h.pump(done)
}

func TestMultiLineInput(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("one")
	h.press("shift+enter")
	h.typeText("two")
	h.press("alt+enter")
	h.typeText(`three\`)
	h.press("enter") // a trailing backslash adds a line instead of sending
	h.typeText("four")
	if got := h.m.ed.String(); got != "one\ntwo\nthree\nfour" {
		t.Fatalf("input = %q", got)
	}
	if v := h.view(); !strings.Contains(v, "│ › one") || !strings.Contains(v, "│   four") {
		t.Errorf("view:\n%s", v)
	}
	h.pump(h.startTurn(h.press("enter")))
	if got := h.b.prompts; len(got) != 1 || got[0] != "one\ntwo\nthree\nfour" {
		t.Errorf("prompts = %q", got)
	}
}

func TestPasteIsOneMessage(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.update(tea.PasteMsg{Content: "first line\r\nsecond line"})
	if got := h.m.ed.String(); got != "first line\nsecond line" {
		t.Fatalf("input after paste = %q", got)
	}
	h.pump(h.startTurn(h.press("enter")))
	if got := h.b.prompts; len(got) != 1 || got[0] != "first line\nsecond line" {
		t.Errorf("prompts = %q", got)
	}
}

// TestPasteProvenance: a message records which of its parts were pasted, as they arrived; a
// paste edited since is typed text; /pin sends a pinned message.
func TestPasteProvenance(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("look: ")
	h.m.update(tea.PasteMsg{Content: "a\r\nb"})
	h.typeText(" why?")
	h.pump(h.startTurn(h.press("enter")))
	h.m.update(tea.PasteMsg{Content: "xy"})
	h.press("backspace")
	h.pump(h.startTurn(h.press("enter")))
	h.typeText("/pin always use tabs")
	h.pump(h.startTurn(h.press("enter")))
	want := []conversation.Input{
		{Parts: []conversation.Part{{Origin: conversation.Typed, Text: "look: "}, {Origin: conversation.Pasted, Text: "a\nb"}, {Origin: conversation.Typed, Text: " why?"}}},
		{Parts: []conversation.Part{{Origin: conversation.Typed, Text: "x"}}},
		{Parts: []conversation.Part{{Origin: conversation.Typed, Text: "always use tabs"}}, Pinned: true},
	}
	if diff := cmp.Diff(want, h.b.inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
}

// TestLongPasteIsOnePlaceholder: a paste over pasteMaxLines stands in the input as one line,
// the message carries it whole as a pasted part between the typed ones, and the scrollback
// shows the placeholder; a second paste gets the next number; a long single line is counted in
// characters.
func TestLongPasteIsOnePlaceholder(t *testing.T) {
	h := newHarness(t, Options{})
	var log strings.Builder
	for i := range 120 {
		fmt.Fprintf(&log, "line %d\r\n", i)
	}
	h.typeText("see ")
	h.m.update(tea.PasteMsg{Content: log.String()})
	h.typeText(" and ")
	h.m.update(tea.PasteMsg{Content: strings.Repeat("z", 3000)})
	if got := h.m.ed.String(); got != "see [Pasted text #1 +120 lines] and [Pasted text #2 3000 chars]" {
		t.Fatalf("input = %q", got)
	}
	if v := h.view(); strings.Contains(v, "line 7") {
		t.Errorf("the paste is drawn in the input:\n%s", v)
	}
	h.pump(h.startTurn(h.press("enter")))
	whole := strings.ReplaceAll(log.String(), "\r\n", "\n")
	want := []conversation.Input{{Parts: []conversation.Part{{Origin: conversation.Typed, Text: "see "}, {Origin: conversation.Pasted, Text: whole},
		{Origin: conversation.Typed, Text: " and "}, {Origin: conversation.Pasted, Text: strings.Repeat("z", 3000)}}}}
	if diff := cmp.Diff(want, h.b.inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if out := h.printed(); !strings.Contains(out, "› see [Pasted text #1 +120 lines] and [Pasted text #2 3000 chars]") || strings.Contains(out, "line 7") {
		t.Errorf("printed:\n%s", out)
	}
	// Recalled from the history, the placeholder is the paste again.
	h.pump(h.startTurn(h.press("up", "enter")))
	if n := len(h.b.inputs); n != 2 || h.b.inputs[1].Text() != h.b.inputs[0].Text() {
		t.Errorf("the recalled message is not the same: %d inputs", n)
	}
}

func TestHistoryAcrossSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h := newHarness(t, Options{History: History{Path: path, Project: "/p"}})
	for _, msg := range []string{"first", "second"} {
		h.typeText(msg)
		h.pump(h.startTurn(h.press("enter")))
	}
	// A new session of the same project recalls them, newest first; ↓ returns to the draft.
	h2 := newHarness(t, Options{History: History{Path: path, Project: "/p"}})
	h2.typeText("draft")
	h2.press("up")
	if got := h2.m.ed.String(); got != "second" {
		t.Errorf("↑ = %q, want second", got)
	}
	h2.press("up")
	h2.press("up") // past the oldest: stays
	if got := h2.m.ed.String(); got != "first" {
		t.Errorf("↑↑↑ = %q, want first", got)
	}
	h2.press("down", "down")
	if got := h2.m.ed.String(); got != "draft" {
		t.Errorf("↓↓ = %q, want the draft back", got)
	}
	// Another project's session does not see them.
	h3 := newHarness(t, Options{History: History{Path: path, Project: "/other"}})
	h3.press("up")
	if got := h3.m.ed.String(); got != "" {
		t.Errorf("another project recalled %q", got)
	}
}

func TestHistorySearch(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.hist = []Prompt{{Text: "go test ./..."}, {Text: "git status"}, {Text: "go vet ./agent"}}
	h.m.histIdx = len(h.m.hist)
	h.press("ctrl+r")
	h.typeText("go")
	if v := h.view(); !strings.Contains(v, "(reverse-i-search)`go': go vet ./agent") {
		t.Errorf("search view:\n%s", v)
	}
	h.press("ctrl+r") // the next older match
	if v := h.view(); !strings.Contains(v, "go test ./...") {
		t.Errorf("after a second ctrl+r:\n%s", v)
	}
	h.press("enter")
	if got := h.m.ed.String(); got != "go test ./..." || h.m.search != nil {
		t.Errorf("accepted %q (search open: %v)", got, h.m.search != nil)
	}
	if len(h.b.prompts) != 0 {
		t.Errorf("accepting a search sent %q", h.b.prompts)
	}
}

func TestEscInterrupts(t *testing.T) {
	h := newHarness(t, Options{})
	h.b.block = true
	h.typeText("long one")
	done := h.startTurn(h.press("enter"))
	h.press("esc")
	h.pump(done)
	if !errors.Is(h.b.ctxErr, context.Canceled) {
		t.Errorf("the answer's context was not cancelled: %v", h.b.ctxErr)
	}
	if out := h.printed(); !strings.Contains(out, "Interrupted") {
		t.Errorf("printed:\n%s", out)
	}
}

func TestCtrlCClearsThenExits(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("some text")
	if cmd := h.press("ctrl+c"); cmd == nil {
		t.Fatal("the first Ctrl-C should schedule clearing its notice")
	}
	if h.m.ed.String() != "" || h.m.quitting {
		t.Fatalf("first Ctrl-C: input %q, quitting %v", h.m.ed.String(), h.m.quitting)
	}
	if v := h.view(); !strings.Contains(v, "Press Ctrl-C again to exit") {
		t.Errorf("view:\n%s", v)
	}
	// Too late: a Ctrl-C 3 s later only arms again.
	h.now = h.now.Add(3 * time.Second)
	h.press("ctrl+c")
	if h.m.quitting {
		t.Fatal("a Ctrl-C 3 s after the first quit")
	}
	// The notice goes when its window ends.
	h.now = h.now.Add(3 * time.Second)
	h.m.update(clearNoticeMsg{})
	if strings.Contains(h.view(), "Press Ctrl-C") {
		t.Errorf("the notice outlived its window")
	}
	h.press("ctrl+c")
	h.now = h.now.Add(time.Second)
	h.press("ctrl+c")
	if !h.m.quitting {
		t.Fatal("a second Ctrl-C within 2 s did not quit")
	}
}

func TestCtrlDExitsOnEmptyInput(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("ab")
	h.press("left", "ctrl+d")
	if h.m.quitting || h.m.ed.String() != "a" {
		t.Fatalf("Ctrl-D on text: quitting %v, input %q (want the character deleted)", h.m.quitting, h.m.ed.String())
	}
	h.press("backspace", "ctrl+d")
	if !h.m.quitting {
		t.Fatal("Ctrl-D on an empty input did not quit")
	}
}

// ask opens the permission dialog as the agent's Approver would, and returns its reply channel.
func (h *harness) ask(summary, always string) chan Reply {
	reply := make(chan Reply, 1)
	h.m.update(askMsg{req: permission.Request{Tool: "Bash", Summary: summary, Always: always}, reply: reply})
	return reply
}

func TestPermissionDialog(t *testing.T) {
	for _, tt := range []struct {
		keys []string
		want Reply
	}{
		{[]string{"y"}, Reply{Answer: Yes}},
		{[]string{"a"}, Reply{Answer: Always}},
		{[]string{"esc"}, Reply{Answer: No}},
		{[]string{"ctrl+c"}, Reply{Answer: No}},
		{[]string{"n", "u", "s", "e", "space", "m", "a", "k", "e", "enter"}, Reply{Answer: NoInstead, Feedback: "use make"}},
		{[]string{"n", "x", "esc"}, Reply{Answer: No}},
		{[]string{"n", "enter"}, Reply{Answer: No}}, // no text: a plain no
	} {
		t.Run(strings.Join(tt.keys, ","), func(t *testing.T) {
			h := newHarness(t, Options{})
			h.b.block = true
			h.typeText("run it")
			done := h.startTurn(h.press("enter"))
			reply := h.ask(`the command "echo one"`, "Bash(echo:*)")
			v := h.view()
			for _, want := range []string{`Allow the command "echo one"?`, "y  Yes", "a  Yes, and don't ask again for Bash(echo:*)", "n  No, and tell the model what to do instead", "esc No"} {
				if !strings.Contains(v, want) {
					t.Errorf("dialog lacks %q:\n%s", want, v)
				}
			}
			h.press("x") // not an answer
			select {
			case a := <-reply:
				t.Fatalf("x answered %v", a)
			default:
			}
			h.press(tt.keys...)
			if got := <-reply; got != tt.want {
				t.Errorf("%v answered %+v, want %+v", tt.keys, got, tt.want)
			}
			if strings.Contains(h.view(), "Allow the command") {
				t.Errorf("the dialog stayed open")
			}
			if h.m.quitting || !h.m.running {
				t.Errorf("the answer did not go on after the dialog (quitting %v, running %v)", h.m.quitting, h.m.running)
			}
			close(h.b.release)
			h.pump(done)
		})
	}
}

func TestPermissionFeedbackIsTypedInTheDialog(t *testing.T) {
	h := newHarness(t, Options{})
	reply := h.ask(`the command "rm -rf build"`, "")
	if v := h.view(); strings.Contains(v, "don't ask again") {
		t.Errorf("a request without a rule offers one:\n%s", v)
	}
	h.press("a") // no rule offered: not an answer
	h.press("n")
	h.m.update(tea.PasteMsg{Content: "run make clean"})
	if v := h.view(); !strings.Contains(v, "What should the model do instead?") || !strings.Contains(v, "› run make clean") {
		t.Errorf("feedback view:\n%s", v)
	}
	h.press("enter")
	if got := <-reply; got != (Reply{Answer: NoInstead, Feedback: "run make clean"}) {
		t.Errorf("reply %+v", got)
	}
	if out := h.printed(); !strings.Contains(out, `? the command "rm -rf build" → no: run make clean`) {
		t.Errorf("printed:\n%s", out)
	}
}

func TestToolCallLineAndPreview(t *testing.T) {
	h := newHarness(t, Options{Cwd: "/src/acme"})
	call := &agent.ToolCall{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventToolStart, Tool: call}})
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventToolEnd, Tool: call, Output: "ok a\nok b\nok c\nok d\nok e\nok f\n"}})
	out := h.printed()
	for _, want := range []string{"⏺ Bash go test ./...", "⎿  ok a", "ok d", "… +2 lines"} {
		if !strings.Contains(out, want) {
			t.Errorf("printed lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ok e") {
		t.Errorf("the preview is not collapsed:\n%s", out)
	}
	edit := &agent.ToolCall{ID: "t2", Name: "Edit", Input: json.RawMessage(`{"file_path":"/src/acme/main.go","old_string":"a := 1\nb := 2","new_string":"a := 1\nb := 3"}`)}
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventToolEnd, Tool: edit, Output: "edited"}})
	out = h.printed()
	for _, want := range []string{"⏺ Edit main.go", " a := 1", "-b := 2", "+b := 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("printed lacks %q:\n%s", want, out)
		}
	}
}

func TestResumePicker(t *testing.T) {
	h := newHarness(t, Options{})
	when := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	h.b.sessions = []Session{
		{ID: "01aaaa-1", Short: "01aaaa-1", Title: "fix the login bug", When: when},
		{ID: "01aaaa-2", Short: "01aaaa-2", Title: "写一个测试", When: when},
		{ID: "01bbbb-3", Short: "01bbbb", Title: "refactor config", When: when},
	}
	h.b.turns = []Turn{{Role: "user", Text: "write a test"}, {Role: "assistant", Text: "Done: **one** test."}}
	h.typeText("/resume")
	cmd := h.press("enter")
	h.m.update(cmd())
	v := h.view()
	for _, want := range []string{"Resume a session", "❯ 01aaaa-1  ", "fix the login bug", "写一个测试", "01bbbb    "} {
		if !strings.Contains(v, want) {
			t.Errorf("picker lacks %q:\n%s", want, v)
		}
	}
	h.typeText("测试")
	if v := h.view(); strings.Contains(v, "login") || !strings.Contains(v, "❯ 01aaaa-2") {
		t.Errorf("search did not filter:\n%s", v)
	}
	h.press("backspace", "backspace", "down", "down")
	cmd = h.press("enter")
	h.m.update(cmd())
	if h.b.resumed != "01bbbb-3" {
		t.Errorf("resumed %q, want the full id 01bbbb-3", h.b.resumed)
	}
	out := h.printed()
	for _, want := range []string{"Resumed session 01bbbb-3.", "› write a test", "Done: one test."} {
		if !strings.Contains(out, want) {
			t.Errorf("printed lacks %q:\n%s", want, out)
		}
	}
}

func TestSlashCommandsGoToTheBackend(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("/cost")
	cmd := h.press("enter")
	h.m.update(cmd())
	if out := h.printed(); !strings.Contains(out, "ran /cost") {
		t.Errorf("printed:\n%s", out)
	}
	h.typeText("/bye")
	cmd = h.press("enter")
	if h.m.update(cmd()) == nil || !h.m.quitting {
		t.Error("a command that quits did not quit the UI")
	}
}

func TestShellMemoryAndCompletionHooks(t *testing.T) {
	var ran, saved string
	h := newHarness(t, Options{Hooks: Hooks{
		Shell:       func(ctx context.Context, c string) (string, error) { ran = c; return "file.txt\n", nil },
		MemoryTypes: []MemoryType{{"u", "user", "who you are"}, {"p", "project", "facts about this project"}},
		Remember: func(ctx context.Context, typ, text string) (string, error) {
			saved = typ + ": " + text
			return "saved to project_notes.md", nil
		},
		Complete: func(prefix string) []string {
			if prefix == "int" {
				return []string{"internal/"}
			}
			return []string{"docs/chat.md", "docs/design.md"}
		},
	}})
	h.typeText("!ls")
	cmd := h.press("enter")
	h.m.update(cmd())
	if out := h.printed(); ran != "ls" || !strings.Contains(out, "⎿  file.txt") {
		t.Errorf("shell ran %q, printed:\n%s", ran, out)
	}
	h.typeText("# the API runs on port 9090")
	h.press("enter")
	if v := h.view(); !strings.Contains(v, "Save to memory as which type?") || !strings.Contains(v, "p  project  facts about this project") {
		t.Errorf("no type question:\n%s", v)
	}
	if h.press("3") != nil || h.m.memText == "" {
		t.Fatal("a key that names no type answered")
	}
	cmd = h.press("p")
	h.m.update(cmd())
	if saved != "project: the API runs on port 9090" || !strings.Contains(h.printed(), "saved to project_notes.md") {
		t.Errorf("saved %q", saved)
	}
	h.typeText("look at @int")
	h.press("tab")
	if got := h.m.ed.String(); got != "look at @internal/" {
		t.Errorf("completion = %q", got)
	}
	h.m.ed.Set("see @d")
	h.press("tab")
	if got := h.m.ed.String(); got != "see @docs/" || !strings.Contains(h.view(), "docs/chat.md  docs/design.md") {
		t.Errorf("completion = %q, view:\n%s", got, h.view())
	}
}

func TestHooksMissingSaySo(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("!ls")
	h.press("enter")
	if out := h.printed(); !strings.Contains(out, "not available") {
		t.Errorf("printed:\n%s", out)
	}
}

func TestCJKInputWraps(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.update(tea.WindowSizeMsg{Width: 30})
	h.typeText(strings.Repeat("中", 20)) // 40 columns: does not fit in one line of the box
	for _, l := range strings.Split(h.view(), "\n") {
		if w := displayWidth(l); w > 30 {
			t.Errorf("line %q is %d columns wide in a 30-column terminal", l, w)
		}
	}
}

func displayWidth(s string) int { return ansi.StringWidth(s) }

func TestRunWaitsForTheAnswerToEnd(t *testing.T) {
	h := newHarness(t, Options{})
	h.b.block = true
	h.typeText("long")
	done := h.startTurn(h.press("enter"))
	go func() {
		for range h.sent {
		}
	}()
	for h.b.running() == 0 {
		time.Sleep(time.Millisecond)
	}
	// What UI.Run does when the program ends: cancel the answer, then wait for it.
	h.m.stopTurn()
	h.m.closeJobs()
	h.b.mu.Lock()
	err := h.b.ctxErr // set just before Run returns
	h.b.mu.Unlock()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("closeJobs returned before the answer ended (its error: %v)", err)
	}
	h.m.update(<-done)
	// A command started after the close does not touch the session.
	h.typeText("/cost")
	if msg := h.press("enter")(); msg != nil || len(h.b.commands) != 0 {
		t.Errorf("a command ran after the close: %v %q", msg, h.b.commands)
	}
}

func TestInitAndMemoryEditor(t *testing.T) {
	exists := true
	var edited string
	h := newHarness(t, Options{Hooks: Hooks{
		Init: func() (string, bool) { return "Write a CLAUDE.md for this project.", exists },
		EditMemory: func(arg string) (*exec.Cmd, error) {
			edited = arg
			return exec.Command("true"), nil
		},
	}})
	h.typeText("/init")
	if cmd := h.press("enter"); cmd != nil {
		t.Fatal("/init over an existing CLAUDE.md did not ask first")
	}
	if v := h.view(); !strings.Contains(v, "This project has a CLAUDE.md. Let the model revise it?") {
		t.Errorf("view:\n%s", v)
	}
	h.press("n")
	if out := h.printed(); !strings.Contains(out, "CLAUDE.md left as it is.") || len(h.b.prompts) != 0 {
		t.Errorf("no: printed %q, prompts %q", out, h.b.prompts)
	}
	h.typeText("/init")
	h.press("enter")
	h.pump(h.startTurn(h.press("y")))
	if len(h.b.prompts) != 1 || h.b.prompts[0] != "Write a CLAUDE.md for this project." {
		t.Errorf("prompts %q", h.b.prompts)
	}
	exists = false
	h.typeText("/init")
	h.pump(h.startTurn(h.press("enter")))
	if len(h.b.prompts) != 2 {
		t.Errorf("/init without a CLAUDE.md asked first: %q", h.b.prompts)
	}
	h.typeText("/memory 2")
	if cmd := h.press("enter"); cmd == nil || edited != "2" {
		t.Errorf("/memory 2 opened %q", edited)
	}
	h.typeText("/memory")
	h.m.update(h.press("enter")())
	if got := h.b.commands; len(got) != 1 || got[0] != "/memory" {
		t.Errorf("/memory without a number should list through the backend: %q", got)
	}
}

func TestLiveStreamFitsTheScreen(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.update(tea.WindowSizeMsg{Width: 80, Height: 30})
	h.m.running = true
	h.m.stream = "```go\n" + strings.Repeat("x := 1\n", 100) // an open code block
	v := h.view()
	if n := strings.Count(v, "\n") + 1; n > h.m.frameCap() || h.m.frameCap() >= 30 {
		t.Errorf("the live part is %d lines on a 30-line screen (cap %d)", n, h.m.frameCap())
	}
	if !strings.Contains(v, "more lines above") || !strings.Contains(v, "╰") {
		t.Errorf("the cut is not said, or the input box is gone:\n%s", v)
	}
}

// TestPrintsAreCutToTheRoomAboveTheFrame: a print taller than the room between the live frame
// and the top of the screen is sent in pieces, each line narrower than the screen, in order.
func TestPrintsAreCutToTheRoomAboveTheFrame(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.update(tea.WindowSizeMsg{Width: 40, Height: 24})
	var want []string
	for i := range 100 {
		want = append(want, fmt.Sprintf("line %03d %s", i, strings.Repeat("x", i%50)))
	}
	h.m.print(strings.Join(want, "\n"))
	var got []string
	for range 200 {
		if h.m.flush() == nil {
			break
		}
		piece := h.m.lastPrint
		if n := strings.Count(piece, "\n") + 1; n > h.m.printRoom() || n+h.m.frameCap() >= 24 {
			t.Fatalf("a print of %d lines with a frame of up to %d on a 24-line screen", n, h.m.frameCap())
		}
		for _, l := range strings.Split(piece, "\n") {
			if w := displayWidth(l); w >= 40 {
				t.Errorf("printed line %q is %d columns on a 40-column screen", l, w)
			}
		}
		got = append(got, piece)
		h.m.update(printedMsg{})
	}
	if joined := strings.ReplaceAll(strings.Join(got, "\n"), "\n", ""); joined != strings.Join(want, "") {
		t.Errorf("the pieces do not add up to the print:\n%s", strings.Join(got, "\n"))
	}
}

func TestAlwaysTextFromTheCaller(t *testing.T) {
	h := newHarness(t, Options{AlwaysText: func(r permission.Request) string {
		return "don't ask again for " + r.Always + " in this project (saved in .claude/settings.local.json)"
	}})
	h.m.update(tea.WindowSizeMsg{Width: 160, Height: 50})
	reply := h.ask(`the command "echo one"`, "Bash(echo:*)")
	if v := h.view(); !strings.Contains(v, "a  Yes, and don't ask again for Bash(echo:*) in this project (saved in .claude/settings.local.json)") {
		t.Errorf("dialog:\n%s", v)
	}
	h.press("a")
	<-reply
	if out := h.printed(); !strings.Contains(out, "→ yes, and don't ask again for Bash(echo:*) in this project") {
		t.Errorf("printed:\n%s", out)
	}
}

func TestAttachmentsWarningsAndResumedTurns(t *testing.T) {
	h := newHarness(t, Options{Resumed: []Turn{{Role: "user", Text: "earlier question"}, {Role: "assistant", Text: "earlier **answer**"}, {Role: "warning", Text: "a tool result was lost"}}})
	h.m.start()
	out := h.printed()
	for _, want := range []string{"› earlier question", "earlier answer", "warning: a tool result was lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("start lacks %q:\n%s", want, out)
		}
	}
	h.m.update(eventMsg{e: agent.Event{Kind: EventAttached, Text: "docs/chat.md"}})
	h.m.update(eventMsg{e: agent.Event{Kind: EventWarning, Text: "transcript: disk full"}})
	if out := h.printed(); !strings.Contains(out, "attached docs/chat.md") || !strings.Contains(out, "warning: transcript: disk full") {
		t.Errorf("printed:\n%s", out)
	}
}
