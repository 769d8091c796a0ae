package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/chatui"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/mcpclient"
	"github.com/strata-mem/strata/permission"
)

// useUI reports whether chat gets the terminal UI: standard input and output are both a
// terminal and TERM names one that can draw (not "dumb", not unset). Everything else — a
// pipe, a file, TERM=dumb — keeps the line mode.
func (c *chat) useUI() bool {
	in, ok1 := c.app.In.(*os.File)
	out, ok2 := c.app.Out.(*os.File)
	t := c.app.Env.Var("TERM")
	return ok1 && ok2 && t != "" && t != "dumb" && term.IsTerminal(in.Fd()) && term.IsTerminal(out.Fd())
}

// runUI opens the session inside the terminal UI, runs it, and prints the exit summary after
// the session's background work is done (so its tokens are counted).
func (c *chat) runUI(ctx context.Context) error {
	b := &chatBackend{c: c}
	var notes strings.Builder // what the opening printed
	c.ui = chatui.New(chatui.Options{
		Backend:    b,
		AlwaysText: AlwaysText,
		In:         c.app.In,
		Out:        c.out,
		Cwd:        c.dir,
		History:    chatui.History{Path: filepath.Join(c.app.Env.Home, "history.jsonl"), Project: c.dir},
		Prompt:     c.o.prompt,
		Commands:   chatCommands,
		Open:       func(askCtx context.Context) (chatui.Opened, error) { return c.openUI(ctx, askCtx, b, &notes) },
	})
	err := c.ui.Run(ctx)
	if c.a == nil { // not opened: say why once the terminal is the shell's again
		io.WriteString(c.app.Err, notes.String())
	} else {
		c.close(ctx)
		fmt.Fprintln(c.out, ExitSummary(c.a))
	}
	c.ui = nil
	return err
}

// openUI opens the session while the UI shows: a project's MCP server never asked about is
// asked about in the UI's dialog (askCtx ends when the user quits first), and what the
// opening prints goes to notes: shown in the UI, or after it when the session did not open.
func (c *chat) openUI(ctx, askCtx context.Context, b *chatBackend, notes *strings.Builder) (chatui.Opened, error) {
	out, errOut := c.out, c.app.Err
	c.out, c.app.Err = notes, notes
	o := c.o
	o.askMCP = func(s mcpclient.Server) (bool, bool) { return c.askServerUI(askCtx, s) }
	err := c.open(ctx, o)
	c.out, c.app.Err = out, errOut
	if err != nil {
		return chatui.Opened{}, err
	}
	op := chatui.Opened{
		Header: fmt.Sprintf("strata chat · %s · session %s · permissions %s", c.cfg.Model, c.a.SessionID(), c.a.PermissionMode()),
		Mode:   string(c.a.PermissionMode()),
		Hooks:  c.uiHooks(),
	}
	if c.o.resume != "" || c.o.cont {
		op.Header += fmt.Sprintf("\nResumed: %d messages.", len(c.a.History()))
		op.Resumed = b.turns()
	}
	for _, l := range strings.Split(strings.TrimSpace(notes.String()), "\n") {
		if l = strings.TrimPrefix(l, "strata: "); l != "" {
			op.Notes = append(op.Notes, l)
		}
	}
	return op, nil
}

// errNoAnswer is what the UI shows when a turn ends without text, as the line mode's
// "[no answer]".
var errNoAnswer = errors.New("the model gave no answer")

// approveUI asks through the UI's permission dialog: y allows once, a also applies the rule
// the dialog showed (r.Always), n declines with what the model should do instead, Esc
// declines.
func (c *chat) approveUI(ctx context.Context, r permission.Request) (permission.Answer, error) {
	reply, err := c.ui.Ask(ctx, r)
	if err != nil {
		return permission.Answer{}, err
	}
	switch reply.Answer {
	case chatui.Yes:
		return permission.Answer{Allow: true}, nil
	case chatui.Always:
		return permission.Answer{Allow: true, Always: true}, nil
	case chatui.NoInstead:
		return permission.Answer{Feedback: reply.Feedback}, nil
	}
	return permission.Answer{}, nil
}

