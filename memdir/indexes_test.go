package memdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFairShares(t *testing.T) {
	for _, tc := range []struct {
		needs []int
		total int
		want  []int
	}{
		{[]int{10, 20, 30}, 200, []int{10, 20, 30}}, // all fit
		{[]int{150, 150}, 200, []int{100, 100}},
		{[]int{10, 150, 150}, 200, []int{10, 95, 95}},  // the small one's rest goes to the others
		{[]int{150, 150, 150}, 200, []int{67, 67, 66}}, // the remainder to the earlier (project first)
		{[]int{300, 0, 50}, 200, []int{150, 0, 50}},
	} {
		if diff := cmp.Diff(tc.want, fairShares(tc.needs, tc.total)); diff != "" {
			t.Errorf("fairShares(%v, %d) (-want +got):\n%s", tc.needs, tc.total, diff)
		}
	}
}

// Three stores' indexes in one context share the project store's limits: each small index is
// whole, the big ones are cut to their shares with a warning that says so, and the total stays
// within the limit.
func TestLoadIndexesShareOneBudget(t *testing.T) {
	base := t.TempDir()
	var stores []*Store
	for i, n := range []int{150, 10, 120} {
		s, err := Open(filepath.Join(base, fmt.Sprint(i)), Options{MaxIndexLines: 200})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for j := range n {
			fmt.Fprintf(&b, "- [m%d](m%d.md) — 记忆 %d\n", j, j, j)
		}
		if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.IndexPath(), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	missing, _ := Open(filepath.Join(base, "none"), Options{})
	stores = append(stores, missing)
	idx, errs := LoadIndexes(t.Context(), stores, nil)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var lines []int
	total := 0
	for _, x := range idx {
		n := CountLines(x.Text)
		lines = append(lines, n)
		total += n
	}
	if diff := cmp.Diff([]int{95, 10, 95, 0}, lines); diff != "" {
		t.Errorf("lines kept (-want +got):\n%s", diff)
	}
	if total > 200 {
		t.Errorf("total %d lines, over the limit", total)
	}
	if !idx[0].Truncated || idx[1].Truncated || !idx[2].Truncated || idx[3].Exists {
		t.Errorf("truncated: %v %v %v, missing exists %v", idx[0].Truncated, idx[1].Truncated, idx[2].Truncated, idx[3].Exists)
	}
	if !strings.Contains(idx[0].Warning, "The 3 memory stores' indexes share the limits of 200 lines") || !strings.Contains(idx[0].Warning, "share was 95 lines") {
		t.Errorf("warning: %s", idx[0].Warning)
	}
	// One store alone is LoadIndex.
	one, errs := LoadIndexes(t.Context(), stores[:1], nil)
	want, _ := stores[0].LoadIndex(t.Context())
	if errs[0] != nil || one[0] != want {
		t.Errorf("one store: %+v, want %+v", one[0], want)
	}
}
