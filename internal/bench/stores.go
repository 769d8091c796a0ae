package bench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// StoresReport holds the figures of StoresSpeed, in milliseconds; its JSON form is what
// `strata bench recall --synthetic N --stores S --json` prints.
type StoresReport struct {
	Stores   int `json:"stores"`
	Memories int `json:"memories"` // in all stores
	// Cold: a session's first recall, from nothing in memory to the first ranking across every
	// store (each store's index built, then ranked and merged), over ColdRounds fresh starts.
	ColdRounds int     `json:"cold_rounds"`
	ColdP50    float64 `json:"cold_p50_ms"`
	ColdP95    float64 `json:"cold_p95_ms"`
	// Warm: ranking a query in every store's warm index at once and merging the hits into one
	// list (recall.SearchAll), over Queries queries.
	Queries  int     `json:"queries"`
	QueryP50 float64 `json:"query_p50_ms"`
	QueryP95 float64 `json:"query_p95_ms"`
	QueryP99 float64 `json:"query_p99_ms"`
	// QueryCPUMS is the process's CPU time per warm query (all threads, mean): on a busy
	// machine it shows the work apart from the wait for a core.
	QueryCPUMS float64 `json:"query_cpu_ms"`
	// Turn: a whole recall turn on warm indexes (recall.Recaller.Recall: every store's change
	// scan, the ranking, the merge, and reading the memories picked), over Turns turns.
	Turns   int     `json:"turns"`
	TurnP50 float64 `json:"turn_p50_ms"`
	TurnP95 float64 `json:"turn_p95_ms"`
}

// StoresSpeed measures recall across the memory dirs dirs, the first as the project's store and
// the others mounted (see synth.Memories): cold, warm and whole-turn latency (see StoresReport).
// turns bounds the whole-turn rounds (each scans every store for changes).
func StoresSpeed(ctx context.Context, dirs []string, queries []string, coldRounds, turns int) (StoresReport, error) {
	rep := StoresReport{Stores: len(dirs)}
	if len(queries) == 0 || len(dirs) == 0 {
		return rep, fmt.Errorf("bench: recall across stores: no queries or no stores")
	}
	stores := make([]*memdir.Store, len(dirs))
	for i, d := range dirs {
		s, err := memdir.Open(d, memdir.Options{})
		if err != nil {
			return rep, err
		}
		stores[i] = s
	}
	var rankers []*recall.Ranker
	var cold []time.Duration
	for range max(coldRounds, 1) {
		t := time.Now()
		rankers = make([]*recall.Ranker, len(stores))
		lists := make([][]recall.Hit, len(stores))
		for i, s := range stores {
			rankers[i] = recall.NewStoreRanker(s, recall.RankerOptions{})
			if _, _, err := rankers[i].Refresh(ctx); err != nil {
				return rep, err
			}
			lists[i] = rankers[i].Search(queries[0], 5)
		}
		recall.Merge(lists, 5)
		cold = append(cold, time.Since(t))
	}
	rep.ColdRounds = len(cold)
	rep.ColdP50, rep.ColdP95 = ms(percentile(cold, 0.5)), ms(percentile(cold, 0.95))
	for _, r := range rankers {
		rep.Memories += r.Index().Len()
	}

	ss := make([]recall.Searcher, len(rankers))
	for i, r := range rankers {
		ss[i] = r
	}
	search := func(q string) { recall.SearchAll(ss, q, 5) }
	for _, q := range queries { // warm up once, then measure
		search(q)
	}
	lat := make([]time.Duration, 0, len(queries))
	c0 := cpuTime()
	for _, q := range queries {
		t := time.Now()
		search(q)
		lat = append(lat, time.Since(t))
	}
	rep.QueryCPUMS = ms(cpuTime()-c0) / float64(len(queries))
	rep.Queries = len(queries)
	rep.QueryP50, rep.QueryP95, rep.QueryP99 = ms(percentile(lat, 0.5)), ms(percentile(lat, 0.95)), ms(percentile(lat, 0.99))

	mounts := []recall.Mount{{Dir: dirs[0], Ranker: rankers[0]}}
	for i, r := range rankers[1:] {
		mounts = append(mounts, recall.Mount{Name: filepath.Base(dirs[i+1]), Dir: dirs[i+1], Ranker: r})
	}
	rc := recall.NewRecaller(mounts, recall.Options{Budget: recall.Budget{SessionBytes: math.MaxInt}})
	var turn []time.Duration
	for i := range max(turns, 1) {
		t := time.Now()
		if _, err := rc.Recall(ctx, recall.NewSession(), recall.Turn{Query: queries[i%len(queries)]}); err != nil {
			return rep, err
		}
		turn = append(turn, time.Since(t))
	}
	rep.Turns = len(turn)
	rep.TurnP50, rep.TurnP95 = ms(percentile(turn, 0.5)), ms(percentile(turn, 0.95))
	return rep, nil
}
