package recall

import (
	"os"
	"path/filepath"
	"testing"
)

// devSet returns the directory of the shared LoCoMo dev eval set, or skips the test when it is
// not there (it lives next to the repository, never inside it).
func devSet(t testing.TB, set string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "bench", "locomo-dev", set)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("eval set %s not present (%v); skipping", p, err)
	}
	return p
}

func TestLocomoDevTargets(t *testing.T) {
	for _, c := range []struct {
		set  string
		hit5 float64
	}{{"fact", 0.75}, {"block", 0.90}} {
		t.Run(c.set, func(t *testing.T) {
			stores, err := LoadEvalSet(devSet(t, c.set))
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
