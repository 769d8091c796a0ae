package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/transcript"
)

// TranscriptsOptions configure Transcripts.
type TranscriptsOptions struct {
	// Sessions files of SessionMB MB are listed; every third has compact boundaries.
	Sessions  int
	SessionMB float64
	// BigMB is the size of the session resumed, whose last compact boundary is at 97%.
	BigMB float64
	// Appends entries are appended in the batched append test; the fsync test appends a tenth.
	Appends int
	// Log, when set, is told where the sessions are being generated.
	Log io.Writer
	// PeakRSS returns the peak resident memory, in MB, of a fresh process that loads the
	// transcript at path (its full history when full is set); see LoadRSS.
	PeakRSS func(path string, full bool) (float64, error)
}

// TranscriptsReport holds the figures of Transcripts (times in milliseconds); its JSON form is
// what `strata bench transcripts --json` prints.
type TranscriptsReport struct {
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

// Transcripts generates synthetic sessions in a temporary directory (removed afterwards) and
// measures listing against reading every byte (with and without the list index; ListRounds
// alternating rounds, best of each), resuming the big session from its last boundary against
// loading it in full (best of 3), the append rate with 100 ms batching and with an fsync per
// turn, and, through o.PeakRSS, the peak memory of resuming. Caches are warm.
func Transcripts(ctx context.Context, o TranscriptsOptions) (TranscriptsReport, error) {
	fail := func(err error) (TranscriptsReport, error) {
		return TranscriptsReport{}, fmt.Errorf("bench transcripts: %w", err)
	}
	if o.Sessions < 1 || o.SessionMB <= 0 || o.BigMB <= 0 || o.Appends < 10 || o.PeakRSS == nil {
		return fail(fmt.Errorf("need sessions ≥ 1, session and big sizes > 0, appends ≥ 10 and a PeakRSS"))
	}
	dir, err := os.MkdirTemp("", "strata-bench-transcripts-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	projects := filepath.Join(dir, "projects")
	if o.Log != nil {
		fmt.Fprintf(o.Log, "generating %d sessions of %.1f MB and one of %.0f MB in %s …\n", o.Sessions, o.SessionMB, o.BigMB, dir)
	}
	if err := generateSessions(ctx, projects, o); err != nil {
		return fail(err)
	}
	listDir := filepath.Join(projects, "-bench-list")
	big := filepath.Join(projects, "-bench-big", "big.jsonl")
	var out TranscriptsReport
	out.Sessions, out.SessionMB, out.BigMB = o.Sessions, o.SessionMB, o.BigMB
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
			if err == nil && len(infos) != o.Sessions {
				err = fmt.Errorf("listed %d sessions, want %d", len(infos), o.Sessions)
			}
			return err
		}
	}
	times, err := alternate(ListRounds, func() error { return readEveryByte(files) }, listing(""), listing(index))
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
	if out.AppendPerS, err = appendRate(ctx, filepath.Join(dir, "append.jsonl"), o.Appends, false); err != nil {
		return fail(err)
	}
	if out.AppendSyncPS, err = appendRate(ctx, filepath.Join(dir, "append-sync.jsonl"), max(10, o.Appends/10), true); err != nil {
		return fail(err)
	}

	// Peak RSS of resuming, in a child process.
	if out.ResumeRSSMB, err = o.PeakRSS(big, false); err != nil {
		return fail(err)
	}
	if out.FullRSSMB, err = o.PeakRSS(big, true); err != nil {
		return fail(err)
	}

	return out, nil
}

// generateSessions writes the listed sessions (in parallel) and the big one.
func generateSessions(ctx context.Context, projects string, o TranscriptsOptions) error {
	size := int64(o.SessionMB * (1 << 20))
	jobs := make(chan int)
	errs := make([]error, o.Sessions)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				id := fmt.Sprintf("0199%04x-0000-7000-8000-%012x", i>>16, i)
				opts := synth.SessionOptions{SessionID: id, CWD: "/bench/list", Size: size, Seed: uint64(i),
					Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
				if i%3 == 0 {
					opts.Boundaries = []float64{0.5}
				}
				if i%2 == 0 {
					opts.Title = fmt.Sprintf("session %d", i)
				}
				errs[i] = synth.Session(filepath.Join(projects, "-bench-list", id+".jsonl"), opts)
			}
		})
	}
feed:
	for i := range o.Sessions {
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
	return synth.Session(filepath.Join(projects, "-bench-big", "big.jsonl"), synth.SessionOptions{
		SessionID: "big", CWD: "/bench/big", Size: int64(o.BigMB * (1 << 20)), Boundaries: []float64{0.3, 0.6, 0.97},
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

// ListRounds is how many times listing and reading every byte are each timed.
const ListRounds = 7

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

// appendRate appends n entries (user/assistant turns of about 1 KB) and returns entries per
// second; sync fsyncs at the end of every turn.
func appendRate(ctx context.Context, path string, n int, sync bool) (float64, error) {
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

// LoadRSS loads the transcript at path (its full history when full is set) and returns this
// process's peak resident memory in KB as /proc/self/status reports it (VmHWM), or "" where
// that file does not exist. It is what the child process of a PeakRSS measurement runs: in a
// fresh process the peak is the load's.
func LoadRSS(ctx context.Context, path string, full bool) (string, error) {
	s, err := transcript.Load(ctx, path, transcript.ReadOptions{Full: full})
	if err != nil {
		return "", err
	}
	defer runtime.KeepAlive(s)
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), nil
		}
	}
	return "", nil
}
