package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
)

type benchContextOptions struct {
	runs int
	json bool
}

func newBenchContextCmd(app *App) *cobra.Command {
	var o benchContextOptions
	c := &cobra.Command{
		Use:   "context",
		Short: "Time the instruction loader on a synthetic repository",
		Long: `Build a synthetic repository in a temporary directory (an 8-level directory chain with a
CLAUDE.md at each level, each importing a 2 KB fragment, plus 2,000 sibling directories with no
instruction file), then time:

  load   a session-start load in the deepest directory (walk up, read, resolve imports, scan
         for secrets as a session does)
  touch  a touch of a deep file when nothing new applies

and print the median, 90th percentile and minimum over --runs calls (touches: 10× as many).
Targets: load under 300 µs, touch under 20 µs. The temporary directory is removed afterwards.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchContext(c.Context(), app, o) },
	}
	c.Flags().IntVar(&o.runs, "runs", 2000, "number of timed loads")
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	return c
}

func runBenchContext(ctx context.Context, app *App, o benchContextOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	out, err := bench.Context(ctx, o.runs)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, out)
	}
	fmt.Fprintf(app.Out, "synthetic repo: %d-level chain, a CLAUDE.md importing a 2 KB fragment at each level, %d sibling dirs\n", out.Levels, out.Siblings)
	fmt.Fprintf(app.Out, "loaded: %d pieces, about %d tokens\n\n", out.Pieces, out.Tokens)
	fmt.Fprintf(app.Out, "%-28s %10s %10s %10s %10s\n", "", "median µs", "p90 µs", "min µs", "target µs")
	for _, r := range []struct {
		name string
		s    bench.ContextStats
	}{{"session-start load", out.Load}, {"touch, nothing new applies", out.Touch}} {
		fmt.Fprintf(app.Out, "%-28s %10.1f %10.1f %10.1f %10.0f\n", r.name, r.s.Median, r.s.P90, r.s.Min, r.s.Target)
	}
	return nil
}
