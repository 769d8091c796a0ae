package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
)

// What a person at the chat does besides sending messages: run a shell command ("!"), attach
// a file ("@path"), switch the model. Each goes through the same code as the model's own
// calls, so the deny rules are the same; what the user typed is not asked about.

// ErrDenied is returned by Shell and ReadFile when the deny rules refuse the call; the error's
// text says why.
var ErrDenied = errors.New("agent: permission denied")

// Denied is the refusal Shell and ReadFile return: Reason is the permission check's answer,
// shown to the user as it is. It wraps ErrDenied.
type Denied struct{ Reason string }

func (e *Denied) Error() string { return ErrDenied.Error() + ": " + e.Reason }
func (e *Denied) Unwrap() error { return ErrDenied }

// Shell runs command as the user's own shell command (chat's "!command", Claude Code's bash
// mode): through the Bash tool, refused only by the deny rules (nobody is asked: the user typed
// it), then adds the command and its output to the conversation as a
// user message (<bash-input>, <bash-stdout>), so the next turn sees them. Events (tool start
// and end) go to sink. isErr reports a command that failed (its output says how); a refused
// call is an error wrapping ErrDenied, and adds nothing.
func (a *Agent) Shell(ctx context.Context, command string, sink Sink) (out string, isErr bool, err error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if strings.TrimSpace(command) == "" {
		return "", false, errors.New("agent: empty command")
	}
	if out, isErr, err = a.userCall(ctx, "user-shell", "Bash", "command", command, sink); err != nil {
		return "", true, err
	}
	msg := conversation.Input{Parts: []conversation.Part{
		{Origin: conversation.Typed, Text: "<bash-input>" + command + "</bash-input>\n"},
		{Origin: conversation.Command, Text: "<bash-stdout>" + strings.TrimRight(out, "\n") + "</bash-stdout>"},
	}}
	if isErr {
		msg.Parts = append(msg.Parts, conversation.Part{Origin: conversation.Command, Text: "\n(the command failed)"})
	}
	a.appendEntry(conversation.Entry{Message: conversation.NewText(conversation.User, msg.Text()), Provenance: msg.Provenance()})
	a.sess.sync(ctx)
	return out, isErr, nil
}

// ReadFile reads path (relative to the working directory, or absolute) as the Read tool reads
// it for the model — the same path resolution, size and line limits, deny rules, read cache
// and instruction touches — and returns what the model would see. Chat's "@path" mentions
// attach files with it.
func (a *Agent) ReadFile(ctx context.Context, path string) (string, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	out, isErr, err := a.userCall(ctx, "user-mention", "Read", "file_path", path, nil)
	switch {
	case err != nil:
		return "", err
	case isErr:
		return "", fmt.Errorf("agent: read %s: %s", path, out)
	}
	return out, nil
}

// userCall runs the user's own call id of tool name with input {key: value} as a model's call
// runs (events to sink), except that nobody is asked: what the user typed is theirs to run, and
// only the deny rules refuse it (a *Denied).
func (a *Agent) userCall(ctx context.Context, id, name, key, value string, sink Sink) (string, bool, error) {
	in, _ := json.Marshal(map[string]string{key: value})
	denied := ""
	l := a.loop(func(e Event) {
		if e.Kind == EventPermission {
			denied = e.Text
		}
		if sink != nil {
			sink(e)
		}
	})
	l.h = userTurn{l.h.(*turn)}
	out, isErr := l.call(ctx, &ToolCall{ID: id, Name: name, Input: in}, 0)
	if denied != "" {
		return "", true, &Denied{denied}
	}
	return out, isErr, nil
}

// userTurn is the handler of the user's own calls: the deny rules decide, nothing is asked.
type userTurn struct{ *turn }

func (t userTurn) decide(ctx context.Context, tl *tool.Tool, call *ToolCall, c toolcall.Call, n int) (bool, string, bool) {
	s := permission.SubjectOf(c)
	t.a.mu.Lock()
	d, why := t.a.perms.Check(tl.Name, tl.Class, s)
	t.a.mu.Unlock()
	if d != permission.Deny {
		return true, "", false
	}
	msg := fmt.Sprintf("%s is %s", describe(tl.Name, s), why)
	t.sink(Event{Kind: EventPermission, Turn: n, Tool: call, Text: msg})
	return false, msg, true
}

// SetModel switches the session's model for the next requests (chat's /model): the main
// conversation, compaction and the background forks started after it; window is its context
// window (0: the model family's default). The system prompt names the model, so the provider's
// prompt cache starts again. It waits for a running turn to end.
func (a *Agent) SetModel(model string, window int) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	a.mu.Lock()
	a.opts.Model, a.opts.ContextWindow = model, window
	a.mu.Unlock()
	a.meter.SetModel(model)
	a.prompt.SetModel(model)
}

// Gitignored reports whether the project's .gitignore files leave path (absolute) out of the
// repository, by the matcher lint uses; completion of "@" mentions skips such directories. It
// does not wait for a running turn, so a UI can complete while the model works.
func (a *Agent) Gitignored(path string, isDir bool) bool {
	return a.prompt.Instructions().Gitignored(path, isDir)
}
