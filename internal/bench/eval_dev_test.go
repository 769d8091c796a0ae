package bench

import (
	"testing"

	"github.com/strata-mem/strata/internal/sharedtest"
)

// TestLocomoDevTargets ranks the shared LoCoMo dev eval sets (skipped when they are not beside
// the repository) and holds the ranker to its hit@5 targets.
func TestLocomoDevTargets(t *testing.T) {
	for _, c := range []struct {
		set  string
		hit5 float64
	}{{"fact", 0.75}, {"block", 0.90}} {
		t.Run(c.set, func(t *testing.T) {
			stores, err := LoadEvalSet(sharedtest.Dir(t, "bench", "locomo-dev", c.set))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Evaluate(t.Context(), stores, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := rep.Overall
			t.Logf("%s: n=%d hit@1=%.3f hit@5=%.3f hit@10=%.3f rec@5=%.3f mrr=%.3f", c.set, o.N, o.Hit1, o.Hit5, o.Hit10, o.Rec5, o.MRR)
			for _, k := range []string{"1", "2", "3", "4"} {
				m := rep.Categories[k]
				t.Logf("  cat %s: n=%d hit@1=%.3f hit@5=%.3f hit@10=%.3f rec@5=%.3f mrr=%.3f", k, m.N, m.Hit1, m.Hit5, m.Hit10, m.Rec5, m.MRR)
			}
			if o.Hit5 < c.hit5 {
				t.Errorf("%s hit@5 = %.3f, want >= %.2f", c.set, o.Hit5, c.hit5)
			}
		})
	}
}
