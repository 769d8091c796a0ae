package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/bench/synth"
)

func TestRecallSpeed(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Memories(dir, 60, 1); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, synth.MemoryFile(0)))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RecallSpeed(t.Context(), dir, synth.Queries(10, 2), 3)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != 60 || rep.Queries != 10 {
		t.Fatalf("report %+v, want 60 memories and 10 queries", rep)
	}
	if rep.BuildMS <= 0 || rep.QueryP50 <= 0 || rep.QueryP50 > rep.QueryP99 || rep.ChangedUpdateMS <= 0 || rep.ChangedRefreshMS <= 0 {
		t.Errorf("figures missing or out of order: %+v", rep)
	}
	// Each round edits a file as a hand edit would (round 0 edits the first file twice).
	after, err := os.ReadFile(filepath.Join(dir, synth.MemoryFile(0)))
	if err != nil {
		t.Fatal(err)
	}
	if want := string(before) + "edit 0\nedit 1\n"; string(after) != want {
		t.Errorf("the first file ends %q, want the two edits of round 0", after[len(before):])
	}
	if _, err := RecallSpeed(t.Context(), dir, nil, 1); err == nil {
		t.Error("no queries: want an error")
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.9, 90 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(ds, c.q); got != c.want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("percentile sorted its argument")
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
	if got := ms(1234567 * time.Nanosecond); got != 1.234 {
		t.Errorf("ms(1.234567 ms) = %v, want 1.234", got)
	}
}

func TestContext(t *testing.T) {
	rep, err := Context(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Levels != 8 || rep.Siblings != 2000 || rep.Pieces != 2*rep.Levels || rep.Tokens <= 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range []struct {
		name   string
		s      ContextStats
		runs   int
		target float64
	}{{"load", rep.Load, 3, LoadTargetUS}, {"touch", rep.Touch, 30, TouchTargetUS}} {
		if c.s.Runs != c.runs || c.s.Target != c.target || c.s.Min <= 0 || c.s.Min > c.s.Median || c.s.Median > c.s.P90 {
			t.Errorf("%s: %+v, want %d runs, target %v, min <= median <= p90", c.name, c.s, c.runs, c.target)
		}
	}
	if _, err := Context(t.Context(), 0); err == nil {
		t.Error("no runs: want an error")
	}
}
