package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/chatui"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
)

// newChatCmd builds `strata chat`; runF (nil: runChat) runs it with the parsed flags.
func newChatCmd(app *App, runF func(ctx context.Context, app *App, o runOptions) error) *cobra.Command {
	if runF == nil {
		runF = runChat
	}
	var o runOptions
	c := &cobra.Command{
		Use:   `chat ["PROMPT"]`,
		Short: "Talk with the agent interactively, with every memory layer",
		Long: `Talk with the agent in the terminal. Its answers stream as they arrive; tool calls are shown as
they run. File edits and shell commands ask for a yes (y), a no (n) or "don't ask again" (a:
the rule shown; a command's prefix rule is saved in the project's .claude/settings.local.json),
unless --permission-mode or allow patterns say otherwise. Ctrl-C stops the current answer;
Ctrl-D (or /exit) quits.

On a terminal it is an inline terminal UI: rendered markdown, a spinner, tool calls with their
output and diffs, a multi-line input (Shift-Enter, Alt-Enter or a trailing \ for a new line),
history (Up, Ctrl-R), a permission dialog answered with one key, Ctrl-O to see a tool's whole
output (or a paste's before it is sent), Esc to interrupt, Ctrl-C twice to quit. In a pipe or with TERM=dumb it reads lines and writes text, nothing more. After each
answer a status line shows the model, the context used and the session id.

Slash commands: /help, /context, /memory [N], /init, /model [NAME], /todos, /cost, /resume [ID],
/clear, /compact, /pin TEXT, /exit. !COMMAND runs a shell command and adds it and its output to the
conversation; #TEXT saves a memory; @PATH in a message attaches the file.

PROMPT, when given, is the first message. As with Claude Code, strata "PROMPT" is the same as
strata chat "PROMPT", and strata -p "PROMPT" the same as strata run "PROMPT".`,
		Example: `  strata chat
  strata "what does this repository do?"
  strata chat --continue
  strata chat --resume 01a22b68 --model claude-opus-4-1
  strata chat --permission-mode accept-edits --allow 'Bash(go test:*)'`,
		Args: rangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.prompt = args[0]
			}
			return runF(c.Context(), app, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.resume, "resume", "", "continue the session with this id (or unique id prefix)")
	f.BoolVar(&o.cont, "continue", false, "continue the most recent session of this directory")
	f.StringVar(&o.model, "model", "", "model to use (default: STRATA_MODEL, the model setting, or the provider's default)")
	f.StringArrayVar(&o.allow, "allow", nil, "allow tool calls matching a pattern without asking; repeatable")
	f.StringArrayVar(&o.deny, "deny", nil, "deny tool calls matching a pattern; repeatable")
	f.StringVar(&o.mode, "permission-mode", "", "ask (default), accept-edits, plan (read and plan, change nothing) or bypass; Shift-Tab cycles ask, accept-edits and plan")
	f.StringVar(&o.cwd, "cwd", "", "working directory (default: the current directory)")
	f.IntVar(&o.maxTurns, "max-turns", 0, "stop an answer after this many model requests")
	addBackgroundFlag(c, &o)
	return c
}

// chat is one interactive session: the input is shared by the prompt and permission questions.
type chat struct {
	app      *App
	in       *bufio.Reader
	out      io.Writer
	o        runOptions
	dir      string
	a        *agent.Agent
	cfg      llm.Config
	lastCtx  int // prompt+output tokens of the last request
	midLine  bool
	inAnswer bool
	// dreamsShown is how many auto-dreams of this agent were reported (reportDream).
	dreamsShown int
	// ui is the terminal UI while it runs (chat_ui.go); nil in the line mode.
	ui *chatui.UI
	// warned is how many of the agent's warnings were printed (printWarnings).
	warned int
}

