package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/transcript"
)

// cmdCtx is the command's context, or Background when it has none.
func cmdCtx(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// sessionsProjectDir is the transcript directory of the working directory (--cwd or the
// process's): $STRATA_HOME/projects/<slug of cwd>. A --cwd that does not exist on this machine
// (sessions copied from another, a deleted checkout) is slugged all the same.
func sessionsProjectDir(app *App, cwdFlag string) (string, error) {
	cwd, err := app.workDir(cwdFlag)
	if err != nil {
		if _, serr := os.Stat(cwdFlag); cwdFlag == "" || !errors.Is(serr, fs.ErrNotExist) {
			return "", err
		}
		if cwd, err = absPath(cwdFlag); err != nil {
			return "", err
		}
	}
	return transcript.ProjectDir(app.Env, cwd), nil
}

func newSessionsListCmd(app *App) *cobra.Command {
	var all, asJSON bool
	var cwd string
	c := &cobra.Command{
		Use:   "list",
		Short: "List this project's sessions, newest first",
		Long: `List the sessions started in this directory, newest first: id, last activity, size, git branch
and title, as Claude Code's resume list shows it (custom title, AI title, a summary of this
session, else the first prompt or the slash command it began with). Only the first and last
64 KB of each transcript are read (the rest only to check that a summary is this session's).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return sessionsList(cmdCtx(c), app, cwd, all, asJSON) },
	}
	c.Flags().BoolVar(&all, "all", false, "list the sessions of every project")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&cwd, "cwd", "", "act as if run in this directory (selects the project)")
	return c
}

func sessionsList(ctx context.Context, app *App, cwdFlag string, all, asJSON bool) error {
	var infos []transcript.Info
	var err error
	if all {
		infos, err = transcript.ListAll(ctx, app.Env.ProjectsDir(), transcript.ListOptions{Index: listIndexPath(app.Env.ProjectsDir())})
	} else {
		dir, derr := sessionsProjectDir(app, cwdFlag)
		if derr != nil {
			return derr
		}
		infos, err = transcript.List(ctx, dir, transcript.ListOptions{Index: listIndexPath(dir)})
	}
	if err != nil {
		if infos == nil && !isPartial(err) {
			return err
		}
		warnEach(app, err)
	}
	if asJSON {
		if infos == nil {
			infos = []transcript.Info{}
		}
		return writeJSON(app.Out, infos)
	}
	if len(infos) == 0 {
		fmt.Fprintln(app.Err, "no sessions")
		return nil
	}
	// One write for the table (writeMemoryTable builds it whole): a thousand sessions made ten
	// thousand writes with one per cell. Cells are measured by display width and made safe
	// for the terminal there.
	head := []string{"ID", "LAST ACTIVITY", "SIZE", "BRANCH", "TITLE"}
	if all {
		head = []string{"ID", "LAST ACTIVITY", "SIZE", "BRANCH", "PROJECT", "TITLE"}
	}
	rows := make([][]string, 0, len(infos)+1)
	rows = append(rows, head)
	for _, i := range infos {
		row := []string{i.ID, i.LastActivity.Local().Format("2006-01-02 15:04"), humanSize(i.Size), dash(i.Branch)}
		if all {
			row = append(row, dash(firstNonEmpty(i.CWD, i.Project)))
		}
		row = append(row, dash(shortenCols(i.Label(), 80)))
		rows = append(rows, row)
	}
	return writeMemoryTable(app.Out, rows)
}

// shortenCols is transcript.Shorten by display width: whitespace collapsed, then cut to at
// most cols columns (termtext.Truncate), so a Chinese title is no wider than a Latin one.
func shortenCols(s string, cols int) string {
	return termtext.Truncate(transcript.Shorten(s, len(s)+1), cols)
}

// listIndexPath is where listing keeps its index for the listing of dir: in the user's cache
// directory (never under STRATA_HOME, so listing a Claude Code installation writes nothing
// there), one file per listed directory. "" (no index) when there is no cache directory.
func listIndexPath(dir string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(cache, "strata", "sessions", hex.EncodeToString(sum[:8])+".gob")
}

// isPartial reports whether err is a joined list of per-file errors (listing still returned
// the other files).
func isPartial(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}

// warnEach prints each error joined in err as a warning.
func warnEach(app *App, err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			warnEach(app, e)
		}
		return
	}
	fmt.Fprintf(app.Err, "strata: warning: %v\n", err)
}

func newSessionsShowCmd(app *App) *cobra.Command {
	var asJSON bool
	var cwd string
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session's conversation, rebuilt from its transcript",
		Long: `Show the conversation of a session as strata rebuilds it on resume: the chain of messages from
the newest leaf back along parentUuid, across compact boundaries, with the whole history read.
ID may be any unique prefix of a session id (this project is searched first, then all), or
the path of a .jsonl transcript.
Skipped lines and breaks in the chain are reported on stderr.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return sessionsShow(cmdCtx(c), app, cwd, args[0], asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&cwd, "cwd", "", "act as if run in this directory (selects the project)")
	return c
}

// loadSession finds the session id names (or reads the .jsonl file it names) and loads its
// whole history.
func loadSession(ctx context.Context, app *App, cwdFlag, id string) (*transcript.Session, error) {
	if strings.HasSuffix(id, ".jsonl") {
		if st, err := os.Stat(id); err == nil && st.Mode().IsRegular() {
			return transcript.Load(ctx, id, transcript.ReadOptions{Full: true})
		}
	}
	dir, err := sessionsProjectDir(app, cwdFlag)
	if err != nil {
		return nil, err
	}
	path, err := transcript.Find(app.Env.ProjectsDir(), dir, id)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return transcript.Load(ctx, path, transcript.ReadOptions{Full: true})
}

// showEntry is one chain entry in `sessions show --json`.
type showEntry struct {
	Line             int             `json:"line"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid,omitempty"`
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype,omitempty"`
	Timestamp        time.Time       `json:"timestamp,omitzero"`
	IsSidechain      bool            `json:"isSidechain,omitempty"`
	IsMeta           bool            `json:"isMeta,omitempty"`
	IsCompactSummary bool            `json:"isCompactSummary,omitempty"`
	Message          json.RawMessage `json:"message,omitempty"`
	Content          json.RawMessage `json:"content,omitempty"`
}

type showJSON struct {
	ID       string               `json:"id"`
	Path     string               `json:"path"`
	Title    string               `json:"title,omitempty"`
	Tag      string               `json:"tag,omitempty"`
	Boundary int                  `json:"lastCompactBoundary"`
	Entries  []showEntry          `json:"entries"`
	Problems []transcript.Problem `json:"problems"`
	Repairs  []showRepair         `json:"repairs"`
}

// showRepair is a change a resume makes so that the request is valid (Session.RequestFixes).
type showRepair struct {
	Line      int    `json:"line,omitempty"`
	Kind      string `json:"kind"`
	ToolUseID string `json:"toolUseId,omitempty"`
	Text      string `json:"text"`
}

func sessionsShow(ctx context.Context, app *App, cwdFlag, id string, asJSON bool) error {
	s, err := loadSession(ctx, app, cwdFlag, id)
	if err != nil {
		return err
	}
	problems := showProblems(s)
	title := s.Title()
	if asJSON {
		out := showJSON{ID: s.ID, Path: s.File.Path, Title: title, Tag: s.Meta.Tag, Boundary: s.Boundary,
			Entries: []showEntry{}, Problems: problems}
		if out.Problems == nil {
			out.Problems = []transcript.Problem{}
		}
		out.Repairs = []showRepair{}
		for _, f := range s.RequestFixes() {
			out.Repairs = append(out.Repairs, showRepair{Line: f.Line, Kind: string(f.Kind), ToolUseID: f.ToolUseID, Text: f.String()})
		}
		for _, e := range s.Chain {
			out.Entries = append(out.Entries, showEntry{Line: e.Line, UUID: e.UUID, ParentUUID: e.ParentUUID, Type: e.Type,
				Subtype: e.Subtype, Timestamp: e.Timestamp, IsSidechain: e.IsSidechain, IsMeta: e.IsMeta,
				IsCompactSummary: e.IsCompactSummary, Message: e.Message, Content: e.Content})
		}
		return writeJSON(app.Out, out)
	}
	for _, p := range transcript.ProblemLines(problems, transcript.ShownProblems) {
		fmt.Fprintf(app.Err, "strata: %s: %s\n", termtext.Line(s.File.Path), termtext.Line(p))
	}
	w := app.Out
	fmt.Fprintf(w, "session %s\n", termtext.Line(s.ID))
	if t := title; t != "" {
		fmt.Fprintf(w, "title   %s\n", termtext.Line(t))
	}
	fmt.Fprintf(w, "file    %s\n", termtext.Line(s.File.Path))
	if len(s.Chain) > 0 && s.Chain[0].CWD != "" {
		fmt.Fprintf(w, "cwd     %s\n", termtext.Line(s.Chain[0].CWD))
	}
	if b := sessionBranch(s); b != "" {
		fmt.Fprintf(w, "branch  %s\n", termtext.Line(b))
	}
	fmt.Fprintf(w, "%d entries in the conversation, %d lines in the file\n", len(s.Chain), s.File.Lines)
	for _, f := range s.RequestFixes() {
		fmt.Fprintf(w, "repair  %s\n", termtext.Line(f.String()))
	}
	for _, e := range s.Chain {
		printShowEntry(w, e)
	}
	return nil
}

// showProblems are the problems show and export report. A subagent's transcript begins under
// an entry of its parent session's file (a compaction agent's does): that parent is missing
// from this file by design, not a break in the chain.
func showProblems(s *transcript.Session) []transcript.Problem {
	if !s.IsSubagent() || len(s.Chain) == 0 {
		return s.Problems
	}
	first := s.Chain[0]
	var out []transcript.Problem
	for _, p := range s.Problems {
		if !p.Skipped && p.UUID == first.UUID && first.ParentUUID != "" && strings.Contains(p.Reason, first.ParentUUID) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// sessionBranch is the git branch of the newest chain entry that names one.
func sessionBranch(s *transcript.Session) string {
	for i := len(s.Chain) - 1; i >= 0; i-- {
		if b := s.Chain[i].GitBranch; b != "" {
			return b
		}
	}
	return ""
}

// printShowEntry prints one chain entry. Text strata did not write goes through termtext:
// escape sequences in tool output must not recolour or retitle the user's terminal.
func printShowEntry(w io.Writer, e *transcript.Entry) {
	when := ""
	if !e.Timestamp.IsZero() {
		when = " · " + e.Timestamp.Local().Format("2006-01-02 15:04:05")
	}
	switch {
	case e.IsCompactBoundary():
		fmt.Fprintf(w, "\n══ conversation compacted%s ══\n", when)
		return
	case e.Type == transcript.TypeUser || e.Type == transcript.TypeAssistant:
	case e.Type == transcript.TypeSystem:
		var text string
		if json.Unmarshal(e.Content, &text) == nil && text != "" {
			fmt.Fprintf(w, "\n── system%s\n%s\n", when, indent(termtext.Line(transcript.Shorten(text, 300))))
		}
		return
	default:
		return // progress and attachments: not part of what was said
	}
	m, ok, err := e.DecodeMessage()
	if err != nil || !ok {
		return
	}
	label := e.Type
	switch {
	case e.IsCompactSummary:
		label = "summary"
	case e.IsMeta:
		label += " (meta)"
	case e.IsSidechain:
		label += " (sidechain)"
	}
	fmt.Fprintf(w, "\n── %s%s\n", label, when)
	for _, b := range m.Content {
		switch b.Type {
		case conversation.Text:
			if t := strings.TrimSpace(termtext.Clean(b.Text)); t != "" {
				fmt.Fprintln(w, indent(t))
			}
		case conversation.Thinking:
			if t := strings.TrimSpace(b.Thinking); t != "" {
				fmt.Fprintf(w, "  [thinking: %s]\n", termtext.Line(transcript.Shorten(t, 100)))
			}
		case conversation.ToolUse:
			fmt.Fprintf(w, "  [tool %s %s]\n", termtext.Line(b.Name), termtext.Line(transcript.Shorten(string(b.Input), 160)))
		case conversation.ToolResult:
			status := "result"
			if b.IsError {
				status = "error"
			}
			text := conversation.Message{Content: b.Content}.TextOf()
			fmt.Fprintf(w, "  [%s: %s]\n", status, termtext.Line(transcript.Shorten(text, 160)))
		case conversation.Image:
			fmt.Fprintln(w, "  [image]")
		default:
			fmt.Fprintf(w, "  [%s]\n", termtext.Line(string(b.Type)))
		}
	}
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

func newSessionsExportCmd(app *App) *cobra.Command {
	var format, output, cwd string
	c := &cobra.Command{
		Use:   "export ID --format md|jsonl",
		Short: "Export a session's conversation as markdown or JSONL",
		Long: `Export the rebuilt conversation of a session. md is a readable document; jsonl is the chain's
lines exactly as they are in the transcript (oldest first), followed by the session's latest
metadata lines, so the result is itself a valid transcript. ID may be a unique prefix.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "md" && format != "jsonl" {
				return usagef("--format must be md or jsonl, not %q", format)
			}
			return sessionsExport(cmdCtx(c), app, cwd, args[0], format, output)
		},
	}
	c.Flags().StringVar(&format, "format", "md", "md or jsonl")
	c.Flags().StringVarP(&output, "output", "o", "", "write to this file (atomically; a regular file or none, - for stdout) instead of stdout")
	c.Flags().StringVar(&cwd, "cwd", "", "act as if run in this directory (selects the project)")
	return c
}

func sessionsExport(ctx context.Context, app *App, cwdFlag, id, format, output string) error {
	s, err := loadSession(ctx, app, cwdFlag, id)
	if err != nil {
		return err
	}
	for _, p := range transcript.ProblemLines(showProblems(s), transcript.ShownProblems) {
		fmt.Fprintf(app.Err, "strata: %s: %s\n", termtext.Line(s.File.Path), termtext.Line(p))
	}
	var b strings.Builder
	switch format {
	case "md":
		if err := transcript.WriteMarkdown(&b, s); err != nil {
			return err
		}
	case "jsonl":
		for _, e := range s.Lines() { // the chain with the progress lines it passes through
			b.Write(e.Raw)
			b.WriteByte('\n')
		}
		for _, e := range s.Meta.List() {
			b.Write(e.Raw)
			b.WriteByte('\n')
		}
	}
	file, err := writeOutput(app.Out, output, []byte(b.String()))
	if err != nil {
		return err
	}
	if file {
		fmt.Fprintf(app.Err, "wrote %s (%s)\n", output, humanSize(int64(b.Len())))
	}
	return nil
}

func newSessionsSearchCmd(app *App) *cobra.Command {
	var all, asJSON bool
	var limit int
	var cwd string
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the text of this project's transcripts",
		Long: `Search user and assistant messages (text and tool results), summaries and titles for QUERY,
ignoring case, in the sessions and their subagents (Claude Code 2.1's <session>/subagents/,
2.0's agent-*.jsonl files, 1.x's inline sidechains). Each hit shows the session, the time and a
snippet. Exits 1 when nothing matches.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return usagef("empty query")
			}
			return sessionsSearch(cmdCtx(c), app, cwd, args[0], all, asJSON, limit)
		},
	}
	c.Flags().BoolVar(&all, "all", false, "search the sessions of every project")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().IntVar(&limit, "limit", 100, "stop after this many hits (0: no limit)")
	c.Flags().StringVar(&cwd, "cwd", "", "act as if run in this directory (selects the project)")
	return c
}

func sessionsSearch(ctx context.Context, app *App, cwdFlag, query string, all, asJSON bool, limit int) error {
	var infos []transcript.Info
	var err error
	if all {
		infos, err = transcript.ListAll(ctx, app.Env.ProjectsDir(), transcript.ListOptions{})
	} else {
		dir, derr := sessionsProjectDir(app, cwdFlag)
		if derr != nil {
			return derr
		}
		infos, err = transcript.List(ctx, dir, transcript.ListOptions{})
	}
	if err != nil {
		warnEach(app, err)
	}
	sessions := make([]string, len(infos))
	for i, info := range infos {
		sessions[i] = info.Path
	}
	// Subagents in every layout: 2.1's <session>/subagents/, 2.0's agent-*.jsonl beside the
	// sessions, 1.x's inline sidechain lines (in the session files themselves).
	paths, err := transcript.WithSubagents(sessions)
	if err != nil {
		warnEach(app, err)
	}
	hits, err := transcript.Search(ctx, paths, query, transcript.SearchOptions{Limit: limit})
	if err != nil {
		return err
	}
	if asJSON {
		if hits == nil {
			hits = []transcript.Hit{}
		}
		if err := writeJSON(app.Out, hits); err != nil {
			return err
		}
	} else {
		for _, h := range hits {
			when := "-"
			if !h.Time.IsZero() {
				when = h.Time.Local().Format("2006-01-02 15:04")
			}
			who := h.Type
			switch {
			case h.AgentID != "":
				who = "agent " + h.AgentID + " " + h.Type
			case h.Sidechain:
				who = "sidechain " + h.Type
			}
			fmt.Fprintf(app.Out, "%s  %s  %s: %s\n", termtext.Line(h.SessionID), when, termtext.Line(who), termtext.Line(h.Snippet))
		}
	}
	if len(hits) == 0 {
		fmt.Fprintf(app.Err, "no match for %q in %d sessions\n", query, len(sessions))
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

func newSessionsArchiveCmd(app *App) *cobra.Command {
	var olderThan, to, cwd string
	var yes, asJSON bool
	c := &cobra.Command{
		Use:   "archive",
		Short: "Move old transcripts to an archive directory (a dry run unless --yes)",
		Long: `Move transcripts not written to for longer than --older-than (default: the cleanupPeriodDays
setting, else 30d) out of $STRATA_HOME/projects into --to (default $STRATA_HOME/archive/projects),
keeping each project's directory. A session's subagent directory moves with it. Nothing is
deleted; sessions being written by a running strata are skipped. Without --yes nothing moves:
the command only says what it would move.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			age, err := archiveAge(app, cwd, olderThan)
			if err != nil {
				return err
			}
			return sessionsArchive(cmdCtx(c), app, age, to, yes, asJSON)
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "age such as 30d, 2w or 12h (default: cleanupPeriodDays, else 30d)")
	c.Flags().StringVar(&to, "to", "", "archive directory (default $STRATA_HOME/archive/projects)")
	c.Flags().BoolVar(&yes, "yes", false, "really move the files")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&cwd, "cwd", "", "read project settings from this directory")
	return c
}

// archiveAge returns --older-than, else the cleanupPeriodDays setting, else 30 days.
func archiveAge(app *App, cwdFlag, flag string) (time.Duration, error) {
	if flag != "" {
		d, err := parseAge(flag)
		if err != nil {
			return 0, usagef("--older-than: %v", err)
		}
		return d, nil
	}
	ws, err := openWorkspace(context.Background(), app, cwdFlag, "")
	if err != nil {
		return 0, err
	}
	warnSettings(app, ws)
	if d := ws.CleanupPeriod(); d > 0 {
		return d, nil
	}
	return 30 * 24 * time.Hour, nil
}

// parseAge accepts Go durations plus days (30d) and weeks (2w).
func parseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || !(v > 0) {
				return 0, fmt.Errorf("invalid age %q", s)
			}
			if v*float64(unit) >= math.MaxInt64 {
				return 0, fmt.Errorf("age %q is too long (at most %dd, about 292 years)", s, math.MaxInt64/int64(24*time.Hour))
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid age %q (use e.g. 30d, 2w, 12h)", s)
	}
	return d, nil
}

// ageText writes an age as --older-than takes it: whole days as "30d", else a Go duration
// without zero units ("36h", not "36h0m0s").
func ageText(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func sessionsArchive(ctx context.Context, app *App, age time.Duration, to string, yes, asJSON bool) error {
	if to != "" {
		abs, err := absPath(to)
		if err != nil {
			return err
		}
		to = abs
	} else {
		to = transcript.DefaultArchiveDir(app.Env.ProjectsDir())
	}
	opts := transcript.ArchiveOptions{OlderThan: age, To: to, Apply: yes, Now: app.Now}
	moves, err := transcript.Archive(ctx, app.Env.ProjectsDir(), opts)
	if asJSON {
		if moves == nil {
			moves = []transcript.Move{}
		}
		if jerr := writeJSON(app.Out, struct {
			DryRun bool              `json:"dryRun"`
			To     string            `json:"to"`
			Moves  []transcript.Move `json:"moves"`
		}{!yes, to, moves}); jerr != nil {
			return jerr
		}
	} else {
		var total int64
		n := 0
		for _, m := range moves {
			switch {
			case m.Err != "":
				fmt.Fprintf(app.Out, "not moved  %s: %s\n", m.From, m.Err)
			case m.Moved:
				fmt.Fprintf(app.Out, "moved      %s -> %s\n", m.From, m.To)
			default:
				fmt.Fprintf(app.Out, "would move %s -> %s\n", m.From, m.To)
			}
			if m.Err == "" {
				total += m.Size
				n++
			}
		}
		switch {
		case len(moves) == 0:
			fmt.Fprintf(app.Out, "no transcript older than %s\n", ageText(age))
		case yes:
			fmt.Fprintf(app.Out, "moved %d sessions (%s) to %s\n", n, humanSize(total), to)
		default:
			fmt.Fprintf(app.Out, "dry run: %d sessions (%s) would move to %s; run with --yes to move them\n", n, humanSize(total), to)
		}
	}
	if err != nil {
		if !asJSON {
			fmt.Fprintf(app.Err, "strata: %v\n", err)
		}
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
