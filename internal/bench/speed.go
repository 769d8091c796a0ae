package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/recall"
)

// SpeedReport holds the speed figures of RecallSpeed, in milliseconds; its JSON form is what
// `strata bench recall --synthetic N --json` prints.
type SpeedReport struct {
	Memories int     `json:"memories"`
	BuildMS  float64 `json:"build_ms"` // cold: read, parse and index every file
	// BuildCPUMS is the CPU time the cold build used (all threads): on a busy machine it
	// shows the work apart from the wait.
	BuildCPUMS float64 `json:"build_cpu_ms"`
	// Warm query latency over Queries searches.
	Queries  int     `json:"queries"`
	QueryP50 float64 `json:"query_p50_ms"`
	QueryP99 float64 `json:"query_p99_ms"`
	// First search after one file changed: ChangedUpdateMS when the writer names the file
	// (Ranker.Update), ChangedRefreshMS when a full Refresh must find it by stat.
	ChangedUpdateMS  float64 `json:"changed_update_ms"`
	ChangedRefreshMS float64 `json:"changed_refresh_ms"`
}

// RecallSpeed measures the recall ranker on the memory dir dir (see synth.Memories): cold
// build, warm query latency, and the first query after one file changed (median over rounds
// rounds, at least one). Each round appends a line to one file twice (once before each
// timing), as a hand edit would.
func RecallSpeed(ctx context.Context, dir string, queries []string, rounds int) (SpeedReport, error) {
	var rep SpeedReport
	if len(queries) == 0 {
		return rep, fmt.Errorf("bench: recall speed: no queries")
	}
	r := recall.NewRanker(recall.DirSource{Dir: dir}, recall.RankerOptions{})
	t0, c0 := time.Now(), cpuTime()
	if _, _, err := r.Refresh(ctx); err != nil {
		return rep, err
	}
	rep.BuildMS, rep.BuildCPUMS = ms(time.Since(t0)), ms(cpuTime()-c0)
	rep.Memories = r.Index().Len()
	// Warm up once, then measure.
	for _, q := range queries {
		r.Search(q, 5)
	}
	lat := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		t := time.Now()
		r.Search(q, 5)
		lat = append(lat, time.Since(t))
	}
	rep.Queries = len(queries)
	rep.QueryP50, rep.QueryP99 = ms(percentile(lat, 0.5)), ms(percentile(lat, 0.99))

	infos, err := recall.DirSource{Dir: dir}.Scan(ctx)
	if err != nil || len(infos) == 0 {
		return rep, err
	}
	var upd, ref []time.Duration
	for i := range max(rounds, 1) {
		file := infos[(i*7919)%len(infos)].File
		q := queries[i%len(queries)]
		if err := touch(filepath.Join(dir, file), i); err != nil {
			return rep, err
		}
		t := time.Now()
		if _, err := r.Update(ctx, file); err != nil {
			return rep, err
		}
		r.Search(q, 5)
		upd = append(upd, time.Since(t))

		if err := touch(filepath.Join(dir, file), i+1); err != nil {
			return rep, err
		}
		t = time.Now()
		if _, _, err := r.Refresh(ctx); err != nil {
			return rep, err
		}
		r.Search(q, 5)
		ref = append(ref, time.Since(t))
	}
	rep.ChangedUpdateMS = ms(percentile(upd, 0.5))
	rep.ChangedRefreshMS = ms(percentile(ref, 0.5))
	return rep, nil
}

// touch appends a line to a file, changing its size and mtime as a hand edit would.
func touch(path string, i int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = fmt.Fprintf(f, "edit %d\n", i)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}
