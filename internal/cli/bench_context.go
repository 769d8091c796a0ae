package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/bench/synth"
)

func init() { registerBench(newBenchContextCmd) }

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

  load   a session-start load in the deepest directory (walk up, read, resolve imports)
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

// benchStats are timing figures in microseconds.
type benchStats struct {
	Median float64 `json:"median_us"`
	P90    float64 `json:"p90_us"`
	Min    float64 `json:"min_us"`
	Runs   int     `json:"runs"`
	Target float64 `json:"target_us"`
}

type benchContextJSON struct {
	Load     benchStats `json:"load"`
	Touch    benchStats `json:"touch"`
	Levels   int        `json:"levels"`
	Siblings int        `json:"siblings"`
	Pieces   int        `json:"pieces"`
	Tokens   int        `json:"tokens"`
}

func stats(ds []time.Duration, target float64) benchStats {
	slices.Sort(ds)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return benchStats{Median: us(ds[len(ds)/2]), P90: us(ds[len(ds)*9/10]), Min: us(ds[0]), Runs: len(ds), Target: target}
}

func runBenchContext(ctx context.Context, app *App, o benchContextOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	dir, err := os.MkdirTemp("", "strata-bench-context-")
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer os.RemoveAll(dir)
	l, err := synth.Repo(dir)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	// Home and managed dirs inside the temp dir: the machine's own files stay out of the figures.
	opts := instructions.Options{Env: config.Env{Home: filepath.Join(dir, "home", ".strata"),
		ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")}}
	var set *instructions.Set
	for i := 0; i < 50; i++ { // warm the file system caches
		if set, err = instructions.Load(ctx, l.Cwd, opts); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	loads := make([]time.Duration, o.runs)
	for i := range loads {
		t := time.Now()
		set, err = instructions.Load(ctx, l.Cwd, opts)
		loads[i] = time.Since(t)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	if n := len(set.Sources()); n != 2*l.Levels {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("bench context: loaded %d pieces, want %d", n, 2*l.Levels)}
	}
	set.Touch(ctx, l.DeepFile) // the first touch looks at the new directories once
	touches := make([]time.Duration, 10*o.runs)
	for i := range touches {
		t := time.Now()
		got := set.Touch(ctx, l.DeepFile)
		touches[i] = time.Since(t)
		if len(got) != 0 {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("bench context: a touch added %d pieces", len(got))}
		}
	}
	out := benchContextJSON{Load: stats(loads, 300), Touch: stats(touches, 20), Levels: l.Levels, Siblings: l.Siblings,
		Pieces: len(set.Sources()), Tokens: set.Tokens()}
	if o.json {
		return writeJSON(app.Out, out)
	}
	fmt.Fprintf(app.Out, "synthetic repo: %d-level chain, a CLAUDE.md importing a 2 KB fragment at each level, %d sibling dirs\n", out.Levels, out.Siblings)
	fmt.Fprintf(app.Out, "loaded: %d pieces, about %d tokens\n\n", out.Pieces, out.Tokens)
	fmt.Fprintf(app.Out, "%-28s %10s %10s %10s %10s\n", "", "median µs", "p90 µs", "min µs", "target µs")
	for _, r := range []struct {
		name string
		s    benchStats
	}{{"session-start load", out.Load}, {"touch, nothing new applies", out.Touch}} {
		fmt.Fprintf(app.Out, "%-28s %10.1f %10.1f %10.1f %10.0f\n", r.name, r.s.Median, r.s.P90, r.s.Min, r.s.Target)
	}
	return nil
}
