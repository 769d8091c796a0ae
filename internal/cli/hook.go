package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/termtext"
)

// hookFlags are the flags of `strata hook`.
type hookFlags struct {
	budget  int           // tokens of recalled memories per prompt
	pinned  int           // tokens of carried messages after a compaction
	timeout time.Duration // the hook's whole time budget
}

// hookEvents are the Claude Code events strata hook answers.
var hookEvents = []string{"UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd", "Stop"}

func newHookCmd(app *App) *cobra.Command {
	f := hookFlags{budget: 1500, pinned: 6000, timeout: 5 * time.Second}
	c := &cobra.Command{
		Use:   "hook EVENT",
		Short: "Answer a Claude Code hook (UserPromptSubmit, SessionStart, PreCompact, SessionEnd, Stop)",
		Long: `Read a Claude Code hook's input (JSON) on stdin and answer in Claude Code's hook output format.
The plugin and strata setup claude-code install these hooks; they use Claude Code's own
memory directory and transcripts (CLAUDE_CONFIG_DIR, else ~/.claude).

  UserPromptSubmit  recall: the memories worth showing for the prompt, ranked over their whole
                    text (the project's auto-memory and mounted stores), within --budget tokens,
                    with age notes, never one this session already has (read from the transcript)
  PreCompact        records the session's first request and the messages pinned with /strata:pin
  SessionStart      after a compaction: those messages, verbatim; at start-up or resume: a line
                    when proposals wait in the memory inbox, else nothing (and recall's saved
                    index is brought up to date, off the first prompt's path)
  SessionEnd        starts in the background: extraction of new memories from the session into
                    the inbox (strata memory extract), when a model is configured; the
                    auto-dream (strata memory dream --auto), when it is due (24 h and 5
                    sessions since the last run); STRATA_NO_BACKGROUND=1 turns both off
  Stop              nothing

A hook never breaks Claude Code: on any error, or past --timeout (5s; 20s for SessionStart,
which also builds recall's saved index), it prints nothing, exits 0 and writes one line to
$STRATA_HOME/logs/hook.log.`,
		Example: `  echo '{"hook_event_name":"UserPromptSubmit","cwd":".","prompt":"deploy"}' | strata hook UserPromptSubmit`,
		Args:    cobra.ArbitraryArgs, // a wrong call is logged, never an error Claude Code would show
		RunE: func(c *cobra.Command, args []string) error {
			event := strings.Join(args, " ")
			if event == "SessionStart" && !c.Flags().Changed("timeout") {
				f.timeout = sessionStartTimeout
			}
			runHook(cmdCtx(c), app, f, event)
			return nil
		},
	}
	c.Flags().IntVar(&f.budget, "budget", f.budget, "UserPromptSubmit: the most `TOKENS` of memories added to a prompt")
	c.Flags().IntVar(&f.pinned, "pinned-budget", f.pinned, "SessionStart: the most `TOKENS` of messages carried across a compaction")
	c.Flags().DurationVar(&f.timeout, "timeout", f.timeout, "give up (no output, exit 0) after this long")
	return c
}

// sessionStartTimeout is SessionStart's default time budget: long enough to build recall's
// saved index of a large store once, off the first prompt's path.
const sessionStartTimeout = 20 * time.Second

// hookInput is what Claude Code sends a command hook on stdin (2.1.328), the fields strata reads.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`  // UserPromptSubmit
	Source         string `json:"source"`  // SessionStart: startup, resume, clear, compact
	Trigger        string `json:"trigger"` // PreCompact: manual, auto
}

// hookOutput is Claude Code's hook output: additionalContext reaches the model as a system
// message.
type hookOutput struct {
	Specific struct {
		Event             string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// runHook answers one hook within f.timeout. Whatever happens it returns normally: an error,
// a panic or the time budget running out is one line in the hook log and no output.
func runHook(ctx context.Context, app *App, f hookFlags, event string) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	// The work runs apart so that the time budget holds even for a read of stdin that never
	// ends; past the budget the process exits with it still running.
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		text, err := hookAnswer(ctx, app, f, event)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			r.err = fmt.Errorf("gave up after %s (the --timeout budget); nothing was added: %w", f.timeout, r.err)
		}
		if r.err != nil {
			hookLog(app, event, r.err)
			return
		}
		if r.text == "" {
			return
		}
		var out hookOutput
		out.Specific.Event, out.Specific.AdditionalContext = event, r.text
		enc := json.NewEncoder(app.Out)
		enc.SetEscapeHTML(false) // the memories' tags stay readable in the transcript
		if err := enc.Encode(out); err != nil {
			hookLog(app, event, err)
		}
	case <-ctx.Done():
		hookLog(app, event, fmt.Errorf("gave up after %s (the --timeout budget); nothing was added", f.timeout))
	}
}

// errHookEvent is returned for an event strata hook does not answer.
var errHookEvent = errors.New("unknown hook event")

// hookAnswer reads the input and returns the additionalContext to give Claude Code ("" for
// none).
func hookAnswer(ctx context.Context, app *App, f hookFlags, event string) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(app.In, 16<<20))
	if err != nil {
		return "", fmt.Errorf("reading the hook input: %w", err)
	}
	var in hookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", fmt.Errorf("the hook input on stdin is not JSON: %w", err)
	}
	if in.Event != "" && event != "" && in.Event != event {
		return "", fmt.Errorf("called as %s but the input is for %s", event, in.Event)
	}
	if event == "" {
		event = in.Event
	}
	if in.Cwd == "" {
		if in.Cwd, err = app.Getwd(); err != nil {
			return "", err
		}
	}
	env := claudeCodeEnv(app.Env)
	switch event {
	case "UserPromptSubmit":
		return hookRecall(ctx, app, env, in, f.budget)
	case "PreCompact":
		return "", hookPreCompact(ctx, app, in)
	case "SessionStart":
		if in.Source == "compact" {
			return hookCarry(ctx, app, in, f.pinned)
		}
		return hookGreeting(ctx, app, env, in)
	case "SessionEnd":
		return "", hookSessionEnd(ctx, app, env, in)
	case "Stop":
		return "", nil // Stop must print nothing: Claude Code would take it as a reason to go on
	}
	return "", fmt.Errorf("%w %q (strata hook answers %s)", errHookEvent, event, strings.Join(hookEvents, ", "))
}

// claudeCodeEnv is env with Claude Code's configuration directory as its home
// (CLAUDE_CONFIG_DIR, else ~/.claude), so that memory and transcripts are Claude Code's own.
// The hooks and strata mcp --claude-code use it.
func claudeCodeEnv(env config.Env) config.Env {
	home := env.Var("CLAUDE_CONFIG_DIR")
	if home == "" {
		home = filepath.Join(env.UserHome, ".claude")
	}
	env.Home = home
	return env
}

// hookLog appends one line about a hook that gave nothing to $STRATA_HOME/logs/hook.log; a
// log that cannot be written is left alone (a hook has nowhere else to say it).
func hookLog(app *App, event string, err error) {
	dir := filepath.Join(app.Env.Home, "logs")
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	fh, ferr := os.OpenFile(filepath.Join(dir, "hook.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer fh.Close()
	fmt.Fprintf(fh, "%s strata hook %s: %s\n", app.Now().UTC().Format(time.RFC3339), event, termtext.Line(err.Error()))
}
