package recall

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/internal/sharedtest"
)

// equivStores returns the stores of the cross-store equivalence tests, each opened twice: as
// the bounded search runs it and as the exhaustive reference (every candidate reranked). The
// stores: three synthetic ones (different vocabularies' draws), the first with duplicated
// memories (ties inside a store), a fourth with the first one's content (ties across
// stores), and the real corpus store when it is there.
func equivStores(t *testing.T) (bounded, exhaustive []Searcher, queries []string) {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(root, fmt.Sprint(i))
		if err := synth.Memories(dir, 600, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{synth.MemoryFile(4), synth.MemoryFile(7), synth.MemoryFile(10)} {
		data, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[0], "dup-"+f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dirs = append(dirs, dirs[0]) // the same memories in a second store: equal scores across lists
	queries = synth.Queries(400, 5)
	if corpus := corpusMemoryDir(t); corpus != "" {
		dirs = append(dirs, corpus)
		mems, err := DirSource{Dir: corpus}.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, fi := range mems {
			m, _, err := DirSource{Dir: corpus}.Load(context.Background(), fi.File)
			if err != nil {
				t.Fatal(err)
			}
			queries = append(queries, m.Name, m.Description, strings.Join(strings.Fields(m.Body)[:min(6, len(strings.Fields(m.Body)))], " "))
		}
	}
	open := func(dir string, full bool) Searcher {
		r := NewRanker(DirSource{Dir: dir}, RankerOptions{Workers: 1})
		if _, _, err := r.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Index().exhaustive = full
		return r
	}
	for i, d := range dirs {
		b := open(d, false)
		if i%2 == 1 {
			b = unsized{b} // counts as a large store: SearchAll gives it a goroutine
		}
		bounded = append(bounded, b)
		exhaustive = append(exhaustive, open(d, true))
	}
	return bounded, exhaustive, queries
}

// unsized hides a Searcher's Len.
type unsized struct{ Searcher }

// corpusMemoryDir returns a real store of the shared corpus, or "" when the corpus is absent.
func corpusMemoryDir(t *testing.T) string {
	if _, err := os.Stat(filepath.Join(sharedtest.Root(t), "..", "shared", "corpus", "memory")); err != nil {
		t.Logf("no shared corpus: searching the synthetic stores only")
		return ""
	}
	base := sharedtest.Dir(t, "corpus", "memory")
	var found string
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && d.Name() == "MEMORY.md" {
			found = filepath.Dir(p)
		}
		return nil
	})
	return found
}

// TestSearchAllEqualsExhaustiveMerge: the merged list of the bounded searches is, hit for hit
// (file, store, score), what ranking every store exhaustively and merging gives.
func TestSearchAllEqualsExhaustiveMerge(t *testing.T) {
	bounded, exhaustive, queries := equivStores(t)
	ties := 0
	for _, q := range queries {
		for _, k := range []int{1, 3, 5, 20} {
			got := SearchAll(bounded, q, k)
			lists := make([][]Hit, len(exhaustive))
			for i, s := range exhaustive {
				lists[i] = s.Search(q, k)
			}
			want := Merge(lists, k)
			if d := diffMerged(want, got); d != "" {
				t.Fatalf("SearchAll(%q, %d) differs from the exhaustive merge:\n%s", q, k, d)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score == got[i-1].Score {
					ties++
				}
			}
		}
	}
	if ties == 0 {
		t.Fatal("no tied scores among the results: the ties are not tested")
	}
}

func diffMerged(want, got []MergedHit) string {
	var b strings.Builder
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = fmt.Sprintf("%d:%s %v", want[i].List, want[i].Memory.File, want[i].Score)
		}
		if i < len(got) {
			g = fmt.Sprintf("%d:%s %v", got[i].List, got[i].Memory.File, got[i].Score)
		}
		if w != g {
			fmt.Fprintf(&b, "  #%d want %s, got %s\n", i, w, g)
		}
	}
	return b.String()
}

// TestExpandEqualsSortedReference: the feedback terms expand picks (summed by term id, kept
// by insertion) are the ones, with the same weights, that collecting every term, sorting and
// cutting gives.
func TestExpandEqualsSortedReference(t *testing.T) {
	_, stores, queries := equivStores(t)
	checked := 0
	for _, srch := range stores {
		ix := srch.(*Ranker).Index()
		ix.mu.RLock()
		for _, text := range queries {
			q := ix.analyseQuery(Tokenize(stripQuestionPhrases(text), nil))
			if len(q.terms) == 0 {
				continue
			}
			s := new(scratch)
			s.reset(len(ix.docs))
			ix.accumulate(s, q.terms)
			top := ix.top(s, q.total, ix.params.FeedbackDocs)
			want := expandRef(ix, top, q.terms)
			got := slices.Clone(ix.expand(s, top, q.terms))
			if !slices.Equal(want, got) {
				t.Fatalf("expand(%q) = %v, want %v", text, got, want)
			}
			if len(s.fslot) != 0 {
				t.Fatalf("expand(%q) left weights behind in the scratch", text)
			}
			if len(got) > 0 {
				checked++
			}
		}
		ix.mu.RUnlock()
	}
	if checked == 0 {
		t.Fatal("no query had feedback terms")
	}
}

// expandRef is expand as it was before the scratch space: every term collected, sorted by id
// to sum, then sorted by weight and cut. It picks feedback terms from the top documents (relevance-model style: a term's weight
// is its share of each document's length, weighted by the document's score, times its idf)
// and returns them as extra query terms scaled to FeedbackWeight.
func expandRef(ix *Index, top []cand, q []qterm) []qterm {
	p := ix.params
	if len(top) == 0 || top[0].score <= 0 {
		return nil
	}
	inQuery := make(map[uint32]bool, len(q))
	for _, t := range q {
		inQuery[t.tid] = true
	}
	// Collect (term, weight) from each feedback document, then merge equal terms after a
	// sort: cheaper than a map for a few hundred terms.
	var ws []qterm
	best := top[0].score
	for _, c := range top {
		d := &ix.docs[c.doc]
		dl := float64(d.len[fieldName] + d.len[fieldDesc] + d.len[fieldBody])
		if dl == 0 {
			continue
		}
		for i, tid := range d.terms {
			// A term of one memory only cannot bring in another; a term in more than a
			// fifth of them is too common to say what the top memories are about (and
			// costs the most to score).
			if df := ix.terms.at(tid).df; df < 2 || int(df)*5 > ix.live || inQuery[tid] {
				continue
			}
			ws = append(ws, qterm{tid: tid, w: c.score / best * float64(d.tfs[i]) / dl})
		}
	}
	slices.SortFunc(ws, func(a, b qterm) int { return cmp.Compare(a.tid, b.tid) })
	exp := ws[:0]
	for i, t := range ws {
		if i > 0 && exp[len(exp)-1].tid == t.tid {
			exp[len(exp)-1].w += t.w
			continue
		}
		exp = append(exp, t)
	}
	for i := range exp {
		exp[i].w *= ix.idf(ix.terms.at(exp[i].tid).df)
		exp[i].feedback = true
		exp[i].key = ix.terms.at(exp[i].tid).key
	}
	slices.SortFunc(exp, func(a, b qterm) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.tid, b.tid)
	})
	if len(exp) > p.FeedbackTerms {
		exp = exp[:p.FeedbackTerms]
	}
	if len(exp) == 0 || exp[0].w <= 0 {
		return nil
	}
	maxW := exp[0].w
	for i := range exp {
		exp[i].w = exp[i].w / maxW * p.FeedbackWeight
	}
	return exp
}
