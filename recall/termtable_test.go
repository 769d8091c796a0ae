package recall

import (
	"math/rand/v2"
	"testing"
)

// TestTermTable checks termTable against a map: values kept through growth, new keys given
// the value offered, reset forgetting everything, also when the generation wraps around.
func TestTermTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tt termTable
	for round, n := range []int{0, 1, 5, 2000, 70000, 3} {
		if round == 4 {
			tt.gen = ^uint32(0) // the next reset wraps
		}
		tt.reset()
		want := map[uint64]uint32{}
		keys := []uint64{0, 1, 1 << 63} // low bits alike, and zero
		for range n {
			keys = append(keys, rng.Uint64()&^0xff) // many keys landing in the same slots
		}
		for i, k := range keys {
			if got, ok := tt.find(k); ok != hasKey(want, k) || ok && got != want[k] {
				t.Fatalf("round %d, key %d: find = %d, %v before get", round, i, got, ok)
			}
			next := uint32(len(want))
			got, ok := tt.get(k, next)
			w, had := want[k]
			if !had {
				want[k], w = next, next
			}
			if got != w || ok != had {
				t.Fatalf("round %d, key %d (%#x): get = %d, %v; want %d, %v", round, i, k, got, ok, w, had)
			}
		}
		for k, w := range want {
			if got, ok := tt.get(k, 1<<31); !ok || got != w {
				t.Fatalf("round %d: key %#x = %d, %v after inserting all; want %d", round, k, got, ok, w)
			}
		}
		if tt.n != len(want) {
			t.Errorf("round %d: %d entries, want %d", round, tt.n, len(want))
		}
	}
}

func hasKey(m map[uint64]uint32, k uint64) bool {
	_, ok := m[k]
	return ok
}
