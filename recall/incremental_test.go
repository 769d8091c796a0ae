package recall

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

// incVocab is the text the incremental test's memories are made of: English (a few words
// common enough for long posting lists), Chinese, Korean and Japanese.
var incVocab = []string{
	"deploy", "deploy", "deploy", "friday", "database", "tabs", "spaces", "branch", "policy",
	"review", "tests", "migration", "release", "staging", "rollback", "cache", "index",
	"数据库", "部署", "周五", "缩进", "测试", "分支", "한국어", "데이터베이스", "배포", "금요일",
	"デプロイ", "金曜日", "本番環境",
}

// incText returns n words of incVocab, with a line break now and then.
func incText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if rng.IntN(8) == 0 {
				b.WriteString("\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(incVocab[rng.IntN(len(incVocab))])
	}
	return b.String()
}

// incMemory returns a random memory under file; one in eight has no text at all (and files
// whose names hold no word leave it without a single term).
func incMemory(rng *rand.Rand, file string) memdir.Memory {
	if rng.IntN(8) == 0 {
		return mem(file, "", "", "")
	}
	return mem(file, incText(rng, 1+rng.IntN(3)), incText(rng, rng.IntN(12)), incText(rng, rng.IntN(60)))
}

// rebuilt returns the index a full rebuild of ix's current memories gives: every posting,
// length and normalisation computed afresh by a bulk build, with ix's dictionaries, so that
// term ids (which break exact ties between feedback terms) are the same.
func rebuilt(ix *Index) *Index {
	ref := NewIndex(ix.params)
	ref.dict, ref.words = ix.dict, ix.words
	ms := ix.Memories()
	slices.SortFunc(ms, func(a, b memdir.Memory) int { return strings.Compare(a.File, b.File) })
	z := ref.newAnalyser()
	as := make([]analysed, len(ms))
	for i, m := range ms {
		as[i] = z.analyse(m)
	}
	ref.mu.Lock()
	ref.bulkLink(as)
	ref.mu.Unlock()
	return ref
}

// checkNorms compares ix's normalisation table, as kept up to date change by change, with
// lengthNorm computed afresh for every live document, bit for bit.
func checkNorms(t *testing.T, ix *Index, step int) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	norms := ix.norms()
	if len(norms) != len(ix.lens) {
		t.Fatalf("step %d: %d norms for %d documents", step, len(norms), len(ix.lens))
	}
	for id, d := range ix.lens {
		if norms[id].alive != d.alive {
			t.Fatalf("step %d: doc %d alive %v in the norms, %v in the index", step, id, norms[id].alive, d.alive)
		}
		if !d.alive {
			continue
		}
		for f := range numFields {
			avg := ix.sumLen[f] / float64(ix.live)
			if avg <= 0 {
				avg = 1
			}
			want := lengthNorm(ix.params.B[f], d.len[f], avg)
			if math.Float64bits(norms[id].norm[f]) != math.Float64bits(want) {
				t.Fatalf("step %d: doc %d (%s) field %d: norm %v, want %v", step, id, ix.docs[id].mem.File, f, norms[id].norm[f], want)
			}
		}
	}
}

// TestIncrementalEqualsRebuild applies random sequences of adds, edits (some to identical
// copies of another memory, for ties; some to nothing) and removals to an index built in bulk,
// searching between changes, and checks after each change that every search gives exactly
// what a full rebuild of the same memories gives: the same files in the same order with the
// same scores, bit for bit, and the same normalisation table.
func TestIncrementalEqualsRebuild(t *testing.T) {
	files := []string{"_.md", "-_-.md"} // names without a word: an empty memory has no term
	for i := range 120 {
		files = append(files, fmt.Sprintf("m%03d.md", i))
	}
	var queries []string
	for _, v := range incVocab {
		queries = append(queries, v)
	}
	queries = append(queries, "deploy friday", "database migration rollback", "部署 数据库", "데이터베이스 배포",
		"デプロイ 金曜日", "tabs spaces review", "m007", "friday deploy release staging cache")
	var sawTail, sawCompact bool
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 11))
		ix := NewIndex(DefaultParams())
		// Start from a bulk build, as a warm store does: every posting array full.
		var init []analysed
		z := ix.newAnalyser()
		for _, f := range files[:80] {
			init = append(init, z.analyse(incMemory(rng, f)))
		}
		ix.mu.Lock()
		ix.bulkLink(init)
		ix.mu.Unlock()
		for step := range 300 {
			file := files[rng.IntN(len(files))]
			switch op := rng.IntN(10); {
			case op < 2:
				ix.Remove(file)
			case op < 3: // a copy of another memory: equal scores, ties broken by file name
				if m, ok := ix.Get(files[rng.IntN(len(files))]); ok {
					m.File = file
					ix.Put(m)
				}
			default:
				ix.Put(incMemory(rng, file))
			}
			if rng.IntN(3) == 0 {
				continue // several changes before the next search
			}
			checkNorms(t, ix, step)
			ref := rebuilt(ix)
			for range 6 {
				q := queries[rng.IntN(len(queries))]
				k := []int{1, 3, 5, 10, 60}[rng.IntN(5)]
				got, want := ix.Search(q, k), ref.Search(q, k)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d step %d: Search(%q, %d)\n got %s\nwant %s", seed, step, q, k, hitsString(got), hitsString(want))
				}
			}
			sawTail = sawTail || len(ix.tails) > 0
			sawCompact = sawCompact || len(ix.free) > 0
		}
	}
	if !sawTail || !sawCompact {
		t.Errorf("the changes never used a posting tail (%v) or a compaction (%v)", sawTail, sawCompact)
	}
}

func hitsString(hs []Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s=%g ", h.Memory.File, h.Score)
	}
	return b.String()
}
