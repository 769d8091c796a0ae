package bench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// TestSavedIndexRanksEvalSetsAlike ranks every query of the LoCoMo dev eval sets (skipped when
// they are not beside the repository) with an index built from the files and with the same
// index saved and opened again by a new ranker, as a new process would: the rankings must be
// the same to the last bit of every score.
func TestSavedIndexRanksEvalSetsAlike(t *testing.T) {
	for _, set := range []string{"fact", "block"} {
		stores, err := LoadEvalSet(sharedtest.Dir(t, "bench", "locomo-dev", set))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stores {
			t.Run(set+"/"+s.Name, func(t *testing.T) {
				cache := filepath.Join(t.TempDir(), "x.idx")
				open := func(cache string) *recall.Ranker {
					st, err := memdir.Open(s.MemoryDir, memdir.Options{})
					if err != nil {
						t.Fatal(err)
					}
					r := recall.NewStoreRanker(st, recall.RankerOptions{Cache: cache})
					if _, _, err := r.Refresh(t.Context()); err != nil {
						t.Fatal(err)
					}
					return r
				}
				rank := func(r *recall.Ranker) []string {
					var out []string
					for _, q := range s.Queries {
						var b strings.Builder
						b.WriteString(q.ID)
						for _, h := range r.Search(q.Query, 10) {
							fmt.Fprintf(&b, " %s %.17g", h.Memory.File, h.Score)
						}
						out = append(out, b.String())
					}
					return out
				}
				want := rank(open(""))
				open(cache) // builds and saves the index
				if diff := cmp.Diff(want, rank(open(cache))); diff != "" {
					t.Errorf("saved index ranks differently (-fresh +saved):\n%s", diff)
				}
			})
		}
	}
}