func runChat(ctx context.Context, app *App, o runOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.resume != "" && o.cont {
		return usagef("--resume and --continue cannot be used together")
	}
	if o.mode != "" {
		if _, err := permission.ParseMode(o.mode); err != nil {
			return usagef("--permission-mode: %v", strings.TrimPrefix(err.Error(), "permission: "))
		}
	}
	dir, err := app.workDir(o.cwd)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	c := &chat{app: app, in: bufio.NewReader(app.In), out: app.Out, dir: dir, o: o}
	if c.useUI() {
		return c.runUI(ctx) // it opens the session itself, to ask its questions in the UI
	}
	o.askMCP = c.askServer
	c.o = o
	if err := c.open(ctx, o); err != nil {
		return err
	}
	defer func() {
		c.close(ctx)
		fmt.Fprintln(c.out, ExitSummary(c.a))
	}()
	fmt.Fprintf(c.out, "strata chat · %s · session %s · permissions %s\n", c.cfg.Model, c.a.SessionID(), c.a.PermissionMode())
	if o.resume != "" || o.cont {
		fmt.Fprintf(c.out, "Resumed: %d messages.\n", len(c.a.History()))
		c.showRecent()
	}
	fmt.Fprintln(c.out, "Type a message; /help for commands; Ctrl-C stops an answer, Ctrl-D quits.")
	if strings.TrimSpace(o.prompt) != "" {
		fmt.Fprintf(c.out, "\n› %s\n", termtext.Line(o.prompt))
		c.send(ctx, o.prompt)
	}
	for {
		fmt.Fprint(c.out, "\n› ")
		line, err := c.in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(c.out)
			return nil // end of input
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		switch line[0] {
		case '/':
			quit, err := c.slash(ctx, line)
			if err != nil {
				return err
			}
			if quit {
				return nil
			}
		case '!':
			c.shell(ctx, line[1:])
		case '#':
			c.remember(ctx, line[1:])
		default:
			c.send(ctx, line)
		}
	}
}

func (c *chat) open(ctx context.Context, o runOptions) error {
	a, cfg, err := newAgent(ctx, c.app, c.dir, o, c.approve)
	if err != nil {
		return err
	}
	c.a, c.cfg, c.lastCtx, c.dreamsShown = a, cfg, 0, 0
	c.warned = printWarnings(c.app.Err, a, 0)
	reportArchived(c.out, a.Archived())
	return nil
}

func (c *chat) close(ctx context.Context) {
	if c.a.BackgroundBusy() {
		fmt.Fprintln(c.out, "· saving what this session taught (memory extraction, at most 20 s)…")
	}
	if err := c.a.Close(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(c.app.Err, "strata: %v\n", err)
	}
	c.reportDream()
}

// reportDream prints, once, the report of an auto-dream that finished since the last one
// shown: what it archived, what it proposes and how to undo it.
func (c *chat) reportDream() {
	bg := c.a.Background()
	if bg.Dreams > c.dreamsShown {
		c.dreamsShown = bg.Dreams
		if bg.DreamReport != "" {
			fmt.Fprintf(c.out, "· %s\n", bg.DreamReport)
		}
	}
}

// turn runs one message; Ctrl-C cancels it and returns to the prompt.
func (c *chat) turn(ctx context.Context, in conversation.Input) {
	tctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	c.midLine, c.inAnswer = false, false
	res, err := c.a.RunInput(tctx, in, c.sink)
	c.endLine()
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(c.out, "[interrupted]")
	case err != nil:
		fmt.Fprintf(c.out, "strata: %v\n", err)
	case res.Text == "":
		fmt.Fprintln(c.out, "[no answer]")
	}
	c.reportDream()
	c.warned = printWarnings(c.app.Err, c.a, c.warned)
	c.status()
}

// recentTurns is how many of the user's turns a resume shows again.
const recentTurns = 3

// showRecent prints the end of a resumed conversation, so the user sees where it stopped.
func (c *chat) showRecent() {
	if text := RecentTurns(c.a.History(), recentTurns); text != "" {
		fmt.Fprintf(c.out, "── the conversation so far (last %d turns) ──\n%s──\n", recentTurns, text)
	}
}

func (c *chat) endLine() {
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
}

