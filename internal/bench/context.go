package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/workspace"
)

// Targets of the instruction loader, in microseconds.
const (
	LoadTargetUS  = 300
	TouchTargetUS = 20
)

// ContextStats are timing figures in microseconds.
type ContextStats struct {
	Median float64 `json:"median_us"`
	P90    float64 `json:"p90_us"`
	Min    float64 `json:"min_us"`
	Runs   int     `json:"runs"`
	Target float64 `json:"target_us"`
}

// ContextReport holds the figures of Context; its JSON form is what `strata bench context
// --json` prints.
type ContextReport struct {
	Load     ContextStats `json:"load"`
	Touch    ContextStats `json:"touch"`
	Levels   int          `json:"levels"`
	Siblings int          `json:"siblings"`
	Pieces   int          `json:"pieces"`
	Tokens   int          `json:"tokens"`
}

// Context times the instruction loader in the repository of synth.Repo, built in a temporary
// directory that is removed afterwards: runs session-start loads in the deepest directory
// (after 50 untimed ones that warm the file system caches), then 10×runs touches of a deep
// file when nothing new applies. Home and managed directories lie inside the temporary
// directory, so the machine's own instruction files stay out of the figures. A load that
// does not find every piece, or a touch that adds one, is an error.
func Context(ctx context.Context, runs int) (ContextReport, error) {
	var rep ContextReport
	if runs < 1 {
		return rep, fmt.Errorf("bench: context: runs must be at least 1")
	}
	dir, err := os.MkdirTemp("", "strata-bench-context-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(dir)
	l, err := synth.Repo(dir)
	if err != nil {
		return rep, err
	}
	opts := instructions.Options{Env: config.Env{Home: filepath.Join(dir, "home", ".strata"),
		ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")},
		ScanSecrets:     workspace.ScanSecrets, // a session scans every piece for secrets
		ApprovedImports: []string{l.Root}}      // the parents' fragments lie outside the cwd: approved, as a user would
	var set *instructions.Set
	for range 50 {
		if set, err = instructions.Load(ctx, l.Cwd, opts); err != nil {
			return rep, err
		}
	}
	loads := make([]time.Duration, runs)
	for i := range loads {
		t := time.Now()
		set, err = instructions.Load(ctx, l.Cwd, opts)
		loads[i] = time.Since(t)
		if err != nil {
			return rep, err
		}
	}
	if n := len(set.Sources()); n != 2*l.Levels {
		return rep, fmt.Errorf("bench context: loaded %d pieces, want %d", n, 2*l.Levels)
	}
	set.Touch(ctx, l.DeepFile) // the first touch looks at the new directories once
	touches := make([]time.Duration, 10*runs)
	for i := range touches {
		t := time.Now()
		got := set.Touch(ctx, l.DeepFile)
		touches[i] = time.Since(t)
		if len(got) != 0 {
			return rep, fmt.Errorf("bench context: a touch added %d pieces", len(got))
		}
	}
	return ContextReport{Load: contextStats(loads, LoadTargetUS), Touch: contextStats(touches, TouchTargetUS),
		Levels: l.Levels, Siblings: l.Siblings, Pieces: len(set.Sources()), Tokens: set.Tokens()}, nil
}

func contextStats(ds []time.Duration, target float64) ContextStats {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return ContextStats{Median: us(percentile(ds, 0.5)), P90: us(percentile(ds, 0.9)), Min: us(slices.Min(ds)),
		Runs: len(ds), Target: target}
}
