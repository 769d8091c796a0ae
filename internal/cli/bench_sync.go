package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
)

type benchSyncOptions struct {
	memories, changed, runs int
	json                    bool
}

func newBenchSyncCmd(app *App) *cobra.Command {
	var o benchSyncOptions
	c := &cobra.Command{
		Use:   "sync",
		Short: "Measure strata memory sync on a large store changed on two clones",
		Long: `Make a bare git repository and two clones of a store of --memories synthetic memories (half
English, half Chinese) in a temporary directory, then, --runs times, change --changed memories
on each clone (different ones) and time the syncs until both hold both sets of changes:

  push_ms   the first clone commits its changes and pushes
  merge_ms  the second commits its own, merges the first's memory by memory and pushes
  pull_ms   the first takes the second's (a fast-forward)
  both_sides_ms  the three together

Figures are medians over the runs. setup_ms is the first sync of the whole store. Needs git.
The directory is removed afterwards.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchSync(c.Context(), app, o) },
	}
	c.Flags().IntVar(&o.memories, "memories", 10_000, "memories in the store")
	c.Flags().IntVar(&o.changed, "changed", 100, "memories changed on each clone per run")
	c.Flags().IntVar(&o.runs, "runs", 5, "timed runs")
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	return c
}

func runBenchSync(ctx context.Context, app *App, o benchSyncOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.memories <= 0 || o.changed <= 0 || o.runs <= 0 {
		return usagef("--memories, --changed and --runs must be positive")
	}
	rep, err := bench.SyncSpeed(ctx, bench.SyncOptions{Memories: o.memories, Changed: o.changed, Runs: o.runs})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "store: %d memories, %d changed on each of two clones, median of %d runs\n", rep.Memories, rep.Changed, rep.Runs)
	fmt.Fprintf(app.Out, "setup_ms       %10.1f  (first sync of the whole store)\n", rep.SetupMS)
	fmt.Fprintf(app.Out, "push_ms        %10.1f  (clone A: commit, push)\n", rep.PushMS)
	fmt.Fprintf(app.Out, "merge_ms       %10.1f  (clone B: commit, merge A's, push)\n", rep.MergeMS)
	fmt.Fprintf(app.Out, "pull_ms        %10.1f  (clone A: take B's)\n", rep.PullMS)
	fmt.Fprintf(app.Out, "both_sides_ms  %10.1f\n", rep.BothMS)
	return nil
}
