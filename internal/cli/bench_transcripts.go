package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/transcript"
)

func init() { registerBench(newBenchTranscriptsCmd) }

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

type benchTranscriptsJSON struct {
	Sessions      int     `json:"sessions"`
	SessionMB     float64 `json:"session_mb"`
	BigMB         float64 `json:"big_mb"`
	ListMs        float64 `json:"list_ms"`
	ListColdMs    float64 `json:"list_no_index_ms"`
	ListRatioCold float64 `json:"list_ratio_no_index"`
	ReadAllMs     float64 `json:"read_all_ms"`
	ListRatio     float64 `json:"list_ratio"`
	// ListRatioMedian is the median over the rounds of listing / reading in the same round;
	// on a loaded machine it says how much list_ratio owes to one lucky round.
	ListRatioMedian float64 `json:"list_ratio_median"`
	ResumeMs        float64 `json:"resume_ms"`
	FullLoadMs      float64 `json:"full_load_ms"`
	ResumeRatio     float64 `json:"resume_ratio"`
	AppendPerS      float64 `json:"append_per_s"`
	AppendSyncPS    float64 `json:"append_fsync_per_turn_per_s"`
	ResumeRSSMB     float64 `json:"resume_peak_rss_mb"`
	FullRSSMB       float64 `json:"full_load_peak_rss_mb"`
	Targets         struct {
		ListRatio   float64 `json:"list_ratio"`
		ResumeRatio float64 `json:"resume_ratio"`
		ResumeRSSMB float64 `json:"resume_peak_rss_mb"`
	} `json:"targets"`
}

func runBenchTranscripts(ctx context.Context, app *App, o benchTranscriptsOptions) error {
	fail := func(err error) error {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("bench transcripts: %w", err)}
	}
	dir, err := os.MkdirTemp("", "strata-bench-transcripts-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	projects := filepath.Join(dir, "projects")
	fmt.Fprintf(app.Err, "generating %d sessions of %.1f MB and one of %.0f MB in %s …\n", o.sessions, o.sessionMB, o.bigMB, dir)
	if err := generateBenchSessions(ctx, projects, o); err != nil {
		return fail(err)
	}
	listDir := filepath.Join(projects, "-bench-list")
	big := filepath.Join(projects, "-bench-big", "big.jsonl")
	var out benchTranscriptsJSON
	out.Sessions, out.SessionMB, out.BigMB = o.sessions, o.sessionMB, o.bigMB
	out.Targets.ListRatio, out.Targets.ResumeRatio, out.Targets.ResumeRSSMB = 0.05, 0.15, 200

	// Listing against reading every byte once (with as many parallel readers as listing
	// uses). The three measurements alternate, the same number of times, so that each sees the
	// same machine and the same warm caches; the best of each is compared.
	files, err := transcript.Files(listDir)
	if err != nil {
		return fail(err)
	}
	// With the index strata sessions list keeps: built by a first listing, then used.
	index := filepath.Join(dir, "list-index")
	if _, err := transcript.List(ctx, listDir, transcript.ListOptions{Index: index}); err != nil {
		return fail(err)
	}
	listing := func(index string) func() error {
		return func() error {
			infos, err := transcript.List(ctx, listDir, transcript.ListOptions{Index: index})
			if err == nil && len(infos) != o.sessions {
				err = fmt.Errorf("listed %d sessions, want %d", len(infos), o.sessions)
			}
			return err
		}
	}
	times, err := alternate(listRounds, func() error { return readEveryByte(files) }, listing(""), listing(index))
	if err != nil {
		return fail(err)
	}
	readAll, cold, warm := times[0], times[1], times[2]
	out.ListMs, out.ListColdMs, out.ReadAllMs = ms(warm.best()), ms(cold.best()), ms(readAll.best())
	out.ListRatio = warm.best().Seconds() / readAll.best().Seconds()
	out.ListRatioCold = cold.best().Seconds() / readAll.best().Seconds()
	out.ListRatioMedian = medianRatio(warm, readAll)

	// Resume from the last boundary against the full load.
	var chain int
	resume := best(3, func() error {
		s, err := transcript.Load(ctx, big, transcript.ReadOptions{})
		if err == nil {
			chain = len(s.Live())
		}
		return err
	})
	full := best(3, func() error { _, err := transcript.Load(ctx, big, transcript.ReadOptions{Full: true}); return err })
	if resume.err != nil || full.err != nil {
		return fail(fmt.Errorf("%v %v", resume.err, full.err))
	}
	if chain == 0 {
		return fail(fmt.Errorf("resume found no conversation"))
	}
	out.ResumeMs, out.FullLoadMs = ms(resume.d), ms(full.d)
	out.ResumeRatio = resume.d.Seconds() / full.d.Seconds()

	// Appends.
	if out.AppendPerS, err = benchAppend(ctx, filepath.Join(dir, "append.jsonl"), o.appends, false); err != nil {
		return fail(err)
	}
	if out.AppendSyncPS, err = benchAppend(ctx, filepath.Join(dir, "append-sync.jsonl"), max(10, o.appends/10), true); err != nil {
		return fail(err)
	}

	// Peak RSS of resuming, in a child process.
	if out.ResumeRSSMB, err = childRSS(big, false); err != nil {
		return fail(err)
	}
	if out.FullRSSMB, err = childRSS(big, true); err != nil {
		return fail(err)
	}

	if o.json {
		return writeJSON(app.Out, out)
	}
	w := app.Out
	fmt.Fprintf(w, "sessions      %d × %.1f MB listed, one of %.0f MB resumed\n", o.sessions, o.sessionMB, o.bigMB)
	fmt.Fprintf(w, "list_ratio    %.4f  (list %.1f ms / read every byte %.1f ms, best of %d alternating rounds; target < %.2f; median of the rounds' ratios %.4f)\n",
		out.ListRatio, out.ListMs, out.ReadAllMs, listRounds, out.Targets.ListRatio, out.ListRatioMedian)
	fmt.Fprintf(w, "              %.4f  without the list index (every file's head and tail read: %.1f ms)\n", out.ListRatioCold, out.ListColdMs)
	fmt.Fprintf(w, "resume_ratio  %.4f  (from the last boundary %.1f ms / full load %.1f ms; target < %.2f)\n", out.ResumeRatio, out.ResumeMs, out.FullLoadMs, out.Targets.ResumeRatio)
	fmt.Fprintf(w, "append_per_s  %.0f with 100 ms batching; %.0f with fsync at every turn\n", out.AppendPerS, out.AppendSyncPS)
	fmt.Fprintf(w, "peak RSS      %.1f MB resuming the %.0f MB session (target < %.0f MB); %.1f MB loading its full history\n", out.ResumeRSSMB, o.bigMB, out.Targets.ResumeRSSMB, out.FullRSSMB)
	return nil
}

