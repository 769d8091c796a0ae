package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/internal/bench"
	"github.com/strata-mem/strata/internal/fastio"
)

type benchTranscriptsOptions struct {
	sessions  int
	sessionMB float64
	bigMB     float64
	appends   int
	json      bool
	rssChild  string // hidden: load this file and exit (the RSS probe)
	rssFull   bool   // hidden: the probe loads the full history
}

func newBenchTranscriptsCmd(app *App) *cobra.Command {
	var o benchTranscriptsOptions
	c := &cobra.Command{
		Use:   "transcripts",
		Short: "Measure listing, resume, append rate and resume memory of transcripts",
		Long: `Generate synthetic sessions in a temporary directory (--sessions files of --session-mb MB, every
third with compact boundaries, plus one session of --big-mb MB whose last compact boundary is
at 97% of the file) and print:

  list_ratio     listing every session / reading every byte once (< 0.05), with the list index
                 that strata sessions list keeps (files unchanged since the last listing are
                 not opened), and without it (every file's head and tail are read)
  resume_ratio   loading the big session from its last boundary / loading it in full (< 0.15)
  append_per_s   entries appended per second with the 100 ms batching, and with an fsync at
                 the end of every turn (a user and an assistant entry)
  peak RSS       maximum resident memory of a child process that resumes the big session
                 (getrusage ru_maxrss of the child; < 200 MB), and, for information, of one
                 that loads its full history

Listing with and without the index and reading every byte alternate for 7 rounds and the best
of each is compared (list_ratio_median, the median of each round's ratio, is also printed);
the other timings are the best of 3 runs; caches are warm. Defaults need about 1.1 GB of
temporary disk.
The temporary directory is removed afterwards.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.rssChild != "" {
				return rssProbe(cmdCtx(c), app, o.rssChild, o.rssFull)
			}
			if o.sessions < 1 || o.sessionMB <= 0 || o.bigMB <= 0 || o.appends < 10 {
				return usagef("--sessions must be ≥ 1, --session-mb and --big-mb > 0, --appends ≥ 10")
			}
			return runBenchTranscripts(cmdCtx(c), app, o)
		},
	}
	c.Flags().IntVar(&o.sessions, "sessions", 1000, "number of sessions to list")
	c.Flags().Float64Var(&o.sessionMB, "session-mb", 1, "size of each listed session in MB")
	c.Flags().Float64Var(&o.bigMB, "big-mb", 100, "size of the session resumed, in MB")
	c.Flags().IntVar(&o.appends, "appends", 20000, "entries appended in the batched append test (the fsync test appends a tenth)")
	c.Flags().BoolVar(&o.json, "json", false, "print the figures as JSON")
	c.Flags().StringVar(&o.rssChild, "rss-child", "", "")
	c.Flags().BoolVar(&o.rssFull, "rss-full", false, "")
	c.Flags().MarkHidden("rss-child")
	c.Flags().MarkHidden("rss-full")
	return c
}

func runBenchTranscripts(ctx context.Context, app *App, o benchTranscriptsOptions) error {
	out, err := bench.Transcripts(ctx, bench.TranscriptsOptions{Sessions: o.sessions, SessionMB: o.sessionMB, BigMB: o.bigMB,
		Appends: o.appends, Log: app.Err, PeakRSS: childRSS})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.json {
		return writeJSON(app.Out, out)
	}
	w := app.Out
	fmt.Fprintf(w, "sessions      %d × %.1f MB listed, one of %.0f MB resumed\n", o.sessions, o.sessionMB, o.bigMB)
	fmt.Fprintf(w, "list_ratio    %.4f  (list %.1f ms / read every byte %.1f ms, best of %d alternating rounds; target < %.2f; median of the rounds' ratios %.4f)\n",
		out.ListRatio, out.ListMs, out.ReadAllMs, bench.ListRounds, out.Targets.ListRatio, out.ListRatioMedian)
	fmt.Fprintf(w, "              %.4f  without the list index (every file's head and tail read: %.1f ms)\n", out.ListRatioCold, out.ListColdMs)
	fmt.Fprintf(w, "resume_ratio  %.4f  (from the last boundary %.1f ms / full load %.1f ms; target < %.2f)\n", out.ResumeRatio, out.ResumeMs, out.FullLoadMs, out.Targets.ResumeRatio)
	fmt.Fprintf(w, "append_per_s  %.0f with 100 ms batching; %.0f with fsync at every turn\n", out.AppendPerS, out.AppendSyncPS)
	fmt.Fprintf(w, "peak RSS      %.1f MB resuming the %.0f MB session (target < %.0f MB); %.1f MB loading its full history\n", out.ResumeRSSMB, o.bigMB, out.Targets.ResumeRSSMB, out.FullRSSMB)
	return nil
}

// childRSS runs this program as a child that loads path and returns the child's peak resident
// memory in MB. The child reports its own high-water mark (VmHWM in /proc/self/status, which
// starts afresh at exec); where that file does not exist the parent falls back to the child's
// getrusage ru_maxrss, which on some systems also counts the parent's memory at fork time.
func childRSS(path string, full bool) (float64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	args := []string{"strata", "bench", "transcripts", "--rss-child", path}
	if full {
		args = append(args, "--rss-full")
	}
	var out strings.Builder
	cmd := &exec.Cmd{Path: exe, Args: args, Stdout: &out, Stderr: os.Stderr}
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("rss probe: %w", err)
	}
	if kb, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64); err == nil && kb > 0 {
		return kb / 1024, nil
	}
	kb, ok := fastio.MaxRSSKB(cmd.ProcessState)
	if !ok {
		return 0, fmt.Errorf("rss probe: no rusage on this system")
	}
	return kb / 1024, nil
}

// rssProbe loads path and prints this process's peak resident memory in KB (VmHWM), or
// nothing when /proc is not available.
func rssProbe(ctx context.Context, app *App, path string, full bool) error {
	kb, err := bench.LoadRSS(ctx, path, full)
	if err != nil || kb == "" {
		return err
	}
	_, err = fmt.Fprintln(app.Out, kb)
	return err
}
