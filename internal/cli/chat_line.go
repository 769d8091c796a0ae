package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/llm"
)

// The line mode's side of the chat actions (chat_actions.go): "!", "#", "@", /init, /model,
// /memory N. Each reads the answers it needs from the chat's input.

// ask prints question and reads one line of answer ("" at the end of input).
func (c *chat) ask(question string) string {
	fmt.Fprint(c.out, question)
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(c.out)
	}
	return strings.TrimSpace(line)
}

// shell runs "!command" through the Bash tool and adds it and its output to the conversation.
func (c *chat) shell(ctx context.Context, command string) {
	tctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	out, isErr, err := c.a.Shell(tctx, strings.TrimSpace(command), nil)
	var denied *agent.Denied
	switch {
	case errors.As(err, &denied):
		fmt.Fprintf(c.out, "· not run: %s\n", termtext.Line(denied.Reason))
		return
	case err != nil:
		fmt.Fprintf(c.out, "strata: %s\n", termtext.Line(err.Error()))
		return
	}
	if text := strings.TrimRight(termtext.Clean(out), "\n"); text != "" {
		fmt.Fprintln(c.out, text)
	}
	if isErr {
		fmt.Fprintln(c.out, "· the command failed")
	}
	fmt.Fprintln(c.out, "· the command and its output are in the conversation for your next message")
}

// remember saves "#text" as a memory of the type the user picks.
func (c *chat) remember(ctx context.Context, text string) {
	if strings.TrimSpace(text) == "" {
		fmt.Fprintln(c.out, "Write the memory after #, e.g. #we deploy on Tuesdays.")
		return
	}
	var keys []string
	for _, t := range MemoryTypes {
		keys = append(keys, fmt.Sprintf("[%s]%s", t.Key, strings.TrimPrefix(string(t.Type), t.Key)))
	}
	for {
		ans := c.ask("Save as which type of memory?  " + strings.Join(keys, "  ") + "  (empty: cancel): ")
		if ans == "" {
			fmt.Fprintln(c.out, "Not saved.")
			return
		}
		typ, ok := ParseMemoryType(ans)
		if !ok {
			continue
		}
		res, err := SaveMemory(ctx, c.a, typ, text)
		if err != nil {
			fmt.Fprintf(c.out, "Not saved: %s\n", termtext.Line(err.Error()))
			return
		}
		where := res.File
		if res.Logged {
			where = res.Path
		}
		fmt.Fprintf(c.out, "Saved %s memory %s.\n", typ, termtext.Line(where))
		return
	}
}

// send runs a typed message, with its "@path" mentions attached.
func (c *chat) send(ctx context.Context, line string) {
	c.sendInput(ctx, conversation.TypedInput(line))
}

// sendInput runs a message, with its "@path" mentions attached.
func (c *chat) sendInput(ctx context.Context, in conversation.Input) {
	msg, attached, err := AttachMentions(ctx, c.a, in)
	if err != nil {
		fmt.Fprintf(c.out, "strata: %s; nothing was sent\n", termtext.Line(err.Error()))
		return
	}
	for _, p := range attached {
		fmt.Fprintf(c.out, "· attached %s\n", termtext.Line(p))
	}
	c.turn(ctx, msg)
}

// initProject runs /init: the model writes a CLAUDE.md; an existing one is changed only after
// a yes.
func (c *chat) initProject(ctx context.Context) {
	prompt, exists := InitPrompt(c.a.Workspace().Tree())
	if exists {
		if ans := strings.ToLower(c.ask("This project has a CLAUDE.md. Let the model revise it? [y/N] ")); ans != "y" && ans != "yes" {
			fmt.Fprintln(c.out, "CLAUDE.md left as it is.")
			return
		}
	}
	c.turn(ctx, conversation.TypedInput(prompt))
}

// model runs /model [NAME]: show the model, or switch to NAME for the next messages.
func (c *chat) model(arg string) {
	if arg == "" {
		fmt.Fprintf(c.out, "Model: %s (context window %s). Switch with /model NAME.\n", c.cfg.Model, kTokens(c.cfg.ContextWindow))
		return
	}
	arg = llm.ResolveModel(c.cfg.Provider, arg)
	w, from := ModelWindow(c.a.Workspace().Settings(), arg)
	c.a.SetModel(arg, w)
	c.cfg.Model, c.cfg.ContextWindow, c.lastCtx = arg, w, 0
	fmt.Fprintf(c.out, "Model: %s from the next message (context window %s, %s).\n", termtext.Line(arg), kTokens(w), from)
}

// editMemory lists the files /memory can open (arg "") or opens number arg in the editor.
func (c *chat) editMemory(ctx context.Context, arg string) {
	files := MemoryFiles(ctx, c.a)
	if arg == "" {
		fmt.Fprintln(c.out, "Files to edit (/memory N opens one in $VISUAL or $EDITOR):")
		for i, f := range files {
			note := ""
			if !f.Exists {
				note = " (new)"
			}
			fmt.Fprintf(c.out, "  %2d  %s  %s%s\n", i+1, termtext.Pad(termtext.Line(f.Label), 28), termtext.Line(f.Path), note)
		}
		return
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(files) {
		fmt.Fprintf(c.out, "No file %s: /memory lists them.\n", termtext.Line(arg))
		return
	}
	cmd := EditorCommand(c.app.Env, files[n-1].Path)
	if f, ok := c.app.In.(*os.File); ok {
		cmd.Stdin = f
	}
	cmd.Stdout, cmd.Stderr = c.out, c.app.Err
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(c.out, "strata: editor %s: %s\n", cmd.Path, termtext.Line(err.Error()))
		return
	}
	fmt.Fprintf(c.out, "Edited %s (the model sees instruction and index changes after the next compaction or session).\n", termtext.Line(files[n-1].Path))
}
