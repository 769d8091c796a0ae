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
	"github.com/strata-mem/strata/transcript"
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

// runUI runs the session in the terminal UI and prints the exit summary after the session's
// background work is done (so its tokens are counted).
func (c *chat) runUI(ctx context.Context) error {
	header := fmt.Sprintf("strata chat · %s · session %s · permissions %s", c.cfg.Model, c.a.SessionID(), c.a.PermissionMode())
	if c.o.resume != "" || c.o.cont {
		header += fmt.Sprintf("\nResumed: %d messages.", len(c.a.History()))
	}
	b := &chatBackend{c: c}
	c.ui = chatui.New(chatui.Options{
		Backend: b,
		In:      c.app.In,
		Out:     c.out,
		Cwd:     c.dir,
		History: chatui.History{Path: filepath.Join(c.app.Env.Home, "history.jsonl"), Project: c.dir},
		Header:  header,
	})
	err := c.ui.Run(ctx)
	c.close(ctx)
	c.ui = nil
	fmt.Fprintln(c.out, c.summary())
	return err
}

// errNoAnswer is what the UI shows when a turn ends without text, as the line mode's
// "[no answer]".
var errNoAnswer = errors.New("the model gave no answer")

// summary is what the UI prints on exit: the session, its tokens (background work included)
// and how to come back to it.
func (c *chat) summary() string {
	u := c.a.Usage()
	return fmt.Sprintf("Session %s · %s tokens in, %s out\nResume with: strata chat --resume %s",
		c.a.SessionID(), kTokens(u.PromptTokens()), kTokens(u.OutputTokens), c.a.SessionID())
}

// approveUI asks through the UI's permission dialog: y allows once, a also allows the shown
// rule from now on, n and Esc decline.
func (c *chat) approveUI(ctx context.Context, r agent.PermissionRequest) (bool, error) {
	reply, err := c.ui.Ask(ctx, r)
	if err != nil {
		return false, err
	}
	switch reply.Answer {
	case chatui.Yes:
		return true, nil
	case chatui.Always:
		if err := c.a.AllowPattern(r.Suggest); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// chatBackend runs the UI's requests on the chat session. mu keeps a command from racing the
// status line.
type chatBackend struct {
	c  *chat
	mu sync.Mutex
}

func (b *chatBackend) Run(ctx context.Context, prompt string, sink agent.Sink) error {
	c := b.c
	res, err := c.a.Run(ctx, prompt, func(e agent.Event) {
		if e.Kind == agent.EventUsage {
			b.mu.Lock()
			c.lastCtx = e.Usage.PromptTokens() + e.Usage.OutputTokens
			b.mu.Unlock()
		}
		sink(e)
	})
	if err == nil && res.Text == "" {
		return errNoAnswer
	}
	return err
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
	c := b.c
	infos, err := transcript.List(ctx, transcript.ProjectDir(c.app.Env, c.a.Cwd()), transcript.ListOptions{})
	var out []chatui.Session
	for _, in := range infos {
		out = append(out, chatui.Session{ID: in.ID, Short: shortID(in.ID), Title: firstLine(in.Label(), 200), When: in.LastActivity})
	}
	return out, err
}

func (b *chatBackend) Resume(ctx context.Context, id string) ([]chatui.Turn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.c.resumeTo(ctx, id); err != nil {
		return nil, err
	}
	return conversationTurns(b.c.a.History()), nil
}

// conversationTurns is what a resumed conversation shows: the user's and the model's text,
// without injected entries and tool results.
func conversationTurns(h []conversation.Entry) []chatui.Turn {
	var out []chatui.Turn
	for _, e := range h {
		if e.IsMeta {
			continue
		}
		var text []string
		for _, bl := range e.Message.Content {
			if bl.Type == conversation.Text && strings.TrimSpace(bl.Text) != "" {
				text = append(text, bl.Text)
			}
		}
		if len(text) > 0 {
			out = append(out, chatui.Turn{Role: string(e.Message.Role), Text: termtext.Clean(strings.Join(text, "\n"))})
		}
	}
	return out
}
