package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/memsync"
)

// SyncOptions configure SyncSpeed. Zero values take the defaults of `strata bench sync`.
type SyncOptions struct {
	Memories int // the store's size (default 10,000)
	Changed  int // memories changed on each side per run (default 100)
	Runs     int // timed runs (default 5)
	// Dir is where the temporary repositories go ("" : the system's temp dir); they are
	// removed afterwards.
	Dir string
	// Environ is git's environment (nil: the process's).
	Environ []string
}

// SyncReport holds the figures of SyncSpeed in milliseconds (medians over the runs); its JSON
// form is what `strata bench sync --json` prints.
type SyncReport struct {
	Memories int `json:"memories"`
	Changed  int `json:"changed_per_side"`
	Runs     int `json:"runs"`
	// SetupMS is the first sync of the whole store (commit every file, push).
	SetupMS float64 `json:"setup_ms"`
	// PushMS: side A commits its changes and pushes (nothing to merge). MergeMS: side B
	// commits its changes, merges A's and pushes. PullMS: side A takes B's (fast-forward).
	// BothMS is their sum per run: the time until both sides hold both sets of changes.
	PushMS  float64 `json:"push_ms"`
	MergeMS float64 `json:"merge_ms"`
	PullMS  float64 `json:"pull_ms"`
	BothMS  float64 `json:"both_sides_ms"`
}

// SyncSpeed measures strata memory sync: a bare repository and two clones of a store of
// o.Memories synthetic memories; each run changes o.Changed memories on each clone (different
// ones) and times the syncs that bring both clones to the same state.
func SyncSpeed(ctx context.Context, o SyncOptions) (SyncReport, error) {
	if o.Memories <= 0 {
		o.Memories = 10_000
	}
	if o.Changed <= 0 {
		o.Changed = 100
	}
	if o.Runs <= 0 {
		o.Runs = 5
	}
	rep := SyncReport{Memories: o.Memories, Changed: o.Changed, Runs: o.Runs}
	if 2*o.Changed*o.Runs > o.Memories {
		return rep, fmt.Errorf("bench: sync: %d runs of %d changes per side need at least %d memories", o.Runs, o.Changed, 2*o.Changed*o.Runs)
	}
	top, err := os.MkdirTemp(o.Dir, "strata-bench-sync-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(top)
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	remote, a, b := filepath.Join(top, "team.git"), filepath.Join(top, "a"), filepath.Join(top, "b")
	git := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir, cmd.Env = dir, environ
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("bench: sync: git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := git(top, "init", "-q", "--bare", remote); err != nil {
		return rep, err
	}
	if err := git(top, "clone", "-q", remote, a); err != nil {
		return rep, err
	}
	if err := synth.Memories(a, o.Memories, 1); err != nil {
		return rep, err
	}
	so := memsync.Options{Environ: environ}
	t0 := time.Now()
	if _, err := syncOnce(ctx, a, so); err != nil {
		return rep, err
	}
	rep.SetupMS = ms(time.Since(t0))
	if err := git(top, "clone", "-q", remote, b); err != nil {
		return rep, err
	}
	var push, merge, pull, both []time.Duration
	for run := range o.Runs {
		first := run * 2 * o.Changed
		if err := changeMemories(a, first, o.Changed, "a", run); err != nil {
			return rep, err
		}
		if err := changeMemories(b, first+o.Changed, o.Changed, "b", run); err != nil {
			return rep, err
		}
		var d [3]time.Duration
		for i, dir := range []string{a, b, a} {
			t := time.Now()
			if _, err := syncOnce(ctx, dir, so); err != nil {
				return rep, err
			}
			d[i] = time.Since(t)
		}
		push, merge, pull = append(push, d[0]), append(merge, d[1]), append(pull, d[2])
		both = append(both, d[0]+d[1]+d[2])
	}
	rep.PushMS, rep.MergeMS = ms(percentile(push, 0.5)), ms(percentile(merge, 0.5))
	rep.PullMS, rep.BothMS = ms(percentile(pull, 0.5)), ms(percentile(both, 0.5))
	return rep, nil
}

// syncOnce is one memsync.Sync that must push.
func syncOnce(ctx context.Context, dir string, o memsync.Options) (memsync.Report, error) {
	r, err := memsync.Sync(ctx, dir, o)
	if err == nil && !r.Pushed {
		err = fmt.Errorf("bench: sync %s did not push: %s", dir, r.UpstreamError)
	}
	return r, err
}

// changeMemories appends a line to n memories from the first.
func changeMemories(dir string, first, n int, side string, run int) error {
	for i := first; i < first+n; i++ {
		p := filepath.Join(dir, synth.MemoryFile(i))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f, "\nChanged on %s in run %d.\n", side, run)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
