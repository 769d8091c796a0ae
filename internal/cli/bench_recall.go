package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
	"github.com/strata-mem/strata/internal/bench/synth"
)

type benchRecallOptions struct {
	json      bool
	synthetic int
	queries   int
	rounds    int
	stores    int
	cold      bool
	sizes     []int
	strata    string
}

func newBenchRecallCmd(app *App) *cobra.Command {
	var o benchRecallOptions
	c := &cobra.Command{
		Use:   "recall DIR | --synthetic N",
		Short: "Measure the recall ranker's quality on an eval set, or its speed on a synthetic store",
		Long: `With DIR: rank every query of an eval set (a folder of stores, each holding memories/*.md
and queries.jsonl, or one such store) against its own store's memories, and print hit@1,
hit@5, hit@10, rec@5 and MRR overall and per category, the index build time and the per-query
latency. Scored: categories 1-4; adversarial queries and queries without a relevant memory are
skipped.

With --synthetic N: write N synthetic memories of about 1 KB (half English, half Chinese) to a
temporary directory and print the cold index build time (wall and CPU), the warm query latency
(p50, p99) and the time of the first query after one file changed (when the writer names the
file, and when a full rescan must find it). Targets for N = 10000: build under 1 s, warm p50
under 1 ms, first query after a change under 5 ms. The directory is removed afterwards.

With --stores S (and --synthetic N): write S stores of N memories each, the first as the
project's and the others mounted, and print recall across them: cold (a session's first
recall: every index built, then one ranking across the stores), warm (ranking in every warm
index and merging into one list; target p50 under 1 ms for three stores of 10,000) and a
whole recall turn (every store scanned for changes, ranked, merged and the picks read).

With --cold: write synthetic stores of --sizes memories (default 200, 1,000 and 10,000) and
time whole processes on each, alternately (--rounds times): strata memory search, which opens
the index saved beside the store; the same with the saved index off (STRATA_RECALL_CACHE=off,
reading every file); sqlite3 querying an FTS5 table of the same files (bm25, limit 5; left out
with a message when sqlite3 is not installed); grep -rli; find -newer, which stats every file:
the least a search does that never trusts its index over the files. The first search, which
builds and saves the index, is timed once. Targets: 10,000 memories within 2× of
sqlite3, 200 within 2× of grep.`,
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case o.cold && (o.synthetic > 0 || o.stores > 0 || len(args) > 0):
				return usagef("--cold takes no DIR, --synthetic or --stores (--sizes sets the stores)")
			case o.cold:
				return nil
			case o.stores < 0 || o.stores > 0 && o.synthetic == 0:
				return usagef("--stores S goes with --synthetic N (S stores of N memories each)")
			case o.synthetic > 0 && len(args) > 0:
				return usagef("give either DIR or --synthetic N, not both")
			case o.synthetic == 0 && len(args) != 1:
				return usagef("bench recall needs an eval set DIR (or --synthetic N)\nRun '%s --help' for usage.", c.CommandPath())
			case o.synthetic < 0:
				return usagef("--synthetic must be positive")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if o.cold {
				return runBenchRecallCold(c.Context(), app, o)
			}
			if o.stores > 0 {
				return runBenchRecallStores(c.Context(), app, o)
			}
			if o.synthetic > 0 {
				return runBenchRecallSynthetic(c.Context(), app, o)
			}
			return runBenchRecall(c.Context(), app, args[0], o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	c.Flags().IntVar(&o.synthetic, "synthetic", 0, "measure speed on a synthetic store of N memories instead of quality on DIR")
	c.Flags().IntVar(&o.queries, "queries", 1000, "with --synthetic: number of timed warm queries")
	c.Flags().IntVar(&o.rounds, "rounds", 20, "with --synthetic: number of timed change-then-query rounds (with --stores: cold starts and whole turns)")
	c.Flags().BoolVar(&o.cold, "cold", false, "time whole-process searches against sqlite3 FTS5 and grep")
	c.Flags().IntSliceVar(&o.sizes, "sizes", []int{200, 1000, 10000}, "with --cold: store sizes, in memories")
	c.Flags().StringVar(&o.strata, "strata", "", "with --cold: strata binary to time (default: the one running)")
	c.Flags().IntVar(&o.stores, "stores", 0, "with --synthetic N: measure recall across this many stores of N memories each")
	return c
}

func runBenchRecall(ctx context.Context, app *App, dir string, o benchRecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	stores, err := bench.LoadEvalSet(dir)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	rep, err := bench.Evaluate(ctx, stores, nil)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "eval set %s: %d stores, %d queries scored, %d skipped\n\n", dir, len(stores), rep.Overall.N, rep.Skipped)
	tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tn\thit@1\thit@5\thit@10\trec@5\tmrr\t")
	row := func(name string, m bench.Metrics) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", name, m.N, m.Hit1, m.Hit5, m.Hit10, m.Rec5, m.MRR)
	}
	row("overall", rep.Overall)
	cats := make([]string, 0, len(rep.Categories))
	for c := range rep.Categories {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		row("category "+c, rep.Categories[c])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(app.Out, "\nindex build %.1f ms (all stores); query latency p50 %.3f ms, p99 %.3f ms\n", rep.BuildMS, rep.Latency.P50, rep.Latency.P99)
	return nil
}

func runBenchRecallSynthetic(ctx context.Context, app *App, o benchRecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.queries < 1 || o.rounds < 1 {
		return usagef("--queries and --rounds must be at least 1")
	}
	tmp, err := os.MkdirTemp("", "strata-bench-recall-")
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "memory")
	if err := synth.Memories(dir, o.synthetic, 1); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	rep, err := bench.RecallSpeed(ctx, dir, synth.Queries(o.queries, 2), o.rounds)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "synthetic store: %d memories of about 1 KB (half English, half Chinese)\n", rep.Memories)
	fmt.Fprintf(app.Out, "cold index build:                 %8.1f ms wall, %.1f ms CPU (target < 1000 ms)\n", rep.BuildMS, rep.BuildCPUMS)
	fmt.Fprintf(app.Out, "warm query (%d queries):        p50 %.3f ms, p99 %.3f ms (target p50 < 1 ms)\n", rep.Queries, rep.QueryP50, rep.QueryP99)
	fmt.Fprintf(app.Out, "first query after one change:     %8.3f ms when the writer names the file (target < 5 ms)\n", rep.ChangedUpdateMS)
	fmt.Fprintf(app.Out, "                                  %8.3f ms when a full rescan must find it\n", rep.ChangedRefreshMS)
	return nil
}

