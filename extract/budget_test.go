package extract

import (
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

// A plan bounded by MaxCompared compares only the newest memories, archives less (never more)
// and says it stopped short; the summary says so too.
func TestPlanDreamBudget(t *testing.T) {
	dir := genStore(t, 300, 4)
	full := planOf(t, dir)
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var short Plan
	short, err = PlanDream(t.Context(), s, Options{Now: t0, ForgetAfter: -1, MaxCompared: 100})
	if err != nil {
		t.Fatal(err)
	}
	if short.Short == "" || !strings.Contains(short.Short, "newest 100 of 300") {
		t.Errorf("Short = %q", short.Short)
	}
	if full.Short != "" {
		t.Errorf("an unbounded plan stopped short: %q", full.Short)
	}
	if short.Archives() >= full.Archives() || short.Archives() == 0 {
		t.Errorf("bounded plan archives %d, full %d; want fewer, but some", short.Archives(), full.Archives())
	}
	if got := (Consolidation{Plan: short}).Summary(); !strings.Contains(got, "stopped short") {
		t.Errorf("summary %q does not say it stopped short", got)
	}
}
