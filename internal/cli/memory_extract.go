package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/transcript"
)

// extractFlags are the flags of `strata memory extract`.
type extractFlags struct {
	session string
	cwd     string
	mode    string
	model   string
	asJSON  bool
}

func newMemoryExtractCmd(app *App) *cobra.Command {
	f := extractFlags{mode: "inbox"}
	c := &cobra.Command{
		Use:   "extract --session ID",
		Short: "Extract new memories from a finished session (into the inbox by default)",
		Long: `Run the memory extractor once over a session's transcript: a restricted fork of the
conversation, with the configured model, reads what the session said since the last
extraction of it and proposes what is worth remembering. Proposals go to the inbox
(strata memory inbox) unless --mode auto writes them live. A second run over the same session
reads only what was added since (after a compaction, all of it again).

The Claude Code hook runs it at SessionEnd, with STRATA_HOME set to Claude Code's directory,
so the session and the memory are Claude Code's own. Without a configured model it does
nothing and says how to configure one (strata status reports it too).`,
		Example: `  strata memory extract --session 0199a3f2
  strata memory extract --session 0199a3f2 --mode auto --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return memoryExtract(c, app, f) },
	}
	c.Flags().StringVar(&f.session, "session", "", "the session `ID` (or a unique prefix) to extract from")
	c.Flags().StringVar(&f.cwd, "cwd", "", "act as if run in this directory (selects the project)")
	c.Flags().StringVar(&f.mode, "mode", f.mode, "inbox: stage proposals for review; auto: write memories live")
	c.Flags().StringVar(&f.model, "model", "", "model to use (default: the configured one)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print what was done as JSON")
	return c
}

// extractReport is what `strata memory extract` did.
type extractReport struct {
	Session  string   `json:"session"`
	Mode     string   `json:"mode"`
	From     int      `json:"from"`     // the first message read
	Messages int      `json:"messages"` // the conversation's messages (the next run's from)
	Written  []string `json:"written"`  // memory files written or staged, relative to the memory dir
	Denied   []string `json:"denied,omitempty"`
	Note     string   `json:"note,omitempty"` // why nothing was read
}

func memoryExtract(c *cobra.Command, app *App, f extractFlags) error {
	ctx := cmdCtx(c)
	if f.session == "" {
		return usagef("--session is required: the session to extract from (strata sessions list)")
	}
	mode := extract.WriteConfirm
	switch f.mode {
	case "inbox", "confirm":
	case "auto":
		mode = extract.WriteAuto
	default:
		return usagef("--mode %q: use inbox or auto", f.mode)
	}
	ws, err := openWorkspace(ctx, app, f.cwd, "")
	if err != nil {
		return err
	}
	warnSettings(app, ws)
	if !ws.AutoMemory() {
		return &ExitError{Code: ExitFailure, Err: errors.New("auto-memory is off here (autoMemoryEnabled): there is no memory to extract into")}
	}
	if p, err := ws.Policy(); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	} else if !p.Extract {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("memory extraction is off here (memoryExtraction: %s)", ws.Settings().MemoryExtraction)}
	}
	env := ws.Env()
	path, err := transcript.Find(env.ProjectsDir(), transcript.ProjectDir(env, ws.Cwd()), f.session)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("session %s: %w", f.session, err)}
	}
	cfg, err := modelConfig(app, ws, f.model)
	if err != nil {
		return err
	}
	prov, err := llm.New(cfg)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}

	cur := extractCursorOf(env.CacheDir(), path)
	unlock, err := cur.lock(ctx)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer unlock()
	from, err := cur.from(path)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	a, err := agent.New(ctx, agent.Options{Provider: prov, Model: cfg.Model, Workspace: ws, Resume: transcript.SessionIDOf(path),
		NoTranscript: true, NoBackground: true, ContextWindow: cfg.ContextWindow, Version: version()})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer a.Close(ctx)
	n, res, err := a.Extract(ctx, mode, from.Messages)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("memory extraction from session %s: %w", transcript.SessionIDOf(path), err)}
	}
	r := extractReport{Session: transcript.SessionIDOf(path), Mode: f.mode, From: from.Messages, Messages: n, Written: res.Written, Denied: res.Denied}
	if r.Written == nil {
		r.Written = []string{}
	}
	if from.Messages > n {
		r.From = 0
	}
	if r.From == n {
		r.Note = "nothing new since the last extraction"
	}
	if err := cur.save(extractMark{Messages: n, Compactions: from.Compactions}); err != nil {
		fmt.Fprintf(app.Err, "strata: warning: %v (the next run reads the whole session again)\n", err)
	}
	if f.asJSON {
		return writeJSON(app.Out, r)
	}
	switch {
	case r.Note != "":
		fmt.Fprintf(app.Out, "session %s: %s\n", r.Session, r.Note)
	case len(r.Written) == 0:
		fmt.Fprintf(app.Out, "session %s: read messages %d-%d; nothing worth remembering\n", r.Session, r.From+1, n)
	case mode == extract.WriteConfirm:
		fmt.Fprintf(app.Out, "session %s: read messages %d-%d; proposed %s (review: strata memory inbox)\n", r.Session, r.From+1, n, strings.Join(r.Written, ", "))
	default:
		fmt.Fprintf(app.Out, "session %s: read messages %d-%d; saved %s\n", r.Session, r.From+1, n, strings.Join(r.Written, ", "))
	}
	for _, d := range r.Denied {
		fmt.Fprintf(app.Out, "  refused: %s\n", d)
	}
	return nil
}

// extractCursor remembers how far extraction has read a transcript: in the user's cache
// directory (never under STRATA_HOME, which may be Claude Code's), one file per transcript.
// Losing it costs a re-read, no memory: proposals still in the inbox are updated, not repeated.
type extractCursor struct{ file string }

// extractMark is what the cursor file holds: the messages read and the compactions the
// transcript had then (a compaction rewrites the messages: all of them are new again).
type extractMark struct {
	Messages    int `json:"messages"`
	Compactions int `json:"compactions"`
}

func extractCursorOf(cacheDir, transcriptPath string) extractCursor {
	if cacheDir == "" {
		return extractCursor{}
	}
	sum := sha256.Sum256([]byte(transcriptPath))
	return extractCursor{filepath.Join(cacheDir, "strata", "extract", hex.EncodeToString(sum[:8])+".json")}
}

// compactions counts the compaction boundaries in the transcript at path.
func compactions(path string) (int, error) {
	data, err := os.ReadFile(path)
	return bytes.Count(data, []byte(`"`+transcript.SubtypeCompactBoundary+`"`)), err
}

// from returns where the next extraction starts, with the transcript's compactions now: 0
// with no cursor, or when the transcript has been compacted since.
func (c extractCursor) from(path string) (extractMark, error) {
	n, err := compactions(path)
	if err != nil {
		return extractMark{}, err
	}
	if c.file == "" {
		return extractMark{Compactions: n}, nil
	}
	var m extractMark
	if data, err := os.ReadFile(c.file); err == nil && json.Unmarshal(data, &m) == nil && m.Compactions == n {
		return m, nil
	}
	return extractMark{Compactions: n}, nil
}

// save records m: the messages read, and the compactions the transcript had when it was
// read (one made while the extraction ran makes the next run read all again).
func (c extractCursor) save(m extractMark) error {
	if c.file == "" {
		return nil
	}
	data, _ := json.Marshal(m)
	return fsutil.WriteFile(c.file, data, 0o600)
}

// lock keeps a second extraction of the same transcript from running at once (two SessionEnd
// hooks of one session); the kernel lets go of a killed run's lock.
func (c extractCursor) lock(ctx context.Context) (func() error, error) {
	if c.file == "" {
		return func() error { return nil }, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	unlock, err := fsutil.Lock(ctx, c.file+".lock")
	if err != nil {
		return nil, errors.New("an extraction of this session is already running")
	}
	return unlock, nil
}
