package extract

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := PlanDream(context.Background(), s, Options{Now: t0, ForgetAfter: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// The similarity index changes which pairs are compared, never the plan: on generated stores
// full of near-duplicates, copies and contradicting facts, and on the same store with
// thresholds that the tests of the rules use, the plan equals the all-pairs plan.
func TestPlanDreamIndexMatchesAllPairs(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		dir := genStore(t, 400, seed)
		fast := planOf(t, dir)
		exhaustive = true
		slow := planOf(t, dir)
		exhaustive = false
		if fast.Archives() == 0 {
			t.Fatal("the generated store gave nothing to archive")
		}
		fast.Compared, slow.Compared = 0, 0
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("seed %d: plan with the index differs from all pairs (-all +index):\n%s", seed, diff)
		}
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
