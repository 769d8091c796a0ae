package recall

import (
	"reflect"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/memdir"
)

// TestRankingIndependentOfTermIDs: indexes of the same memories rank every query alike, hits
// and scores bit for bit, though their term ids differ: one built by one worker, others by
// several (ids in the order goroutines met the terms), and one that read the memories in
// reverse, one at a time (as a warm index does after changes).
func TestRankingIndependentOfTermIDs(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Memories(dir, 1500, 7); err != nil {
		t.Fatal(err)
	}
	store, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	build := func(workers int) *Index {
		r := NewStoreRanker(store, RankerOptions{Workers: workers})
		if _, _, err := r.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		return r.Index()
	}
	want := build(1)
	reversed := NewIndex(DefaultParams())
	ms := want.Memories()
	for i := len(ms) - 1; i >= 0; i-- {
		reversed.Put(ms[i])
	}
	others := map[string]*Index{"4 workers": build(4), "8 workers": build(8), "reversed": reversed}
	for _, q := range append(synth.Queries(300, 3), "deploy the thing on friday", "数据库迁移") {
		w := want.Search(q, 10)
		for name, ix := range others {
			if g := ix.Search(q, 10); !reflect.DeepEqual(w, g) {
				t.Errorf("%s: Search(%q)\n got  %s\n want %s", name, q, hitsString(g), hitsString(w))
			}
		}
	}
}
