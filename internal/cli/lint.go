package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/termtext"
)

type lintOptions struct {
	cwd  string
	json bool
}

func newLintCmd(app *App) *cobra.Command {
	var o lintOptions
	c := &cobra.Command{
		Use:   "lint",
		Short: "Report every problem in the instruction files that apply here",
		Long: `Check every instruction file that could apply in a directory: the session-start files, every
conditional rule, and the instruction files of the directories below, hidden ones included
(.git, node_modules and gitignored directories skipped). Prints each diagnostic with its path
and line.

Errors (exit 1): an unresolved, refused or cyclic import, an import deeper than 5 hops, malformed
frontmatter, a paths: glob that does not parse, an unreadable, binary or invalid-UTF-8 file.
Warnings: a file over 40,000 characters, a file cut at the size cap, text that repeats or
contradicts an enforced managed block, a glob import, a missing import that .gitignore leaves
out, a file named like an instruction file but for case (Claude.md), a line withheld as a
secret. Info: decisions worth knowing (a duplicate file skipped, a file excluded by
claudeMdExcludes, a directory named as an import).`,
		Example: `  strata lint
  strata lint --cwd ~/src/app --json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runLint(c.Context(), app, o) },
	}
	c.Flags().StringVar(&o.cwd, "cwd", "", "directory to check (default: the current directory)")
	c.Flags().BoolVar(&o.json, "json", false, `print {"diagnostics":[…],"files":N,"errors":N,"warnings":N}`)
	return c
}

// lintJSON is the --json shape of strata lint.
type lintJSON struct {
	Diagnostics []instructions.Diagnostic `json:"diagnostics"`
	Files       int                       `json:"files"`
	Errors      int                       `json:"errors"`
	Warnings    int                       `json:"warnings"`
}

func runLint(ctx context.Context, app *App, o lintOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	set, err := loadInstructions(ctx, app, o.cwd, false)
	if err != nil {
		return err
	}
	set.LoadAll(ctx, 0)
	diags := set.Lint(ctx)
	files := map[string]bool{}
	for _, s := range set.Sources() {
		files[s.Path] = true
	}
	out := lintJSON{Diagnostics: diags, Files: len(files)}
	if out.Diagnostics == nil {
		out.Diagnostics = []instructions.Diagnostic{}
	}
	for _, d := range diags {
		switch d.Severity {
		case instructions.SeverityError:
			out.Errors++
		case instructions.SeverityWarning:
			out.Warnings++
		}
	}
	if o.json {
		if err := writeJSON(app.Out, out); err != nil {
			return err
		}
	} else {
		for _, d := range diags {
			fmt.Fprintln(app.Out, termtext.Line(d.String())) // paths and @tokens come from the files
		}
		switch {
		case out.Files == 0 && len(diags) == 0:
			fmt.Fprintf(app.Out, "No instruction files found for %s; nothing to check.\n", set.Cwd())
		case out.Files == 0: // what is wrong is elsewhere, such as a settings file that does not parse
			fmt.Fprintf(app.Out, "No instruction files found for %s; %s, %s above.\n", set.Cwd(), count(out.Errors, "error"), count(out.Warnings, "warning"))
		case len(diags) == 0:
			fmt.Fprintf(app.Out, "No problems in %d instruction files.\n", out.Files)
		default:
			fmt.Fprintf(app.Out, "%s checked: %s, %s.\n", count(out.Files, "file"), count(out.Errors, "error"), count(out.Warnings, "warning"))
		}
	}
	if out.Errors > 0 {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}
