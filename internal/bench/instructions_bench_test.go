package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/workspace"
)

// repoSetup builds the synthetic repository of "strata bench context" in a temp dir.
func repoSetup(b *testing.B) (synth.RepoLayout, instructions.Options) {
	b.Helper()
	dir := b.TempDir()
	l, err := synth.Repo(dir)
	if err != nil {
		b.Fatal(err)
	}
	opts := instructions.Options{Env: config.Env{Home: filepath.Join(dir, "home", ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")},
		ScanSecrets:     workspace.ScanSecrets, // a session scans every piece for secrets
		ApprovedImports: []string{l.Root}}      // the parents' fragments lie outside the cwd
	return l, opts
}

// BenchmarkLoad (what `strata bench context` times as "load") is a session-start load in the synthetic repository: walk up 8 levels, read
// each CLAUDE.md and resolve its import. It also reports the CPU time per load (cpu-ns/op,
// user and system, background GC included), which a busy machine moves less than wall time.
func BenchmarkLoad(b *testing.B) {
	l, opts := repoSetup(b)
	ctx := context.Background()
	c0 := cpuTime()
	for b.Loop() {
		s, err := instructions.Load(ctx, l.Cwd, opts)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Sources()); n != 2*l.Levels {
			b.Fatalf("loaded %d pieces, want %d", n, 2*l.Levels)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTouch (the "touch" of `strata bench context`) is a touch of a deep file when nothing new applies.
func BenchmarkTouch(b *testing.B) {
	l, opts := repoSetup(b)
	ctx := context.Background()
	s, err := instructions.Load(ctx, l.Cwd, opts)
	if err != nil {
		b.Fatal(err)
	}
	s.Touch(ctx, l.DeepFile)
	for b.Loop() {
		if got := s.Touch(ctx, l.DeepFile); len(got) != 0 {
			b.Fatalf("touch added %d pieces", len(got))
		}
	}
}
