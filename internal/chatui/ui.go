package chatui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/permission"
)

// Backend is what the UI needs of a chat session. internal/cli implements it on an
// agent.Agent, so that the line mode and the UI run the same commands.
type Backend interface {
	// Run runs one message, its parts marked with where they came from (typed or pasted) and
	// pinned by /pin. It reports events through sink, in order, on its own goroutine, and
	// returns when the answer is complete or ctx is cancelled.
	Run(ctx context.Context, in conversation.Input, sink agent.Sink) error
	// Command runs a slash command line ("/cost", "/model x", …) and writes what it prints
	// to w. quit ends the chat (/exit).
	Command(ctx context.Context, line string, w io.Writer) (quit bool, err error)
	// Status is the status line: model, context used, session, cost.
	Status() string
	// Sessions lists the sessions /resume offers, newest first.
	Sessions(ctx context.Context) ([]Session, error)
	// Resume switches to a session (by its full id) and returns its conversation, to show.
	Resume(ctx context.Context, id string) ([]Turn, error)
}

// Session is one choice of the /resume picker.
type Session struct {
	// ID is the full session id; Short is the shortest prefix no other session shares.
	ID, Short string
	Title     string
	When      time.Time
	// Messages counts the session's messages (0: not known).
	Messages int
}

// Turn is one message of a resumed conversation, shown after the switch.
type Turn struct {
	// Role is "user", "assistant" or "warning" (something the session could not restore).
	Role string
	Text string
}

// Hooks are the optional commands the UI offers when the caller provides them; a nil hook
// makes its feature say it is not available.
type Hooks struct {
	// Shell runs a `!command` as the user's own (only deny rules refuse it) and returns its
	// output, which the UI shows and the model sees with the next message.
	Shell func(ctx context.Context, command string) (string, error)
	// MemoryTypes are the types a `#text` memory can be saved as, each picked by its key;
	// Remember saves it and says where it went.
	MemoryTypes []MemoryType
	Remember    func(ctx context.Context, typ, text string) (string, error)
	// Complete lists the paths that complete an @mention's prefix (without the @).
	Complete func(prefix string) []string
	// Files lists at most max project files that match an @mention's text fuzzily, best
	// first, for the @ picker (nil: Tab completes with Complete instead).
	Files func(query string, max int) []string
	// EditMemory returns the editor command that /memory ARG opens ($VISUAL or $EDITOR on a
	// memory or instruction file); the UI hands it the terminal while it runs.
	EditMemory func(arg string) (*exec.Cmd, error)
	// CycleMode switches the session to the next permission mode (Shift-Tab) and returns its
	// name.
	CycleMode func() string
	// Init returns the message /init sends (the model writes the project's CLAUDE.md), and
	// whether the file exists already, in which case the UI asks first.
	Init func() (prompt string, exists bool)
}

// Command is a slash command as the `/` menu shows it: "/model", "[NAME]", what it does.
type Command struct {
	Name, Args, Help string
}

// MemoryType is one choice of the `#` question.
type MemoryType struct {
	Key, Name, Help string
}

// Answer is the user's answer to a permission question.
type Answer int

// The answers of the permission dialog.
const (
	// No: declined; the model goes on, told that the user said no (Esc, Ctrl-C).
	No Answer = iota
	// Yes: allowed once (y).
	Yes
	// Always: allowed, and the shown rule is allowed from now on (a).
	Always
	// NoInstead: declined, with what the model should do instead (n, then the text).
	NoInstead
)

// Reply is the permission dialog's answer; Feedback is the text of a NoInstead.
type Reply struct {
	Answer   Answer
	Feedback string
}

// Event kinds a Backend's Run may report besides the agent's own.
const (
	// EventAttached: a file an @mention attached to the message (Text: its path).
	EventAttached agent.EventKind = "chatui.attached"
	// EventWarning: a problem the session reported that did not stop it (Text).
	EventWarning agent.EventKind = "chatui.warning"
)

