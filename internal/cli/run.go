package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/llm"
	_ "github.com/strata-mem/strata/llm/anthropic" // registers the provider
	_ "github.com/strata-mem/strata/llm/openai"    // registers the provider
	"github.com/strata-mem/strata/mcpclient"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

type runOptions struct {
	format   string
	resume   string
	cont     bool
	model    string
	maxTurns int
	allow    []string
	deny     []string
	addDirs  []string
	mode     string
	cwd      string
	verbose  bool
	// prompt is chat's first message ("": none).
	prompt string
	// askMCP asks whether a project's MCP server never asked about may be used (nil: it is
	// left out).
	askMCP func(mcpclient.Server) (yes, answered bool)
	// noBackground turns off session notes, memory extraction and auto-dream
	// (--no-background, or STRATA_NO_BACKGROUND=1).
	noBackground bool
}

// addBackgroundFlag registers --no-background and --add-dir on run and chat.
func addBackgroundFlag(c *cobra.Command, o *runOptions) {
	c.Flags().BoolVar(&o.noBackground, "no-background", false,
		"no background memory work: no session notes, no memory extraction after a turn, no auto-dream (also STRATA_NO_BACKGROUND=1)")
	c.Flags().StringArrayVar(&o.addDirs, "add-dir", nil,
		"a directory outside the project that the file tools may use without asking, as the project's; repeatable")
}

