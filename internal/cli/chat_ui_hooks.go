package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/internal/chatui"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/permission"
)

// uiHooks gives the UI the chat actions of chat_actions.go (the line mode calls the same
// functions): ! through Agent.Shell, # through SaveMemory, @ completion through CompletePaths,
// /memory N through EditorCommand, /init through InitPrompt.
func (c *chat) uiHooks() chatui.Hooks {
	var types []chatui.MemoryType
	for _, t := range MemoryTypes {
		types = append(types, chatui.MemoryType{Key: t.Key, Name: string(t.Type), Help: t.Help})
	}
	return chatui.Hooks{
		Shell: func(ctx context.Context, command string) (string, error) {
			out, isErr, err := c.a.Shell(ctx, strings.TrimSpace(command), nil)
			if denied := (*agent.Denied)(nil); errors.As(err, &denied) {
				return "", fmt.Errorf("not run: %s", denied.Reason)
			}
			if err != nil {
				return "", err
			}
			if isErr {
				return out, errors.New("the command failed; it and its output are in the conversation for your next message")
			}
			return out, nil
		},
		MemoryTypes: types,
		Remember: func(ctx context.Context, typ, text string) (string, error) {
			t, ok := ParseMemoryType(typ)
			if !ok {
				return "", fmt.Errorf("unknown memory type %q", typ)
			}
			res, err := SaveMemory(ctx, c.a, t, text)
			if err != nil {
				return "", fmt.Errorf("not saved: %w", err)
			}
			where := res.File
			if res.Logged {
				where = res.Path
			}
			return fmt.Sprintf("Saved %s memory %s.", t, where), nil
		},
		Complete: func(prefix string) []string {
			return CompletePaths(c.a.Cwd(), prefix, c.a.Gitignored, 20)
		},
		Files: (&projectFiles{root: c.a.Cwd(), ignored: c.a.Gitignored, now: c.app.Now}).Find,
		EditMemory: func(arg string) (*exec.Cmd, error) {
			files := MemoryFiles(context.Background(), c.a)
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 || n > len(files) {
				return nil, fmt.Errorf("no file %s: /memory lists them", termtext.Line(arg))
			}
			return EditorCommand(c.app.Env, files[n-1].Path), nil
		},
		Init:      func() (string, bool) { return InitPrompt(c.a.Workspace().Tree()) },
		CycleMode: c.cycleMode,
	}
}

// nextMode is the mode Shift-Tab switches to, in Claude Code's order; bypass, chosen on the
// command line, goes back to ask.
var nextMode = map[permission.Mode]permission.Mode{
	permission.ModeAsk: permission.ModeAcceptEdits, permission.ModeAcceptEdits: permission.ModePlan,
	permission.ModePlan: permission.ModeAsk, permission.ModeBypass: permission.ModeAsk,
}

// cycleMode switches the session to the next permission mode and returns its name.
func (c *chat) cycleMode() string {
	m, ok := nextMode[c.a.PermissionMode()]
	if !ok {
		m = permission.ModeAsk
	}
	c.a.SetPermissionMode(m)
	return string(m)
}
