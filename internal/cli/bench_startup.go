package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() { registerBench(newBenchStartupCmd) }

// Start-up targets: whole-process wall time as a multiple of a hello-world Go binary's.
const (
	startupVersionTarget = 3.0
	startupListTarget    = 4.0
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
ratios of the medians to the baseline's. Targets: version at most 3×, memory list at most 4×.
The strata timed is the one this command was started as, or --strata PATH. The temporary
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

// startupStats are wall-time figures of one process in milliseconds.
type startupStats struct {
	Median float64 `json:"median_ms"`
	P90    float64 `json:"p90_ms"`
	Min    float64 `json:"min_ms"`
}

type benchStartupJSON struct {
	Runs                  int          `json:"runs"`
	Baseline              startupStats `json:"baseline"`
	Version               startupStats `json:"version"`
	MemoryList            startupStats `json:"memory_list"`
	VersionRatio          float64      `json:"version_ratio"`
	MemoryListRatio       float64      `json:"memory_list_ratio"`
	VersionRatioTarget    float64      `json:"version_ratio_target"`
	MemoryListRatioTarget float64      `json:"memory_list_ratio_target"`
	BaselineBuilt         bool         `json:"baseline_built"`
}

func msStats(ds []time.Duration) startupStats {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return startupStats{Median: ms(ds[len(ds)/2]), P90: ms(ds[len(ds)*9/10]), Min: ms(ds[0])}
}

func runBenchStartup(ctx context.Context, app *App, o benchStartupOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	self, err := startupBinary(o.strata, os.Args[0])
	if err != nil {
		return usagef("--strata: %v", err)
	}
	dir, err := os.MkdirTemp("", "strata-bench-startup-")
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	defer os.RemoveAll(dir)

	built := o.baseline == ""
	baseline := o.baseline
	if built {
		if baseline, err = buildHello(ctx, filepath.Join(dir, "hello")); err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("bench startup: %w (pass --baseline PATH)", err)}
		}
	} else if baseline, err = startupBinary(baseline, ""); err != nil {
		return usagef("--baseline: %v", err)
	}

	project := filepath.Join(dir, "project")
	for _, d := range []string{project, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	env := startupEnv(os.Environ(), dir)
	procs := []*exec.Cmd{
		{Path: baseline, Args: []string{baseline}},
		{Path: self, Args: []string{self, "--version"}},
		{Path: self, Args: []string{self, "memory", "list"}},
	}
	for _, p := range procs {
		p.Dir, p.Env = project, env
	}
	times, err := timeAlternately(ctx, procs, o.runs)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("bench startup: %w", err)}
	}
	out := benchStartupJSON{Runs: o.runs, Baseline: msStats(times[0]), Version: msStats(times[1]),
		MemoryList: msStats(times[2]), VersionRatioTarget: startupVersionTarget,
		MemoryListRatioTarget: startupListTarget, BaselineBuilt: built}
	out.VersionRatio = out.Version.Median / out.Baseline.Median
	out.MemoryListRatio = out.MemoryList.Median / out.Baseline.Median
	if o.json {
		return writeJSON(app.Out, out)
	}
	fmt.Fprintf(app.Out, "%d alternating runs of each process\n\n", o.runs)
	fmt.Fprintf(app.Out, "%-24s %10s %10s %10s %8s %8s\n", "", "median ms", "p90 ms", "min ms", "ratio", "target")
	fmt.Fprintf(app.Out, "%-24s %10.2f %10.2f %10.2f\n", "hello world (baseline)", out.Baseline.Median, out.Baseline.P90, out.Baseline.Min)
	for _, r := range []struct {
		name          string
		s             startupStats
		ratio, target float64
	}{{"strata --version", out.Version, out.VersionRatio, startupVersionTarget},
		{"strata memory list", out.MemoryList, out.MemoryListRatio, startupListTarget}} {
		fmt.Fprintf(app.Out, "%-24s %10.2f %10.2f %10.2f %7.2f× %7.0f×\n", r.name, r.s.Median, r.s.P90, r.s.Min, r.ratio, r.target)
	}
	return nil
}

// startupBinary resolves the binary to time: flag when set, else arg0 (the name strata was
// started as). A name without a slash is looked up on PATH, as the shell would; the result is
// absolute, since the timed processes run in another directory.
func startupBinary(flag, arg0 string) (string, error) {
	name := flag
	if name == "" {
		name = arg0
	}
	if !strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", err
		}
		name = p
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// startupEnv is the timed processes' environment: env with STRATA_HOME and STRATA_MANAGED_DIR
// inside dir (an empty store, no instructions) and STRATA_MEMORY_DIR removed.
func startupEnv(env []string, dir string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "STRATA_HOME" || k == "STRATA_MANAGED_DIR" || k == "STRATA_MEMORY_DIR"
	})
	return append(out, "STRATA_HOME="+filepath.Join(dir, "home"), "STRATA_MANAGED_DIR="+filepath.Join(dir, "managed"))
}

// buildHello writes a hello-world program (fmt.Println) into dir and builds it with the go tool
// on PATH, with the default build settings, and returns the binary's path.
func buildHello(ctx context.Context, dir string) (string, error) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go tool to build the hello-world baseline: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module hello\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "hello")
	cmd := exec.CommandContext(ctx, gotool, "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the hello-world baseline: %w\n%s", err, out)
	}
	return bin, nil
}

// timeAlternately runs each of procs once per round, in order, for runs rounds after one
// untimed warm-up round, and returns each one's wall times (start to exit). A process that
// fails (non-zero exit) ends the benchmark: its figures would not mean what they say.
func timeAlternately(ctx context.Context, procs []*exec.Cmd, runs int) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(procs))
	for round := -1; round < runs; round++ {
		for i, p := range procs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			cmd := exec.CommandContext(ctx, p.Path)
			cmd.Args, cmd.Dir, cmd.Env = p.Args, p.Dir, p.Env
			t := time.Now()
			err := cmd.Run()
			d := time.Since(t)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", strings.Join(p.Args, " "), err)
			}
			if round >= 0 {
				times[i] = append(times[i], d)
			}
		}
	}
	return times, nil
}
