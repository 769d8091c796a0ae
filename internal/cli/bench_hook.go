package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
)

type benchHookOptions struct {
	runs   int
	sizes  []int
	strata string
	json   bool
}

func newBenchHookCmd(app *App) *cobra.Command {
	var o benchHookOptions
	c := &cobra.Command{
		Use:   "hook",
		Short: "Time the Claude Code UserPromptSubmit hook as a whole process on stores of several sizes",
		Long: `Time strata hook UserPromptSubmit as Claude Code runs it: a whole process that reads the hook
input on stdin, recalls from Claude Code's memory directory and prints the memories to add. For
each store size (synthetic memories in a temporary project, removed afterwards) it runs the
SessionStart hook (which builds recall's saved index), a first prompt, then --runs prompts in a
session whose transcript holds 1 MB of earlier turns (the hook reads it for what the session
already has), and prints the first two's times, then p50, p99 and the slowest in
milliseconds, how many prompts got memories, and how many the hook logged as failed. Target: p50 under 30 ms at 1,000 memories on an idle machine. The strata
timed is the one this command was started as, or --strata PATH.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchHook(c.Context(), app, o) },
	}
	c.Flags().IntVar(&o.runs, "runs", 50, "timed prompts per store size")
	c.Flags().IntSliceVar(&o.sizes, "sizes", []int{100, 1000, 10000}, "store sizes in memories")
	c.Flags().StringVar(&o.strata, "strata", "", "strata binary to time (default: the one running)")
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	return c
}

func runBenchHook(ctx context.Context, app *App, o benchHookOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	for _, n := range o.sizes {
		if n < 1 {
			return usagef("--sizes: %d is not a store size", n)
		}
	}
	strata := o.strata
	if strata == "" {
		strata = os.Args[0]
	}
	strata, err := bench.ResolveBinary(strata)
	if err != nil {
		return usagef("--strata: %v", err)
	}
	rep, err := bench.Hook(ctx, bench.HookOptions{Strata: strata, Sizes: o.sizes, Runs: o.runs})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "strata hook UserPromptSubmit, %d prompts per store after a first one\n\n", rep.Runs)
	fmt.Fprintf(app.Out, "%10s %10s %10s %10s %10s %10s %8s %8s\n", "memories", "start ms", "first ms", "p50 ms", "p99 ms", "max ms", "added", "failed")
	for _, s := range rep.Sizes {
		fmt.Fprintf(app.Out, "%10d %10.1f %10.1f %10.1f %10.1f %10.1f %8d %8d\n", s.Memories, s.Start, s.First, s.P50, s.P99, s.Max, s.Added, s.Failed)
	}
	return nil
}
