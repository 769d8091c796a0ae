package workspace

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/bench/synth"
)

func benchSetup(b *testing.B) (synth.RepoLayout, config.Env) {
	dir := b.TempDir()
	l, err := synth.Repo(dir)
	if err != nil {
		b.Fatal(err)
	}
	return l, config.Env{Home: filepath.Join(dir, "home", ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")}
}

// BenchmarkLoad is what strata lint does: settings read once, the instruction set loaded.
func BenchmarkLoad(b *testing.B) {
	l, env := benchSetup(b)
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ws, err := Open(b.Context(), Options{Cwd: l.Cwd, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.Instructions(b.Context(), SetOptions{NoIndex: true, SettingsDiagnostics: true}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}

// BenchmarkContext is what strata context does: the same, with the memory index.
func BenchmarkContext(b *testing.B) {
	l, env := benchSetup(b)
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ws, err := Open(b.Context(), Options{Cwd: l.Cwd, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.Instructions(b.Context(), SetOptions{SettingsDiagnostics: true}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}

// reportMedian reports the median of the timed iterations, which the noise of a shared machine
// moves less than the mean.
func reportMedian(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, "median-µs")
}