// Options configure the UI.
type Options struct {
	Backend Backend
	Hooks   Hooks
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
	// Cwd makes tool lines show paths relative to it, and is where Write diffs read the
	// file's old content.
	Cwd string
	// History keeps the prompts for ↑/↓ and Ctrl-R.
	History History
	// Header is printed first (model, session, permission mode); Resumed, the end of a
	// resumed conversation, after it.
	Header  string
	Resumed []Turn
	// Mode is the session's permission mode at start, shown under the input unless "ask".
	Mode string
	// Prompt, when set, is sent as the first message.
	Prompt string
	// Commands are the slash commands the `/` menu offers.
	Commands []Command
	// AlwaysText says what the dialog's "a" does for a request ("don't ask again for
	// Bash(echo:*) in this project …"); nil: "don't ask again for RULE".
	AlwaysText func(permission.Request) string
	// Env is the environment the terminal is described by (TERM, COLORTERM, …).
	Env []string
	// Open, when set, opens the session once the UI shows, so that what it asks (Confirm)
	// is asked in the UI; its Opened replaces Header, Resumed, Mode and Hooks. Messages typed
	// meanwhile wait for it; an error ends the UI, and Run returns it.
	Open func(ctx context.Context) (Opened, error)
}

// Opened is what Options.Open gives the UI once the session is open.
type Opened struct {
	Header  string
	Resumed []Turn
	Mode    string
	Hooks   Hooks
	// Notes are warnings the opening had, shown after the header.
	Notes []string
}

// UI is the interactive chat on a terminal. Run shows it; Ask is the permission prompt the
// agent's Approver calls from the answer's goroutine.
type UI struct {
	o  Options
	mu sync.Mutex
	p  *tea.Program
	m  *model
}

// New prepares a UI; nothing is drawn before Run.
func New(o Options) *UI {
	u := &UI{o: o}
	u.m = newModel(o, u.send)
	return u
}

func (u *UI) send(msg tea.Msg) {
	u.mu.Lock()
	p := u.p
	u.mu.Unlock()
	if p != nil {
		p.Send(msg)
	}
}

// Run shows the UI until the user quits (Ctrl-D on an empty input, Ctrl-C twice within 2 s,
// /exit) or ctx ends. Printed output stays in the terminal's scrollback.
func (u *UI) Run(ctx context.Context) error {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if u.o.In != nil {
		opts = append(opts, tea.WithInput(u.o.In))
	}
	if u.o.Out != nil {
		opts = append(opts, tea.WithOutput(u.o.Out))
	}
	if u.o.Env != nil {
		opts = append(opts, tea.WithEnvironment(u.o.Env))
	}
	p := tea.NewProgram(u.m, opts...)
	u.mu.Lock()
	u.p = p
	u.mu.Unlock()
	_, err := p.Run()
	u.mu.Lock()
	u.p = nil
	u.mu.Unlock()
	u.m.stopTurn()
	u.m.closeJobs()
	if rest := u.m.drain(); rest != "" && u.o.Out != nil {
		fmt.Fprintln(u.o.Out, rest)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = u.m.openErr
	}
	return err
}

// Confirm asks a yes/no question in the UI's dialog (question in bold, detail under it) and
// waits for the answer; answered is false when ctx ended first (the user quit).
func (u *UI) Confirm(ctx context.Context, question string, detail []string) (yes, answered bool) {
	reply := make(chan bool, 1)
	u.send(confirmMsg{question: question, detail: detail, reply: reply})
	select {
	case yes := <-reply:
		return yes, true
	case <-ctx.Done():
		return false, false
	}
}

// Ask shows the permission dialog for req and waits for one key (and, after n, the text of
// what to do instead). It returns No when ctx ends.
func (u *UI) Ask(ctx context.Context, req permission.Request) (Reply, error) {
	reply := make(chan Reply, 1)
	u.send(askMsg{req: req, reply: reply, diff: askDiff(u.o.Cwd, req)})
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		u.send(askDoneMsg{})
		return Reply{Answer: No}, ctx.Err()
	}
}