func (c *chat) sink(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		if e.Text == "" {
			return
		}
		fmt.Fprint(c.out, e.Text)
		c.midLine = !strings.HasSuffix(e.Text, "\n")
	case agent.EventToolStart:
		c.endLine()
		fmt.Fprintf(c.out, "· %s %s\n", e.Tool.Name, firstLine(string(e.Tool.Input), 100))
	case agent.EventToolEnd:
		if e.IsError {
			fmt.Fprintf(c.out, "  ✗ %s\n", firstLine(e.Output, 140))
		}
	case agent.EventPermission:
		c.endLine()
		fmt.Fprintf(c.out, "· %s not run: %s\n", e.Tool.Name, firstLine(e.Text, 140))
	case agent.EventRetry:
		c.endLine()
		fmt.Fprintf(c.out, "· the model server failed (%v); retrying in %s\n", firstLine(errString(e.Err), 100), e.Wait.Round(1e6))
	case agent.EventRecall:
		if len(e.Memories) > 0 {
			c.endLine()
			fmt.Fprintf(c.out, "· recalled %s\n", strings.Join(e.Memories, ", "))
		}
	case agent.EventUsage:
		c.lastCtx = e.Usage.PromptTokens() + e.Usage.OutputTokens
	case agent.EventCompact:
		c.endLine()
		fmt.Fprintf(c.out, "· %s\n", termtext.Line(e.Text)) // may quote a model server's error
	}
}

// status prints the status line: model, context used, session.
func (c *chat) status() { fmt.Fprintln(c.out, c.statusLine()) }

func (c *chat) statusLine() string {
	used := c.lastCtx
	if used == 0 {
		cx := c.a.Context()
		used = cx.System + cx.Instructions + cx.Tools + cx.Messages
	}
	return fmt.Sprintf("── %s · context %s of %s · session %s · %s", c.cfg.Model, kTokens(used), kTokens(c.cfg.ContextWindow), c.shortID(), UsageStatus(c.a.Usage()))
}

func kTokens(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// shortID is the session id's shortest prefix of at least 8 characters that no other session
// of the project begins with, as git shortens hashes: ids are time-ordered, so sessions started
// within a minute share their first 8. It is worked out anew each time, as a later session can
// make a prefix ambiguous.
func (c *chat) shortID() string {
	id := c.a.SessionID()
	ids := []string{id}
	if path := c.a.TranscriptPath(); path != "" {
		entries, _ := os.ReadDir(filepath.Dir(path)) // unreadable: the id alone
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && name != id {
				ids = append(ids, name)
			}
		}
	}
	return UniquePrefixes(ids, 8)[0]
}

// approve asks the user about a tool call: y, n (or "n TEXT": no, and tell the model TEXT) or,
// when the request offers a rule, a (yes, and don't ask again for the rule shown).
func (c *chat) approve(ctx context.Context, r permission.Request) (permission.Answer, error) {
	if c.ui != nil {
		return c.approveUI(ctx, r)
	}
	c.endLine()
	for {
		fmt.Fprintf(c.out, "? Allow %s?  %s: ", termtext.Line(r.Summary), PermissionChoices(r))
		line, err := c.in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(c.out)
			return permission.Answer{}, nil
		}
		if ctx.Err() != nil { // Ctrl-C while the question was open: no answer counts
			return permission.Answer{}, ctx.Err()
		}
		if ans, ok := ParsePermissionAnswer(r, line); ok {
			if ans.Always {
				fmt.Fprintf(c.out, "  %s\n", AlwaysText(r))
			}
			return ans, nil
		}
		if ctx.Err() != nil {
			return permission.Answer{}, ctx.Err()
		}
	}
}

// resumeTo switches the chat to session id (or a unique prefix): the old session is closed
// once the new one is open.
func (c *chat) resumeTo(ctx context.Context, id string) error {
	old := c.a
	o := c.o
	o.resume, o.cont = id, false
	a, cfg, err := newAgent(ctx, c.app, c.dir, o, c.approve)
	if err != nil {
		return err
	}
	if err := old.Close(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(c.app.Err, "strata: %v\n", err)
	}
	c.a, c.cfg, c.lastCtx = a, cfg, 0
	return nil
}

