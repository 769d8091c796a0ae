package recall

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
)

// BenchmarkOpenSaved opens the saved index of 10,000 synthetic memories (STRATA_BENCH_STORE:
// a directory of them to use instead of writing one) and links it, as a new process does
// before scanning the store; the store's scan is not included.
func BenchmarkOpenSaved(b *testing.B) {
	dir := os.Getenv("STRATA_BENCH_STORE")
	if dir == "" {
		dir = b.TempDir()
		if err := synth.Memories(dir, 10000, 1); err != nil {
			b.Fatal(err)
		}
	}
	cache := filepath.Join(b.TempDir(), "x.idx")
	storeRanker(b, dir, cache)
	b.ResetTimer()
	for b.Loop() {
		si, err := readSaved(cache)
		if err != nil {
			b.Fatal(err)
		}
		if err := NewIndex(DefaultParams()).open(si); err != nil {
			b.Fatal(err)
		}
	}
}
