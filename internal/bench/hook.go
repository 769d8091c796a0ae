package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/workspace"
)

// HookOptions configure Hook.
type HookOptions struct {
	// Strata is the binary to time.
	Strata string
	// Sizes are the store sizes (memories) to time it on.
	Sizes []int
	// Runs is the number of timed prompts per size.
	Runs int
}

// HookSize is what Hook measured on one store: wall times of whole processes in
// milliseconds.
type HookSize struct {
	Memories int `json:"memories"`
	// Start is the SessionStart hook's time on a store no hook has seen: it builds recall's
	// saved index. First is the first prompt's after it (neither is in the percentiles).
	Start float64 `json:"session_start_ms"`
	First float64 `json:"first_ms"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
	// Added counts the timed prompts for which the hook added memories; Failed those it logged
	// as failed or given up (their times are not the hook's real cost).
	Added  int `json:"added"`
	Failed int `json:"failed"`
}

// HookReport is Hook's result.
type HookReport struct {
	Runs  int        `json:"runs"`
	Sizes []HookSize `json:"sizes"`
}

// Hook times `strata hook UserPromptSubmit` as Claude Code runs it — a whole process reading
// the hook input on stdin — on synthetic stores of each size in Claude Code's memory directory
// of a temporary project (removed afterwards): the SessionStart hook first, as Claude Code
// runs it, then one prompt after another in the same session, whose transcript holds 1 MB of
// earlier turns.
func Hook(ctx context.Context, o HookOptions) (HookReport, error) {
	rep := HookReport{Runs: o.Runs}
	for _, n := range o.Sizes {
		s, err := hookSize(ctx, o, n)
		if err != nil {
			return rep, err
		}
		rep.Sizes = append(rep.Sizes, s)
	}
	return rep, nil
}

// hookTranscript is the size of the session transcript the timed prompts come in: larger than
// three in four of 25 real Claude Code transcripts (their median: 150 KB).
const hookTranscript = 1 << 20

func hookSize(ctx context.Context, o HookOptions, n int) (HookSize, error) {
	res := HookSize{Memories: n}
	dir, err := os.MkdirTemp("", "strata-bench-hook-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return res, err
	}
	home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o700); err != nil {
		return res, err
	}
	env := config.Env{Home: filepath.Join(home, ".claude"), UserHome: home, ManagedDir: filepath.Join(dir, "managed")}
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: proj, Env: env})
	if err != nil {
		return res, err
	}
	mem, err := ws.MemoryDir()
	if err != nil {
		return res, err
	}
	if err := synth.Memories(mem, n, 1); err != nil {
		return res, err
	}
	// The session so far: the hook reads it for what the session already has.
	tr := filepath.Join(dir, "bench.jsonl")
	if err := synth.Session(tr, synth.SessionOptions{SessionID: "bench", CWD: proj, Size: hookTranscript, Seed: 1}); err != nil {
		return res, err
	}
	procEnv := []string{"HOME=" + home, "STRATA_HOME=" + filepath.Join(home, ".strata"), "STRATA_MANAGED_DIR=" + env.ManagedDir,
		"PATH=" + os.Getenv("PATH")}
	hook := func(event string, in map[string]string) (time.Duration, int, error) {
		in["hook_event_name"], in["session_id"], in["cwd"] = event, "bench", proj
		b, _ := json.Marshal(in)
		cmd := exec.CommandContext(ctx, o.Strata, "hook", event)
		cmd.Dir, cmd.Env, cmd.Stdin = proj, procEnv, bytes.NewReader(b)
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, 0, fmt.Errorf("bench hook: %s hook %s: %w", o.Strata, event, err)
		}
		return time.Since(start), out.Len(), nil
	}
	d, _, err := hook("SessionStart", map[string]string{"source": "startup"})
	if err != nil {
		return res, err
	}
	res.Start = ms(d)
	queries := synth.Queries(o.Runs+1, 2)
	var times []time.Duration
	for i, q := range queries {
		d, n, err := hook("UserPromptSubmit", map[string]string{"prompt": q, "transcript_path": tr})
		if err != nil {
			return res, err
		}
		if i == 0 {
			res.First = ms(d)
			continue
		}
		times = append(times, d)
		if n > 0 {
			res.Added++
		}
	}
	res.P50, res.P99, res.Max = ms(percentile(times, 0.5)), ms(percentile(times, 0.99)), ms(slices.Max(times))
	if b, err := os.ReadFile(filepath.Join(home, ".strata", "logs", "hook.log")); err == nil {
		res.Failed = strings.Count(string(b), "\n")
	}
	return res, nil
}