// chatCommands are the chat's slash commands: /help lists them, the UI's menu offers them.
var chatCommands = []chatui.Command{
	{Name: "/help", Help: "this list"},
	{Name: "/context", Help: "what is in the model's context now, by source, with token estimates"},
	{Name: "/memory", Args: "[N]", Help: "the auto-memory, its index and the files to edit; N opens one in $EDITOR"},
	{Name: "/init", Help: "have the model write a CLAUDE.md for this project"},
	{Name: "/model", Args: "[NAME]", Help: "show the model, or switch to NAME (opus, sonnet, haiku or an id)"},
	{Name: "/todos", Help: "the current todo list"},
	{Name: "/cost", Help: "tokens used in this session"},
	{Name: "/resume", Args: "[ID]", Help: "list recent sessions, or switch to one"},
	{Name: "/clear", Help: "start a new session (memories and files stay)"},
	{Name: "/compact", Args: "[text]", Help: "compact the conversation now (text: what the summary should focus on)"},
	{Name: "/pin", Args: "TEXT", Help: "send TEXT pinned: every compaction carries it verbatim, whatever its age"},
	{Name: "/exit", Help: "quit (Ctrl-D works too)"},
}

// chatHelp is /help's text.
func chatHelp() string {
	lines := []string{"Commands:"}
	for _, c := range chatCommands {
		lines = append(lines, fmt.Sprintf("  %-16s %s", strings.TrimSpace(c.Name+" "+c.Args), c.Help))
	}
	return strings.Join(append(lines,
		"  !COMMAND         run your own shell command (nothing is asked); it and its output go to the conversation",
		"  #TEXT            save TEXT as a memory (asks which type)",
		"  @PATH            in a message: attach the file, as the Read tool reads it"), "\n")
}