// newRunCmd builds `strata run`; runF (nil: runRun) runs it with the parsed flags, so a test
// can check what a command line asks for without running an agent.
func newRunCmd(app *App, runF func(ctx context.Context, app *App, o runOptions, prompt string) error) *cobra.Command {
	if runF == nil {
		runF = runRun
	}
	var o runOptions
	c := &cobra.Command{
		Use:   `run "PROMPT"`,
		Short: "Run the agent on one prompt, non-interactively (for scripts and CI)",
		Long: `Run the agent on one prompt and print its answer. The agent works in the current directory
with every memory layer: instructions (CLAUDE.md, AGENTS.md, rules), the auto-memory index and
recall, the read cache, todos, and a transcript you can resume.

Permissions: nobody can be asked in a run, so reads in the project (Read, Glob, Grep; --add-dir
adds directories), memory_search, TodoWrite and the memory tools are allowed, and anything else
(reads elsewhere, file edits, shell commands) is denied unless a pattern allows it: --allow, or permissions.allow in settings.json, e.g. "Bash(go test:*)",
"Edit(src/**)", "Bash". --permission-mode accept-edits allows file edits; bypass allows
everything. Deny patterns (permissions.deny, --deny) always win. The model is told about every
denial and which pattern would allow it.

PROMPT "-" reads the prompt from standard input. Ctrl-C stops the run; the transcript stays
consistent and can be resumed.`,
		Example: `  strata run "What does this repository do?"
  strata run --allow 'Bash(go test:*)' "Run the tests and explain any failure"
  strata run --permission-mode accept-edits "Fix the typo in README.md"
  strata run --continue --output-format json "And the other file?"
  git diff | strata run - --output-format stream-json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runF(c.Context(), app, o, args[0]) },
	}
	f := c.Flags()
	f.StringVar(&o.format, "output-format", "text", "text, json (one object at the end) or stream-json (one JSON event per line)")
	f.StringVar(&o.resume, "resume", "", "continue the session with this id (or unique id prefix)")
	f.BoolVar(&o.cont, "continue", false, "continue the most recent session of this directory")
	f.StringVar(&o.model, "model", "", "model to use (default: STRATA_MODEL, the model setting, or the provider's default)")
	f.IntVar(&o.maxTurns, "max-turns", 0, fmt.Sprintf("stop after this many model requests (default %d)", agent.DefaultMaxTurns))
	f.StringArrayVar(&o.allow, "allow", nil, `allow tool calls matching a pattern, e.g. 'Bash(go test:*)' or 'Edit(src/**)'; repeatable`)
	f.StringArrayVar(&o.deny, "deny", nil, "deny tool calls matching a pattern; repeatable; wins over every allow")
	f.StringVar(&o.mode, "permission-mode", "", "ask (default: edits and shell need an allow pattern), accept-edits, plan (nothing may change) or bypass")
	f.StringVar(&o.cwd, "cwd", "", "working directory (default: the current directory)")
	f.BoolVar(&o.verbose, "verbose", false, "with text output, print tool calls and retries to standard error")
	addBackgroundFlag(c, &o)
	return c
}

// offlineCommands is printed when no model is configured.
const offlineCommands = `These commands work without a model:
  strata context          what instructions a model would see here, and why
  strata lint             check the instruction files (strata memory lint: the memory)
  strata memory ...       list, show, add, search, forget and check memories
  strata sessions ...     list, show, search, export and archive transcripts
  strata mcp              serve the memory to MCP clients (Claude Code, Cursor, ...)
  strata bench ...        benchmarks`

// modelConfig resolves the provider configuration for a command that needs a model. When none
// is configured it prints how to configure one and returns an exit-1 error.
func modelConfig(app *App, ws *workspace.Workspace, model string) (llm.Config, error) {
	cfg, err := ws.LLMConfig()
	if err != nil {
		fmt.Fprintf(app.Err, "%v\n\n%s\n", err, offlineCommands)
		return cfg, &ExitError{Code: ExitFailure}
	}
	if model != "" {
		cfg.Model = llm.ResolveModel(cfg.Provider, model)
	}
	return cfg, nil
}

// newAgent builds the agent for run (and chat): settings, provider, options.
func newAgent(ctx context.Context, app *App, dir string, o runOptions, approver permission.Approver) (*agent.Agent, llm.Config, error) {
	mode := permission.Mode("")
	if o.mode != "" {
		var err error
		if mode, err = permission.ParseMode(o.mode); err != nil {
			return nil, llm.Config{}, usagef("--permission-mode: %v", strings.TrimPrefix(err.Error(), "permission: "))
		}
	}
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: dir, Env: app.Env, Now: app.Now, Mode: mode, Allow: o.allow, Deny: o.deny, AddDirs: o.addDirs})
	if err != nil {
		return nil, llm.Config{}, &ExitError{Code: ExitFailure, Err: err}
	}
	warnSettings(app, ws)
	cfg, err := modelConfig(app, ws, o.model)
	if err != nil {
		return nil, cfg, err
	}
	prov, err := llm.New(cfg)
	if err != nil {
		return nil, cfg, &ExitError{Code: ExitFailure, Err: err}
	}
	small := cfg.SmallModel
	if strings.EqualFold(app.Env.Var("STRATA_RECALL_SELECTOR"), "lexical") {
		small = ""
	}
	noBackground := o.noBackground || envOn(app.Env.Var("STRATA_NO_BACKGROUND"))
	var sync agent.StoreSync
	if !noBackground {
		sync = storeSync(ws)
	}
	tools, servers := mcpTools(ctx, app, dir, o.askMCP)
	a, err := agent.New(ctx, agent.Options{Provider: prov, Model: cfg.Model, SmallModel: small, Workspace: ws,
		Approver: approver, MaxTurns: o.maxTurns, Resume: o.resume, Continue: o.cont,
		ContextWindow: cfg.ContextWindow, Version: version(), NoBackground: noBackground, Sync: sync,
		Tools: tools, Servers: servers})
	if err != nil {
		if servers != nil {
			servers.Close()
		}
		return nil, cfg, &ExitError{Code: ExitFailure, Err: err}
	}
	return a, cfg, nil
}

// envOn reports whether an on/off environment variable is on ("", "0", "false" and "off" are off).
func envOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "off", "no":
		return false
	}
	return true
}

// runResult is the --output-format json object (and the last stream-json event), with Claude
// Code's fields: type "result", subtype success, error_max_turns or error_during_execution,
// the duration, the cost (0 for a model without a known price) and the calls denied.
type runResult struct {
	Type              string             `json:"type"`
	Subtype           string             `json:"subtype"`
	Result            string             `json:"result"`
	SessionID         string             `json:"session_id"`
	IsError           bool               `json:"is_error"`
	Error             string             `json:"error,omitempty"`
	DurationMs        int64              `json:"duration_ms"`
	NumTurns          int                `json:"num_turns"`
	Model             string             `json:"model"`
	TotalCostUSD      float64            `json:"total_cost_usd"`
	Usage             llm.Usage          `json:"usage"`
	PermissionDenials []permissionDenial `json:"permission_denials"`
}

// permissionDenial is a tool call the permissions refused, as Claude Code lists it.
type permissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

func runRun(ctx context.Context, app *App, o runOptions, prompt string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	switch o.format {
	case "text", "json", "stream-json":
	default:
		return usagef("--output-format %q: use text, json or stream-json", o.format)
	}
	if o.resume != "" && o.cont {
		return usagef("--resume and --continue cannot be used together")
	}
	in := conversation.TypedInput(prompt)
	if prompt == "-" {
		data, err := io.ReadAll(app.In)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("reading the prompt from standard input: %w", err)}
		}
		prompt = string(data)
		in = conversation.Input{Parts: []conversation.Part{{Origin: conversation.Command, Text: prompt}}}
	}
	if strings.TrimSpace(prompt) == "" {
		return usagef("the prompt is empty")
	}
	dir, err := app.workDir(o.cwd)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	a, cfg, err := newAgent(ctx, app, dir, o, nil)
	if err != nil {
		return err
	}
	if o.format == "text" && o.verbose {
		reportArchived(app.Err, a.Archived())
	}
	enc := json.NewEncoder(app.Out)
	enc.SetEscapeHTML(false)
	emit := func(v any) {
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(app.Err, "strata: writing output: %v\n", err)
		}
	}
	seen := printWarnings(app.Err, a, 0) // at start: settings, instructions, a session that cannot be saved
	defer func() {
		// Close drains the background memory work (extraction of this turn).
		if err := a.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(app.Err, "strata: %v\n", err)
		}
		printWarnings(app.Err, a, seen)
		reportBackground(app, o, a.Background(), emit)
	}()
	var show agent.Sink
	switch {
	case o.format == "stream-json":
		emit(streamLine{Type: "system", Subtype: "init", SessionID: a.SessionID(), Model: cfg.Model, Cwd: a.Cwd(),
			Tools: a.Tools(), Transcript: a.TranscriptPath()})
		show = func(e agent.Event) { streamEvent(emit, e) }
	case o.format == "text" && o.verbose:
		show = func(e agent.Event) { verboseEvent(app.Err, e) }
	}
	denials := []permissionDenial{}
	sink := func(e agent.Event) {
		if e.Kind == agent.EventPermission && e.Tool != nil {
			denials = append(denials, permissionDenial{e.Tool.Name, e.Tool.ID, e.Tool.Input})
		}
		if show != nil {
			show(e)
		}
	}
	start := app.Now()
	res, runErr := a.RunInput(ctx, in, sink)
	seen = printWarnings(app.Err, a, seen)
	out := runResult{Type: "result", Subtype: "success", Result: res.Text, SessionID: a.SessionID(), IsError: runErr != nil,
		DurationMs: app.Now().Sub(start).Milliseconds(), NumTurns: res.Turns, Model: cfg.Model, Usage: res.Usage, PermissionDenials: denials}
	if p, ok := llm.PriceOf(cfg.Model); ok {
		out.TotalCostUSD = p.Cost(res.Usage)
	}
	if runErr != nil {
		out.Subtype, out.Error = "error_during_execution", runErr.Error()
		switch {
		case errors.Is(runErr, agent.ErrMaxTurns):
			out.Subtype = "error_max_turns"
		case errors.Is(runErr, context.Canceled):
			out.Error = "interrupted"
		}
	}
	switch o.format {
	case "json":
		if err := writeJSON(app.Out, out); err != nil {
			fmt.Fprintf(app.Err, "strata: writing output: %v\n", err)
		}
	case "stream-json":
		emit(out)
	default:
		if res.Text != "" {
			fmt.Fprintln(app.Out, strings.TrimRight(res.Text, "\n"))
		}
	}
	if runErr != nil {
		if o.format == "text" {
			fmt.Fprintf(app.Err, "strata: %s\n", out.Error)
		}
		fmt.Fprintf(app.Err, "strata: session %s (resume with: strata run --resume %s ...)\n", a.SessionID(), a.SessionID())
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

// printWarnings prints the agent's warnings from the seen-th on and returns how many it has
// printed in all, so that each is shown once.
func printWarnings(w io.Writer, a *agent.Agent, seen int) int {
	ws := a.Warnings()
	for _, s := range ws[min(seen, len(ws)):] {
		fmt.Fprintf(w, "strata: warning: %s\n", termtext.Clean(s))
	}
	return max(seen, len(ws))
}

// reportArchived says which old transcripts the session's start archived (cleanupPeriodDays).
func reportArchived(w io.Writer, moves []transcript.Move) {
	if len(moves) == 0 {
		return
	}
	fmt.Fprintf(w, "· archived %d transcript(s) older than cleanupPeriodDays to %s\n", len(moves), filepath.Dir(filepath.Dir(moves[0].To)))
}

// reportBackground tells what the session's background memory work did: a "background" line
// in stream-json, a summary on stderr with --verbose, and in any text mode a warning when the
// extractor had calls denied.
func reportBackground(app *App, o runOptions, bg agent.BackgroundStats, emit func(any)) {
	if bg.Extractions+bg.ExtractSkipped+bg.ExtractFailed+bg.NotesUpdates+bg.NotesFailed+bg.Dreams == 0 {
		return
	}
	switch {
	case o.format == "stream-json":
		emit(streamLine{Type: "background", Background: &bg})
	case o.format == "text" && o.verbose:
		w := app.Err
		fmt.Fprintf(w, "· memory extraction: %d run(s), %d skipped (the agent saved memory itself), %d failed", bg.Extractions, bg.ExtractSkipped, bg.ExtractFailed)
		if len(bg.Written) > 0 {
			fmt.Fprintf(w, "; wrote %s", strings.Join(bg.Written, ", "))
		}
		fmt.Fprintln(w)
		for _, d := range bg.Denied {
			fmt.Fprintf(w, "· memory extraction denied: %s\n", d)
		}
		if bg.NotesUpdates+bg.NotesFailed > 0 {
			fmt.Fprintf(w, "· session notes: %d update(s), %d failed\n", bg.NotesUpdates, bg.NotesFailed)
		}
		if bg.Dreams > 0 {
			fmt.Fprintf(w, "· auto-dream: %d run(s), %d memories archived\n", bg.Dreams, bg.DreamArchived)
			if bg.DreamReport != "" {
				fmt.Fprintf(w, "· %s\n", bg.DreamReport)
			}
		}
	case o.format == "text" && len(bg.Denied) > 0:
		fmt.Fprintf(app.Err, "strata: warning: the memory extractor had %d tool call(s) denied (--verbose lists them)\n", len(bg.Denied))
	}
	if bg.LastError != "" && o.format == "text" {
		fmt.Fprintf(app.Err, "strata: warning: background memory work: %s\n", bg.LastError)
	}
}

// streamLine is one line of --output-format stream-json; "type" says which fields are set.
type streamLine struct {
	Type       string          `json:"type"`
	Subtype    string          `json:"subtype,omitempty"`
	Turn       int             `json:"turn,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	Model      string          `json:"model,omitempty"`
	Cwd        string          `json:"cwd,omitempty"`
	Tools      []string        `json:"tools,omitempty"`
	Transcript string          `json:"transcript,omitempty"`
	Text       string          `json:"text,omitempty"`
	ID         string          `json:"id,omitempty"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	IsError    *bool           `json:"is_error,omitempty"`
	Content    *string         `json:"content,omitempty"`
	Message    string          `json:"message,omitempty"`
	WaitMs     *int64          `json:"wait_ms,omitempty"`
	Error      string          `json:"error,omitempty"`
	// Background is set on the "background" line, after the result.
	Background *agent.BackgroundStats `json:"background,omitempty"`
	Usage      *llm.Usage             `json:"usage,omitempty"`
	Memories   []string               `json:"memories,omitempty"`
	Source     string                 `json:"source,omitempty"`
	Bytes      int                    `json:"bytes,omitempty"`
}

// streamEvent writes one stream-json line for an agent event.
func streamEvent(emit func(any), e agent.Event) {
	l := streamLine{Turn: e.Turn}
	switch e.Kind {
	case agent.EventText:
		l.Type, l.Text = "text_delta", e.Text
	case agent.EventThinking:
		l.Type, l.Text = "thinking_delta", e.Text
	case agent.EventAssistant:
		if e.Text == "" {
			return
		}
		l.Type, l.Text = "assistant", e.Text
	case agent.EventToolStart:
		l.Type, l.ID, l.Name, l.Input = "tool_use", e.Tool.ID, e.Tool.Name, e.Tool.Input
	case agent.EventToolEnd:
		l.Type, l.ToolUseID, l.Name, l.IsError, l.Content = "tool_result", e.Tool.ID, e.Tool.Name, &e.IsError, &e.Output
	case agent.EventPermission:
		l.Type, l.ToolUseID, l.Name, l.Input, l.Message = "permission_denied", e.Tool.ID, e.Tool.Name, e.Tool.Input, e.Text
	case agent.EventRetry:
		ms := e.Wait.Milliseconds()
		l.Type, l.WaitMs, l.Error = "retry", &ms, errString(e.Err)
	case agent.EventUsage:
		l.Type, l.Usage = "usage", &e.Usage
	case agent.EventRecall:
		if e.Err == nil && len(e.Memories) == 0 {
			return
		}
		l.Type, l.Memories, l.Error = "recall", e.Memories, errString(e.Err)
	case agent.EventAttachment:
		l.Type, l.Source, l.Bytes = "attachment", e.Source, len(e.Text)
	case agent.EventCompact:
		l.Type, l.Message = "compact", e.Text
	default:
		return
	}
	emit(l)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// verboseEvent prints tool activity for --verbose text runs.
func verboseEvent(w io.Writer, e agent.Event) {
	switch e.Kind {
	case agent.EventToolStart:
		fmt.Fprintf(w, "· %s %s\n", e.Tool.Name, oneLineJSON(e.Tool.Input, 120))
	case agent.EventToolEnd:
		if e.IsError {
			fmt.Fprintf(w, "  ✗ %s\n", firstLine(e.Output, 160))
		}
	case agent.EventPermission:
		fmt.Fprintf(w, "· %s denied: %s\n", e.Tool.Name, firstLine(e.Text, 160))
	case agent.EventRetry:
		fmt.Fprintf(w, "· retrying in %s: %v\n", e.Wait.Round(1e6), e.Err)
	case agent.EventRecall:
		if len(e.Memories) > 0 {
			fmt.Fprintf(w, "· recalled %s\n", strings.Join(e.Memories, ", "))
		}
	case agent.EventCompact:
		fmt.Fprintf(w, "· %s\n", e.Text)
	}
}

func oneLineJSON(raw json.RawMessage, n int) string { return firstLine(string(raw), n) }

func firstLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
