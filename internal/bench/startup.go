package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Start-up targets: whole-process wall time as a multiple of a hello-world Go binary's.
const (
	StartupVersionTarget = 3.0 // strata --version
	StartupListTarget    = 4.0 // strata memory list on an empty store
)

// StartupOptions configure Startup.
type StartupOptions struct {
	// Strata is the strata binary to time, resolved as ResolveBinary does.
	Strata string
	// Baseline is the binary to compare with, run without arguments and resolved as
	// ResolveBinary does; empty: a hello-world program built with the go tool on PATH.
	Baseline string
	// Runs is the number of timed runs of each process; at least 1.
	Runs int
	// Env is the environment the timed processes start from (nil: os.Environ()); Startup
	// replaces STRATA_HOME and STRATA_MANAGED_DIR in it and removes STRATA_MEMORY_DIR.
	Env []string
}

// StartupStats are the wall-time figures of one process, in milliseconds.
type StartupStats struct {
	Median float64 `json:"median_ms"`
	P90    float64 `json:"p90_ms"`
	Min    float64 `json:"min_ms"`
}

// StartupReport holds the figures of a Startup run; its JSON form is what `strata bench
// startup --json` prints. The ratios are of the medians to the baseline's.
type StartupReport struct {
	Runs                  int          `json:"runs"`
	Baseline              StartupStats `json:"baseline"`
	Version               StartupStats `json:"version"`
	MemoryList            StartupStats `json:"memory_list"`
	VersionRatio          float64      `json:"version_ratio"`
	MemoryListRatio       float64      `json:"memory_list_ratio"`
	VersionRatioTarget    float64      `json:"version_ratio_target"`
	MemoryListRatioTarget float64      `json:"memory_list_ratio_target"`
	// BaselineBuilt says that the baseline is the hello-world program Startup built.
	BaselineBuilt bool `json:"baseline_built"`
	// StrataLinking is how the strata timed is linked (Linking): "dynamic" for a build with
	// cgo, which pays the dynamic loader at every start; "static"; "" when not known.
	StrataLinking string `json:"strata_linking,omitempty"`
}

// Startup times three whole processes, start to exit, alternately: the baseline, `strata
// --version` and `strata memory list` on an empty store (STRATA_HOME and STRATA_MANAGED_DIR
// in a temporary directory, which is removed afterwards). One untimed warm-up round comes
// first, then opts.Runs timed rounds, so that a machine getting busier or quieter affects all
// three alike. A process that exits non-zero ends the run with an error: its figures would
// not mean what they say.
func Startup(ctx context.Context, opts StartupOptions) (StartupReport, error) {
	if opts.Runs < 1 {
		return StartupReport{}, errors.New("bench startup: runs must be at least 1")
	}
	strata, err := ResolveBinary(opts.Strata)
	if err != nil {
		return StartupReport{}, fmt.Errorf("bench startup: strata binary: %w", err)
	}
	dir, err := os.MkdirTemp("", "strata-bench-startup-")
	if err != nil {
		return StartupReport{}, err
	}
	defer os.RemoveAll(dir)

	built := opts.Baseline == ""
	baseline := opts.Baseline
	if built {
		if baseline, err = buildHello(ctx, filepath.Join(dir, "hello")); err != nil {
			return StartupReport{}, fmt.Errorf("bench startup: %w (pass --baseline PATH)", err)
		}
	} else if baseline, err = ResolveBinary(baseline); err != nil {
		return StartupReport{}, fmt.Errorf("bench startup: baseline: %w", err)
	}

	project := filepath.Join(dir, "project")
	for _, d := range []string{project, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return StartupReport{}, err
		}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = startupEnv(env, dir)
	procs := []*exec.Cmd{
		{Path: baseline, Args: []string{baseline}},
		{Path: strata, Args: []string{strata, "--version"}},
		{Path: strata, Args: []string{strata, "memory", "list"}},
	}
	for _, p := range procs {
		p.Dir, p.Env = project, env
	}
	times, err := timeAlternately(ctx, procs, opts.Runs)
	if err != nil {
		return StartupReport{}, fmt.Errorf("bench startup: %w", err)
	}
	rep := StartupReport{Runs: opts.Runs, Baseline: startupStats(times[0]), Version: startupStats(times[1]),
		MemoryList: startupStats(times[2]), VersionRatioTarget: StartupVersionTarget,
		MemoryListRatioTarget: StartupListTarget, BaselineBuilt: built, StrataLinking: Linking(strata)}
	rep.VersionRatio = rep.Version.Median / rep.Baseline.Median
	rep.MemoryListRatio = rep.MemoryList.Median / rep.Baseline.Median
	return rep, nil
}

// startupStats are the figures of ds (at least one timing).
func startupStats(ds []time.Duration) StartupStats {
	return StartupStats{Median: ms(percentile(ds, 0.5)), P90: ms(percentile(ds, 0.9)), Min: ms(slices.Min(ds))}
}

// ResolveBinary resolves name to the absolute path of an existing file: a name without a path
// separator is looked up on PATH, as a shell would; any other is taken relative to the working
// directory. The result is absolute because the timed processes run in another directory.
func ResolveBinary(name string) (string, error) {
	if name == "" {
		return "", errors.New("no binary named")
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
// fails (non-zero exit) ends the benchmark.
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