// slash runs a slash command; quit is true for /exit.
func (c *chat) slash(ctx context.Context, line string) (quit bool, err error) {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	w := c.out
	switch cmd {
	case "/help", "/?":
		fmt.Fprintln(w, chatHelp())
	case "/exit", "/quit":
		return true, nil
	case "/context":
		cx := c.a.Context()
		total := cx.System + cx.Instructions + cx.Tools + cx.Messages
		fmt.Fprintf(w, "Context (estimated; the last request reported %s tokens in and out):\n", kTokens(c.lastCtx))
		fmt.Fprintf(w, "  %-34s %8s\n", "system prompt", kTokens(cx.System))
		fmt.Fprintf(w, "  %-34s %8s\n", "instructions (session start)", kTokens(cx.Instructions))
		fmt.Fprintf(w, "  %-34s %8s\n", fmt.Sprintf("tools (%d)", len(c.a.Tools())), kTokens(cx.Tools))
		fmt.Fprintf(w, "  %-34s %8s\n", fmt.Sprintf("messages (%d)", len(c.a.History())), kTokens(cx.Messages))
		fmt.Fprintf(w, "  %-34s %8s of %s\n", "total", kTokens(total), kTokens(c.cfg.ContextWindow))
		if len(cx.Sources) > 0 {
			fmt.Fprintln(w, "Instruction pieces (session start first, then those touched files added):")
			for _, s := range cx.Sources {
				store := "" // a mounted memory store's index says which store it is
				if s.Store != "" {
					store = "  (memory store " + termtext.Line(s.Store) + ")"
				}
				fmt.Fprintf(w, "  %-8s %-17s %7d  %s%s\n", s.Layer, s.Reason, s.Tokens, s.Path, store)
			}
		}
	case "/init":
		c.initProject(ctx)
	case "/pin":
		if arg == "" {
			fmt.Fprintln(w, "usage: /pin TEXT (a message every compaction carries verbatim)")
			break
		}
		in := conversation.TypedInput(arg)
		in.Pinned = true
		c.sendInput(ctx, in)
	case "/model":
		c.model(arg)
	case "/memory":
		if arg != "" {
			c.editMemory(ctx, arg)
			break
		}
		defer c.editMemory(ctx, "")
		dir := c.a.MemoryDir()
		if dir == "" {
			fmt.Fprintln(w, "Auto-memory is off (setting autoMemoryEnabled).")
			break
		}
		fmt.Fprintf(w, "Memory directory: %s\n", dir)
		st, err := c.a.Workspace().Store() // the session's store, with the settings' index limits
		if err != nil {
			fmt.Fprintf(w, "strata: %v\n", err)
			break
		}
		idx, err := st.LoadIndex(ctx)
		switch {
		case err != nil:
			fmt.Fprintf(w, "strata: %v\n", err)
		case !idx.Exists:
			fmt.Fprintln(w, "No MEMORY.md yet: nothing has been saved for this project.")
		default:
			fmt.Fprintf(w, "MEMORY.md (%d lines; the model saw it as of session start):\n%s\n", idx.Lines, strings.TrimRight(idx.Content(), "\n"))
		}
		bg := c.a.Background()
		fmt.Fprintf(w, "Background this session: %d extraction(s) (%d skipped, %d failed), %d session-notes update(s), %d auto-dream(s)\n",
			bg.Extractions, bg.ExtractSkipped, bg.ExtractFailed, bg.NotesUpdates, bg.Dreams)
		if len(bg.Written) > 0 {
			fmt.Fprintf(w, "Saved by the extractor: %s\n", strings.Join(bg.Written, ", "))
		}
		for _, d := range bg.Denied {
			fmt.Fprintf(w, "Denied to the extractor: %s\n", d)
		}
	case "/todos":
		todos := c.a.Todos()
		if len(todos) == 0 {
			fmt.Fprintln(w, "No todos.")
		}
		for _, t := range todos {
			mark := map[string]string{"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}[string(t.Status)]
			fmt.Fprintf(w, "  %s %s\n", mark, t.Content)
		}
	case "/cost":
		fmt.Fprintln(w, strings.Join(CostLines(c.a.Usage()), "\n"))
	case "/clear":
		c.close(ctx)
		o := c.o
		o.resume, o.cont = "", false
		if err := c.open(ctx, o); err != nil {
			return false, err
		}
		fmt.Fprintf(w, "New session %s. Memories and files are unchanged.\n", c.a.SessionID())
	case "/resume":
		if arg == "" {
			choices, err := ResumeChoices(ctx, c.app.Env, c.a.Cwd(), 10)
			if err != nil {
				fmt.Fprintf(w, "strata: %s\n", termtext.Line(err.Error()))
			}
			if len(choices) == 0 {
				fmt.Fprintln(w, "No sessions in this directory yet.")
				break
			}
			fmt.Fprintln(w, strings.Join(ResumeLines(choices), "\n"))
			fmt.Fprintln(w, "Switch with /resume ID (the id as shown, or more of it).")
			break
		}
		if err := c.resumeTo(ctx, arg); err != nil {
			fmt.Fprintf(w, "strata: cannot resume %s: %v\n", arg, err)
			break
		}
		c.warned = printWarnings(c.app.Err, c.a, 0)
		fmt.Fprintf(w, "Resumed session %s: %d messages.\n", c.a.SessionID(), len(c.a.History()))
		c.showRecent()
	case "/compact":
		r, err := c.a.Compact(ctx, arg)
		var ns *compact.NotSmallerError
		if errors.As(err, &ns) {
			fmt.Fprintf(w, "Not compacted: %s; nothing was changed.\n", notCompacted(ns))
			break
		}
		if err != nil {
			fmt.Fprintf(w, "Compaction failed: %s\n", termtext.Line(err.Error()))
			break
		}
		fmt.Fprintf(w, "Compacted (%s): about %d tokens before, %d after; %d of your messages kept verbatim, %d files re-read.\n",
			r.Method, r.PreTokens, r.PostTokens, len(r.UserMessages), len(r.Files))
		if r.Note != "" {
			fmt.Fprintln(w, termtext.Line(r.Note))
		}
	default:
		fmt.Fprintf(w, "Unknown command %s. /help lists the commands.\n", cmd)
	}
	return false, nil
}
