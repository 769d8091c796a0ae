package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
)

type benchStartupOptions struct {
	runs     int
	baseline string
	strata   string
	json     bool
}

func newBenchStartupCmd(app *App) *cobra.Command {
	var o benchStartupOptions
	c := &cobra.Command{
		Use:   "startup",
		Short: "Time strata's process start-up against a hello-world Go binary",
		Long: `Time three whole processes, alternately, --runs times each:

  baseline     a hello-world Go binary (fmt.Println), built in a temporary directory with the go
               tool on PATH, or the binary --baseline names
  version      strata --version
  memory list  strata memory list on an empty store (STRATA_HOME in a temporary directory)

and print each one's median, 90th percentile and minimum wall time in milliseconds, and the
ratios of the medians to the baseline's. Targets: version at most 3×, memory list at most 4×,
for a static build (CGO_ENABLED=0; a build with cgo is linked dynamically, and is said to
be). The strata timed is the one this command was started as, or --strata PATH. The temporary
directory is removed afterwards.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return runBenchStartup(c.Context(), app, o) },
	}
	c.Flags().IntVar(&o.runs, "runs", 200, "number of timed runs of each process")
	c.Flags().StringVar(&o.baseline, "baseline", "", "hello-world binary to compare with (default: build one with the go tool)")
	c.Flags().StringVar(&o.strata, "strata", "", "strata binary to time (default: the one running)")
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	return c
}

func runBenchStartup(ctx context.Context, app *App, o benchStartupOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	strata := o.strata
	if strata == "" {
		strata = os.Args[0] // the name strata was started as
	}
	strata, err := bench.ResolveBinary(strata)
	if err != nil {
		return usagef("--strata: %v", err)
	}
	if o.baseline != "" {
		if _, err := bench.ResolveBinary(o.baseline); err != nil {
			return usagef("--baseline: %v", err)
		}
	}
	rep, err := bench.Startup(ctx, bench.StartupOptions{Strata: strata, Baseline: o.baseline, Runs: o.runs})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "%d alternating runs of each process\n\n", rep.Runs)
	fmt.Fprintf(app.Out, "%-24s %10s %10s %10s %8s %8s\n", "", "median ms", "p90 ms", "min ms", "ratio", "target")
	fmt.Fprintf(app.Out, "%-24s %10.2f %10.2f %10.2f\n", "hello world (baseline)", rep.Baseline.Median, rep.Baseline.P90, rep.Baseline.Min)
	for _, r := range []struct {
		name          string
		s             bench.StartupStats
		ratio, target float64
	}{{"strata --version", rep.Version, rep.VersionRatio, rep.VersionRatioTarget},
		{"strata memory list", rep.MemoryList, rep.MemoryListRatio, rep.MemoryListRatioTarget}} {
		fmt.Fprintf(app.Out, "%-24s %10.2f %10.2f %10.2f %7.2f× %7.0f×\n", r.name, r.s.Median, r.s.P90, r.s.Min, r.ratio, r.target)
	}
	if rep.StrataLinking == "dynamic" {
		fmt.Fprintf(app.Out, "\nThis strata is linked dynamically (built with cgo); the targets are for a static build:\n"+
			"CGO_ENABLED=0 go install ./cmd/strata\n")
	}
	return nil
}