// chatBackend runs the UI's requests on the chat session. mu keeps a command from racing the
// status line.
type chatBackend struct {
	c  *chat
	mu sync.Mutex
}

func (b *chatBackend) Run(ctx context.Context, in conversation.Input, sink agent.Sink) error {
	c := b.c
	msg, attached, err := AttachMentions(ctx, c.a, in)
	if err != nil {
		return fmt.Errorf("%w; nothing was sent", err)
	}
	for _, p := range attached {
		sink(agent.Event{Kind: chatui.EventAttached, Text: p})
	}
	res, err := c.a.RunInput(ctx, msg, func(e agent.Event) {
		if e.Kind == agent.EventUsage {
			b.mu.Lock()
			c.lastCtx = e.Usage.PromptTokens() + e.Usage.OutputTokens
			b.mu.Unlock()
		}
		sink(e)
	})
	b.warnings(sink)
	if err == nil && res.Text == "" {
		return errNoAnswer
	}
	return err
}

// warnings reports the agent's warnings not yet shown (printWarnings' count, shared with the
// line mode).
func (b *chatBackend) warnings(sink agent.Sink) {
	ws := b.c.a.Warnings()
	for _, w := range ws[min(b.c.warned, len(ws)):] {
		sink(agent.Event{Kind: chatui.EventWarning, Text: w})
	}
	b.c.warned = max(b.c.warned, len(ws))
}

func (b *chatBackend) Command(ctx context.Context, line string, w io.Writer) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.c
	out := c.out
	c.out = w
	defer func() { c.out = out }()
	return c.slash(ctx, line)
}

func (b *chatBackend) Status() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c.statusLine()
}

func (b *chatBackend) Sessions(ctx context.Context) ([]chatui.Session, error) {
	choices, err := ResumeChoices(ctx, b.c.app.Env, b.c.a.Cwd(), 0)
	out := make([]chatui.Session, 0, len(choices))
	for _, ch := range choices {
		if ch.ID == b.c.a.SessionID() {
			continue // the session the chat is in: nothing to switch to
		}
		out = append(out, chatui.Session{ID: ch.ID, Short: ch.Prefix, Title: ch.Title, When: ch.Time, Messages: ch.Messages})
	}
	return out, err
}

func (b *chatBackend) Resume(ctx context.Context, id string) ([]chatui.Turn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.c.resumeTo(ctx, id); err != nil {
		return nil, err
	}
	b.c.warned = 0
	return b.turns(), nil
}

// turns is what the UI shows of the session's conversation after a resume: the last
// recentTurns turns as RecentTurns picks them for the line mode, each message's text (tool
// results and injected entries left out); then the agent's warnings.
func (b *chatBackend) turns() []chatui.Turn {
	h := b.c.a.History()
	var out []chatui.Turn
	for _, e := range h[recentStart(h, recentTurns):] {
		switch {
		case isUserTurn(e):
			out = append(out, chatui.Turn{Role: "user", Text: termtext.Clean(userText(e.Message))})
		case !e.IsMeta && e.Message.Role == conversation.Assistant:
			var text []string
			for _, bl := range e.Message.Content {
				if bl.Type == conversation.Text && strings.TrimSpace(bl.Text) != "" {
					text = append(text, bl.Text)
				}
			}
			if len(text) > 0 {
				out = append(out, chatui.Turn{Role: "assistant", Text: termtext.Clean(strings.Join(text, "\n"))})
			}
		}
	}
	ws := b.c.a.Warnings()
	for _, w := range ws[min(b.c.warned, len(ws)):] {
		out = append(out, chatui.Turn{Role: "warning", Text: termtext.Clean(w)})
	}
	b.c.warned = max(b.c.warned, len(ws))
	return out
}
