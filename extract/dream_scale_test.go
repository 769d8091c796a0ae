package extract

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

// genStore writes n memories into a fresh dir: bodies of 20 to 60 words drawn from a Zipf
// distribution over a 5,000-word vocabulary, every 20th a near-duplicate of an earlier one (a
// word changed), every 30th an exact copy, every 25th a newer value of an earlier memory's
// fact; MEMORY.md lists the first 150.
func genStore(tb testing.TB, n int, seed uint64) string {
	tb.Helper()
	dir := tb.TempDir()
	r := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(r, 1.1, 2, 4999)
	word := func() string { return "w" + strconv.FormatUint(z.Uint64(), 36) }
	bodies := make([]string, 0, n)
	var index strings.Builder
	for i := range n {
		var body string
		switch {
		case i > 0 && i%30 == 0:
			body = bodies[r.IntN(len(bodies))]
		case i > 0 && i%20 == 0:
			w := strings.Fields(bodies[r.IntN(len(bodies))])
			w[r.IntN(len(w))] = word()
			body = strings.Join(w, " ")
		default:
			k := 20 + r.IntN(40)
			w := make([]string, k)
			for j := range w {
				w[j] = word()
			}
			body = strings.Join(w, " ")
			if i%25 == 0 {
				body += "\nport: " + strconv.Itoa(i)
			}
		}
		bodies = append(bodies, body)
		name := fmt.Sprintf("memory %d", i)
		file := fmt.Sprintf("m%06d.md", i)
		text := fmt.Sprintf("---\nname: %s\ndescription: about %s\ntype: project\n---\n%s\n", name, word(), body)
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			tb.Fatal(err)
		}
		when := t0.Add(-time.Duration(n-i) * time.Minute)
		if err := os.Chtimes(p, when, when); err != nil {
			tb.Fatal(err)
		}
		if i < 150 {
			index.WriteString(memdir.FormatIndexLine(name, file, "about it") + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, memdir.IndexFile), []byte(index.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func planOf(tb testing.TB, dir string) Plan {
	tb.Helper()
	return planWith(tb, dir, Options{Now: t0, ForgetAfter: -1})
}

func planWith(tb testing.TB, dir string, opts Options) Plan {
	tb.Helper()
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := PlanDream(context.Background(), s, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// The similarity index changes which pairs are compared, never the plan: on generated stores
// full of near-duplicates, copies and contradicting facts, with the default duplicate threshold
// and with thresholds below, between and above the subject threshold, the plan equals the
// all-pairs plan.
func TestPlanDreamIndexMatchesAllPairs(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		dir := genStore(t, 400, seed)
		for _, threshold := range []float64{0, 0.3, 0.6, 0.95} {
			opts := Options{Now: t0, ForgetAfter: -1, DuplicateThreshold: threshold}
			fast := planWith(t, dir, opts)
			exhaustive = true
			slow := planWith(t, dir, opts)
			exhaustive = false
			if fast.Archives() == 0 {
				t.Fatal("the generated store gave nothing to archive")
			}
			if fast.Compared >= slow.Compared/10 {
				t.Errorf("seed %d, threshold %v: the index compared %d pairs, all pairs %d", seed, threshold, fast.Compared, slow.Compared)
			}
			fast.Compared, slow.Compared = 0, 0
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("seed %d, threshold %v: plan with the index differs from all pairs (-all +index):\n%s", seed, threshold, diff)
			}
		}
	}
}

// selfJoin misses no pair at or over its threshold: on random sets of Zipf-drawn tokens, many of
// them copies with a few tokens changed, it returns every pair that all pairs compared finds.
func TestSelfJoinFindsEveryPair(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	z := rand.NewZipf(r, 1.2, 1, 300)
	sets := make([][]uint32, 600)
	for i := range sets {
		var s []uint32
		if i > 0 && i%3 == 0 {
			s = slices.Clone(sets[r.IntN(i)])
			for range 1 + r.IntN(4) {
				s[r.IntN(len(s))] = 300 - uint32(z.Uint64())
			}
		} else {
			for range 1 + r.IntN(30) {
				s = append(s, 300-uint32(z.Uint64())) // the rarest first, as a join orders them
			}
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
	}
	for _, th := range []float64{0.2, 0.5, 0.8, 1} {
		got := map[[2]int32]bool{}
		left := selfJoin(sets, 301, th, time.Time{}, func(a, b int32) { got[[2]int32{min(a, b), max(a, b)}] = true })
		if left != nil {
			t.Fatalf("threshold %v: %d sets left without a deadline", th, len(left))
		}
		want := 0
		for a := range sets {
			for b := range a {
				if jaccardSets(sets[a], sets[b]) >= th {
					want++
					if !got[[2]int32{int32(b), int32(a)}] {
						t.Errorf("threshold %v: pair %d, %d (similarity %.3f) not found", th, b, a, jaccardSets(sets[a], sets[b]))
					}
				}
			}
		}
		if want == 0 || len(got) > 20*want+100 {
			t.Errorf("threshold %v: %d pairs over it, %d returned", th, want, len(got))
		}
		t.Logf("threshold %v: %d pairs over it, %d returned of %d", th, want, len(got), len(sets)*(len(sets)-1)/2)
	}
}

// Planning costs about as much per memory at 2,000 memories as at 200: ten times the memories is
// well under 25 times the work (all pairs would be a hundred times the pairs).
func TestPlanDreamScalesLinearly(t *testing.T) {
	small := planOf(t, genStore(t, 200, 9))
	large := planOf(t, genStore(t, 2000, 9))
	if small.Compared == 0 {
		t.Fatal("nothing compared")
	}
	// The work of a plan: each memory read and shingled, then each pair compared.
	ratio := float64(2000+large.Compared) / float64(200+small.Compared)
	t.Logf("pairs compared: 200 memories %d, 2000 memories %d (work ×%.1f)", small.Compared, large.Compared, ratio)
	if ratio > 25 || large.Compared > 2000*1999/2/20 {
		t.Errorf("2000 memories cost %.1f× the work of 200 (%d pairs); want at most 25×", ratio, large.Compared)
	}
}

// BenchmarkDream plans a dream over generated stores, beside the yardstick of reading the store
// (memdir's List, which every plan does first): go test ./extract -run '^$' -bench Dream
// (STRATA_BENCH_LARGE=1 adds 100,000 memories).
func BenchmarkDream(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("STRATA_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		dir := genStore(b, n, 1)
		s, err := memdir.Open(dir, memdir.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("list/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.List(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("plan/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				p, err := PlanDream(context.Background(), s, Options{Now: t0, ForgetAfter: -1})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(p.Compared), "pairs")
			}
		})
	}
}