func runBenchRecallStores(ctx context.Context, app *App, o benchRecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.queries < 1 || o.rounds < 1 {
		return usagef("--queries and --rounds must be at least 1")
	}
	tmp, err := os.MkdirTemp("", "strata-bench-stores-")
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer os.RemoveAll(tmp)
	var dirs []string
	for i := range o.stores {
		dir := filepath.Join(tmp, fmt.Sprintf("store%d", i+1))
		if err := synth.Memories(dir, o.synthetic, uint64(i+1)); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		dirs = append(dirs, dir)
	}
	cold := min(o.rounds, 5) // each cold start reads every store
	rep, err := bench.StoresSpeed(ctx, dirs, synth.Queries(o.queries, 2), cold, o.rounds)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "synthetic stores: %d of %d memories each (%d in all; about 1 KB, half English, half Chinese)\n", rep.Stores, o.synthetic, rep.Memories)
	fmt.Fprintf(app.Out, "cold (%d fresh starts):    p50 %9.3f ms, p95 %9.3f ms (every index built, then one ranking)\n", rep.ColdRounds, rep.ColdP50, rep.ColdP95)
	fmt.Fprintf(app.Out, "warm (%d queries):      p50 %9.3f ms, p95 %9.3f ms (ranked in every store, merged; target p50 < 1 ms); %.3f ms CPU a query\n", rep.Queries, rep.QueryP50, rep.QueryP95, rep.QueryCPUMS)
	fmt.Fprintf(app.Out, "recall turn (%d turns):    p50 %9.3f ms, p95 %9.3f ms (every store scanned for changes, ranked, picks read)\n", rep.Turns, rep.TurnP50, rep.TurnP95)
	return nil
}

func runBenchRecallCold(ctx context.Context, app *App, o benchRecallOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.rounds < 1 || len(o.sizes) == 0 || slices.Min(o.sizes) < 1 {
		return usagef("--rounds and every --sizes must be at least 1")
	}
	strata := cmp.Or(o.strata, os.Args[0])
	rep, err := bench.RecallCold(ctx, bench.ColdOptions{Strata: strata, Sizes: o.sizes, Runs: o.rounds})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "whole-process search for %q, medians of %d alternating rounds (ms)\n", rep.Query, rep.Runs)
	if rep.NoSQLite != "" {
		fmt.Fprintf(app.Out, "%s\n", rep.NoSQLite)
	}
	fmt.Fprintln(app.Out)
	tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "memories\tfirst (saves index)\tstrata\tno saved index\tsqlite3 FTS5\tgrep -rli\tfind -newer\tstrata/sqlite3\tstrata/grep\tstrata/find\t")
	opt := func(v float64, format string) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%s\t%s\t%.2f×\t%s\t\n", r.Memories, r.FirstMS, r.StrataMS, r.NoCacheMS,
			opt(r.SQLiteMS, "%.1f"), r.GrepMS, opt(r.FindMS, "%.1f"), opt(r.SQLiteRatio, "%.2f×"), r.GrepRatio, opt(r.FindRatio, "%.2f×"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(app.Out, "\ntargets: 10,000 memories within %.0f× of sqlite3, 200 within %.0f× of grep\n", bench.ColdSQLiteTarget, bench.ColdGrepTarget)
	fmt.Fprintln(app.Out, "find -newer stats every file: the least a search does that never trusts its index over the files")
	return nil
}