// generateBenchSessions writes the listed sessions (in parallel) and the big one.
func generateBenchSessions(ctx context.Context, projects string, o benchTranscriptsOptions) error {
	size := int64(o.sessionMB * (1 << 20))
	jobs := make(chan int)
	errs := make([]error, o.sessions)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				id := fmt.Sprintf("0199%04x-0000-7000-8000-%012x", i>>16, i)
				opts := transcript.SynthOptions{SessionID: id, CWD: "/bench/list", Size: size, Seed: uint64(i),
					Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
				if i%3 == 0 {
					opts.Boundaries = []float64{0.5}
				}
				if i%2 == 0 {
					opts.Title = fmt.Sprintf("session %d", i)
				}
				errs[i] = transcript.Synthesize(filepath.Join(projects, "-bench-list", id+".jsonl"), opts)
			}
		})
	}
feed:
	for i := range o.sessions {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return transcript.Synthesize(filepath.Join(projects, "-bench-big", "big.jsonl"), transcript.SynthOptions{
		SessionID: "big", CWD: "/bench/big", Size: int64(o.bigMB * (1 << 20)), Boundaries: []float64{0.3, 0.6, 0.97},
		Title: "the big session", Seed: 1 << 40})
}

type timing struct {
	d   time.Duration
	err error
}

// best runs f n times and returns the shortest time (or the first error).
func best(n int, f func() error) timing {
	var t timing
	for i := range n {
		start := time.Now()
		if err := f(); err != nil {
			return timing{err: err}
		}
		if d := time.Since(start); i == 0 || d < t.d {
			t.d = d
		}
	}
	return t
}

// listRounds is how many times listing and reading every byte are each timed.
const listRounds = 7

// runs are the times of one measurement, one per round.
type runs []time.Duration

func (r runs) best() time.Duration { return slices.Min(r) }

// alternate runs each of fs once per round, in order, for n rounds, and returns the times of
// each (or the first error).
func alternate(n int, fs ...func() error) ([]runs, error) {
	out := make([]runs, len(fs))
	for range n {
		for i, f := range fs {
			start := time.Now()
			if err := f(); err != nil {
				return nil, err
			}
			out[i] = append(out[i], time.Since(start))
		}
	}
	return out, nil
}

// medianRatio is the median over the rounds of a[i] / b[i].
func medianRatio(a, b runs) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i].Seconds() / b[i].Seconds()
	}
	slices.Sort(r)
	return r[len(r)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// readEveryByte reads each file once through a reused buffer, with as many workers as
// transcript.List uses. The buffer is 256 KB: on the machines measured, reading into it was
// 5-15% quicker than into 1 MB ones (eight of which do not stay in the cores' caches), and
// the denominator should be the quick way to read every byte.
func readEveryByte(files []string) error {
	jobs := make(chan string)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for p := range jobs {
				f, err := os.Open(p)
				if err == nil {
					for err == nil {
						_, err = f.Read(buf)
					}
					if err == io.EOF {
						err = nil
					}
					f.Close()
				}
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			}
		})
	}
	for _, p := range files {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	return first
}

// benchAppend appends n entries (user/assistant turns of about 1 KB) and returns entries per
// second; sync fsyncs at the end of every turn.
func benchAppend(ctx context.Context, path string, n int, sync bool) (float64, error) {
	j, err := transcript.Open(ctx, path, transcript.Options{SessionID: "append", CWD: "/bench"})
	if err != nil {
		return 0, err
	}
	text := fmt.Sprintf("%0900d", 0)
	user := conversation.NewText(conversation.User, text)
	asst := conversation.NewText(conversation.Assistant, text)
	start := time.Now()
	for i := 0; i < n; i += 2 {
		if _, err := j.AppendMessage(user, false); err != nil {
			return 0, err
		}
		if _, err := j.AppendMessage(asst, false); err != nil {
			return 0, err
		}
		if sync {
			if err := j.Sync(ctx); err != nil {
				return 0, err
			}
		}
	}
	if err := j.Close(ctx); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
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
	s, err := transcript.Load(ctx, path, transcript.ReadOptions{Full: full})
	if err != nil {
		return err
	}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Fprintln(app.Out, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	runtime.KeepAlive(s)
	return nil
}
