package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/workspace"
)

type contextOptions struct {
	cwd   string
	touch []string
	json  bool
}

func newContextCmd(app *App) *cobra.Command {
	var o contextOptions
	c := &cobra.Command{
		Use:   "context",
		Short: "Show the instructions a model would see here, from where and why",
		Long: `Show what a model would be given at session start in a directory: every instruction file
(managed, user, CLAUDE.md, .claude/CLAUDE.md, .claude/rules, AGENTS.md, CLAUDE.local.md from the
filesystem root down), their @imports, and the auto-memory index, in load order (lowest priority
first), each piece headed by its origin. --touch adds what accessing a file would bring in:
conditional rules whose paths match it and instruction files of directories below.`,
		Example: `  strata context
  strata context --cwd ./service --touch src/api/handler.go
  strata context --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runContext(c.Context(), app, o) },
	}
	c.Flags().StringVar(&o.cwd, "cwd", "", "working directory of the session (default: the current directory)")
	c.Flags().StringArrayVar(&o.touch, "touch", nil, "a path the session accesses (relative to --cwd); repeatable")
	c.Flags().BoolVar(&o.json, "json", false, `print {"sources":[…],"diagnostics":[…],"tokens":N}`)
	return c
}

// loadInstructions opens the workspace of the --cwd directory and loads its instruction set,
// the settings problems first among its diagnostics; with index, the auto-memory index (when
// auto-memory is on) is its last session-start piece. A directory that cannot be listed fails
// the command: what it would show is not what a session there would load.
func loadInstructions(ctx context.Context, app *App, cwdFlag string, index bool) (*instructions.Set, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	dir, err := app.workDir(cwdFlag)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if err := readableDir(dir); err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	ws, err := openWorkspace(ctx, app, dir, "")
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	set, err := ws.Instructions(ctx, workspace.SetOptions{NoIndex: !index, SettingsDiagnostics: true})
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return set, nil
}

// contextJSON is the --json shape of strata context.
type contextJSON struct {
	Sources     []instructions.Source     `json:"sources"`
	Diagnostics []instructions.Diagnostic `json:"diagnostics"`
	Tokens      int                       `json:"tokens"`
}

func runContext(ctx context.Context, app *App, o contextOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	set, err := loadInstructions(ctx, app, o.cwd, true)
	if err != nil {
		return err
	}
	startCount := len(set.Sources())
	added := 0
	for _, t := range o.touch {
		added += len(set.Touch(ctx, t))
	}
	startCount -= countEnforced(set.Sources()) // enforced repeats stay last, after touched pieces
	srcs := set.Sources()
	diags := set.Diagnostics()
	if o.json {
		out := contextJSON{Sources: srcs, Diagnostics: diags, Tokens: set.Tokens()}
		if out.Sources == nil {
			out.Sources = []instructions.Source{}
		}
		if out.Diagnostics == nil {
			out.Diagnostics = []instructions.Diagnostic{}
		}
		return writeJSON(app.Out, out)
	}
	w := app.Out
	if len(srcs) == 0 {
		fmt.Fprintf(w, "No instruction files apply to %s.\n", termtext.Line(set.Cwd()))
		fmt.Fprintf(w, "Looked for %s in every directory from / down to it, in $STRATA_HOME (%s) and in $STRATA_MANAGED_DIR (%s).\n",
			"CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md, AGENTS.md and CLAUDE.local.md", termtext.Line(app.Env.Home), termtext.Line(app.Env.ManagedDir))
		printInstructionDiags(w, diags)
		return nil
	}
	// Paths, touches and instruction text come from the file system and the repository: each
	// is made safe for the terminal (the --json output above keeps their bytes).
	fmt.Fprintf(w, "Instructions for %s (project root %s), in load order, lowest priority first:\n\n", termtext.Line(set.Cwd()), termtext.Line(set.ProjectRoot()))
	fmt.Fprintf(w, "  %3s  %-8s %-17s %7s  %s\n", "#", "layer", "reason", "tokens", "path")
	for i, s := range srcs {
		if i == startCount && added > 0 {
			fmt.Fprintf(w, "  -- added by touching %s:\n", termtext.Line(strings.Join(o.touch, ", ")))
		}
		note := ""
		switch {
		case s.Enforced:
			note = "  (enforced blocks, repeated last)"
		case s.ImportedBy != "":
			note = "  (imported by " + termtext.Line(s.ImportedBy) + ")"
		case s.Store != "":
			note = "  (memory store " + termtext.Line(s.Store) + ")"
		}
		if s.Truncated {
			note += "  [truncated]"
		}
		fmt.Fprintf(w, "  %3d  %-8s %-17s %7d  %s%s\n", i+1, s.Layer, s.Reason, s.Tokens, termtext.Line(s.Path), note)
	}
	if len(o.touch) > 0 && added == 0 {
		fmt.Fprintf(w, "  -- touching %s adds nothing.\n", termtext.Line(strings.Join(o.touch, ", ")))
	}
	fmt.Fprintf(w, "\nTotal: %d %s, about %d tokens.\n", len(srcs), ctxPlural(len(srcs), "piece", "pieces"), set.Tokens())
	printInstructionDiags(w, diags)
	fmt.Fprintf(w, "\nWhat the model sees:\n\n")
	io.WriteString(w, termtext.Clean(instructions.RenderSources(srcs)))
	return nil
}

// readableDir fails, naming dir, when dir cannot be opened and listed.
func readableDir(dir string) error {
	f, err := os.Open(dir)
	if err == nil {
		defer f.Close()
		if _, err = f.Readdirnames(1); err == io.EOF {
			err = nil
		}
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err // the path is said once, below
	}
	if err != nil {
		return fmt.Errorf("--cwd %s: cannot be read: %w", dir, err)
	}
	return nil
}

// printInstructionDiags prints diags one a line; they quote settings keys, file names and
// values strata did not write, so each line is made safe for the terminal.
func printInstructionDiags(w io.Writer, diags []instructions.Diagnostic) {
	if len(diags) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDiagnostics (%d):\n", len(diags))
	for _, d := range diags {
		fmt.Fprintf(w, "  %s\n", termtext.Line(d.String()))
	}
}

func countEnforced(srcs []instructions.Source) int {
	n := 0
	for _, s := range srcs {
		if s.Enforced {
			n++
		}
	}
	return n
}

func ctxPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
