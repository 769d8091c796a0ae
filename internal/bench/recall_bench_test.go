package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/recall"
)

// The recall speed benchmarks (what `strata bench recall --synthetic` measures) share one
// synthetic store of 10,000 memories of about 1 KB (half English, half Chinese), written once
// per test binary run.
var (
	synthOnce sync.Once
	synthDir  string
	synthErr  error
)

const synthN = 10000

func synthStore(b *testing.B) string {
	b.Helper()
	synthOnce.Do(func() {
		synthDir, synthErr = os.MkdirTemp("", "recall-bench-*")
		if synthErr == nil {
			synthErr = synth.Memories(synthDir, synthN, 1)
		}
	})
	if synthErr != nil {
		b.Fatal(synthErr)
	}
	return synthDir
}

// BenchmarkColdBuild reads, parses and indexes the whole store (target: under 1 s).
func BenchmarkColdBuild(b *testing.B) {
	dir := synthStore(b)
	for b.Loop() {
		r := recall.NewRanker(recall.DirSource{Dir: dir}, recall.RankerOptions{})
		if _, _, err := r.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func warmRanker(b *testing.B) *recall.Ranker {
	r := recall.NewRanker(recall.DirSource{Dir: synthStore(b)}, recall.RankerOptions{})
	if _, _, err := r.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkWarmQuery searches a warm index (target: p50 under 1 ms; ns/op is the mean).
func BenchmarkWarmQuery(b *testing.B) {
	r := warmRanker(b)
	qs := synth.Queries(1000, 2)
	i := 0
	for b.Loop() {
		r.Search(qs[i%len(qs)], 5)
		i++
	}
}

// BenchmarkQueryAfterChange edits one file, then refreshes by name (Update) and searches
// (target: under 5 ms).
func BenchmarkQueryAfterChange(b *testing.B) {
	r := warmRanker(b)
	dir := synthStore(b)
	qs := synth.Queries(100, 3)
	i := 0
	for b.Loop() {
		file := filepathBase(i)
		b.StopTimer()
		if err := touch(filepath.Join(dir, file), i); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := r.Update(context.Background(), file); err != nil {
			b.Fatal(err)
		}
		r.Search(qs[i%len(qs)], 5)
		i++
	}
}

// BenchmarkRefreshAfterChange is BenchmarkQueryAfterChange when the change must be found by a
// full scan (Refresh) of the store.
func BenchmarkRefreshAfterChange(b *testing.B) {
	r := warmRanker(b)
	dir := synthStore(b)
	qs := synth.Queries(100, 3)
	i := 0
	for b.Loop() {
		file := filepathBase(i)
		b.StopTimer()
		if err := touch(filepath.Join(dir, file), i); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, _, err := r.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
		r.Search(qs[i%len(qs)], 5)
		i++
	}
}

func filepathBase(i int) string { return synth.MemoryFile((i * 7919) % synthN) }

// Three synthetic stores of 10,000 memories each (seeds 1, 2, 3, as `strata bench recall
// --synthetic 10000 --stores 3` writes them), written once per test binary run.
var (
	storesOnce sync.Once
	storesDir  string
	storesErr  error
)

func synthStores(b *testing.B) []recall.Searcher {
	b.Helper()
	storesOnce.Do(func() {
		storesDir, storesErr = os.MkdirTemp("", "recall-bench-stores-*")
		for i := range 3 {
			if storesErr == nil {
				storesErr = synth.Memories(filepath.Join(storesDir, fmt.Sprint(i)), synthN, uint64(i+1))
			}
		}
	})
	if storesErr != nil {
		b.Fatal(storesErr)
	}
	ss := make([]recall.Searcher, 3)
	for i := range ss {
		r := recall.NewRanker(recall.DirSource{Dir: filepath.Join(storesDir, fmt.Sprint(i))}, recall.RankerOptions{})
		if _, _, err := r.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
		ss[i] = r
	}
	return ss
}

// BenchmarkWarmQueryStores ranks a query across three warm stores of 10,000 memories and
// merges the hits (recall.SearchAll; what the warm line of `strata bench recall --stores 3`
// times; target: p50 under 1 ms).
func BenchmarkWarmQueryStores(b *testing.B) {
	ss := synthStores(b)
	qs := synth.Queries(1000, 2)
	i := 0
	for b.Loop() {
		recall.SearchAll(ss, qs[i%len(qs)], 5)
		i++
	}
}
