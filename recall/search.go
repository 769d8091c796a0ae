package recall

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sync"

	"github.com/strata-mem/strata/memdir"
)

// Hit is one ranked memory.
type Hit struct {
	Memory memdir.Memory
	Score  float64
}

type qterm struct {
	tid  uint32
	w    float64
	pair bool
}

// scratch holds a search's per-document accumulators, reused across searches.
type scratch struct {
	score   []float64
	cov     []float64
	touched []uint32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (s *scratch) reset(n int) {
	for _, d := range s.touched {
		s.score[d] = 0
		s.cov[d] = 0
	}
	s.touched = s.touched[:0]
	if cap(s.score) < n {
		s.score = make([]float64, n)
		s.cov = make([]float64, n)
	}
	s.score = s.score[:n]
	s.cov = s.cov[:n]
}

// Search ranks the memories against query and returns at most k hits, best first. Ties are
// broken by file name so results are deterministic. A query with no indexable term (only
// stopwords or punctuation) returns nothing.
func (ix *Index) Search(query string, k int) []Hit {
	if k <= 0 {
		return nil
	}
	toks := Tokenize(query, nil)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}
	q, total := ix.queryTerms(toks)
	if len(q) == 0 {
		return nil
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.reset(len(ix.docs))
	ix.accumulate(s, q)
	p := ix.params
	if p.FeedbackDocs > 0 && p.FeedbackTerms > 0 && p.FeedbackWeight > 0 {
		top := ix.top(s, q, total, p.FeedbackDocs)
		if exp := ix.expand(top, q); len(exp) > 0 {
			ix.accumulate(s, exp)
		}
	}
	depth := k
	if p.Passage > 0 {
		depth = max(k, p.RerankDepth)
	}
	top := ix.top(s, q, total, depth)
	if p.Passage > 0 {
		ix.rerank(top, q)
		top = top[:min(k, len(top))]
	}
	hits := make([]Hit, len(top))
	for i, c := range top {
		hits[i] = Hit{Memory: ix.docs[c.doc].mem, Score: c.score}
	}
	return hits
}

// queryTerms maps query tokens to weighted index terms. Repeated words count once more each,
// unknown terms are skipped. total is the weight of all known non-pair terms, the base of the
// coverage factor.
func (ix *Index) queryTerms(toks []Token) ([]qterm, float64) {
	p := ix.params
	w := map[uint32]int{}
	var q []qterm
	addID := func(tid uint32, weight float64) {
		if _, ok := w[tid]; !ok {
			w[tid] = len(q)
			q = append(q, qterm{tid: tid, w: weight, pair: ix.terms[tid].pair})
		}
	}
	add := func(term string, weight float64, pair bool) {
		tid, ok := ix.dict[term]
		if !ok || ix.terms[tid].df == 0 {
			return
		}
		if i, ok := w[tid]; ok {
			q[i].w += weight * 0.5
			return
		}
		w[tid] = len(q)
		q = append(q, qterm{tid: tid, w: weight, pair: pair})
	}
	prev, prevSurface := "", ""
	for _, t := range toks {
		if t.Unigram {
			add(t.Term, p.UnigramWeight, false)
			continue
		}
		if tid, ok := ix.dict[t.Term]; ok && ix.terms[tid].df > 0 {
			add(t.Term, 1, false)
		} else if t.Surface != "" {
			for _, r := range ix.rescue(t.Surface) {
				addID(r.tid, r.w)
			}
		}
		// Two words the memories write as one.
		if prevSurface != "" && t.Surface != "" {
			if tid, ok := ix.liveWord(prevSurface + t.Surface); ok {
				addID(tid, correctionWeight)
			}
		}
		prevSurface = t.Surface
		if p.Proximity > 0 {
			if prev != "" && prev != t.Term {
				add(pairTerm(prev, t.Term), p.Proximity, true)
			}
			prev = t.Term
		}
	}
	total := 0.0
	for _, t := range q {
		if !t.pair {
			total += t.w * ix.idf(ix.terms[t.tid].df)
		}
	}
	return q, total
}

func (ix *Index) idf(df int32) float64 {
	n := float64(ix.live)
	d := float64(df)
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

// accumulate adds the BM25F contribution of each query term to the documents containing it.
func (ix *Index) accumulate(s *scratch, q []qterm) {
	p := ix.params
	n := float64(ix.live)
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = ix.sumLen[f] / n
		if avg[f] <= 0 {
			avg[f] = 1
		}
	}
	for _, t := range q {
		ti := &ix.terms[t.tid]
		idf := ix.idf(ti.df)
		nameBonus := 0.0
		if !t.pair && ti.dfName > 0 {
			nameBonus = p.NameBonus * t.w * ix.idf(ti.dfName)
		}
		for _, ps := range ti.post {
			d := &ix.docs[ps.doc]
			if !d.alive {
				continue
			}
			tfw := 0.0
			for f := range numFields {
				if ps.tf[f] == 0 {
					continue
				}
				norm := 1 - p.B[f] + p.B[f]*float64(d.len[f])/avg[f]
				tfw += p.Weight[f] * float64(ps.tf[f]) / norm
			}
			if s.score[ps.doc] == 0 && s.cov[ps.doc] == 0 {
				s.touched = append(s.touched, ps.doc)
			}
			s.score[ps.doc] += t.w * idf * tfw * (p.K1 + 1) / (p.K1 + tfw)
			if ps.tf[fieldName] > 0 {
				s.score[ps.doc] += nameBonus
			}
			if !t.pair {
				s.cov[ps.doc] += t.w * idf
			}
		}
	}
}

type cand struct {
	doc   uint32
	score float64
	file  string
}

// better orders candidates: higher score first, then file name.
func better(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.file < b.file
}

type candHeap []cand // a min-heap: the worst candidate on top

func (h candHeap) Len() int           { return len(h) }
func (h candHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h candHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// top returns the k best documents after applying the coverage factor.
func (ix *Index) top(s *scratch, q []qterm, total float64, k int) []cand {
	gamma := ix.params.Coverage
	h := make(candHeap, 0, k+1)
	for _, d := range s.touched {
		sc := s.score[d]
		if gamma > 0 && total > 0 {
			sc *= math.Pow(min(s.cov[d]/total, 1), gamma)
		}
		if sc <= 0 {
			continue
		}
		c := cand{doc: d, score: sc, file: ix.docs[d].mem.File}
		if len(h) < k {
			heap.Push(&h, c)
		} else if better(c, h[0]) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	out := []cand(h)
	sortCands(out)
	return out
}

// expand picks feedback terms from the top documents (relevance-model style: a term's weight
// is its share of each document's length, weighted by the document's score, times its idf)
// and returns them as extra query terms scaled to FeedbackWeight.
func (ix *Index) expand(top []cand, q []qterm) []qterm {
	p := ix.params
	if len(top) == 0 {
		return nil
	}
	inQuery := map[uint32]bool{}
	for _, t := range q {
		inQuery[t.tid] = true
	}
	weights := map[uint32]float64{}
	best := top[0].score
	for _, c := range top {
		d := &ix.docs[c.doc]
		dl := float64(d.len[fieldName] + d.len[fieldDesc] + d.len[fieldBody])
		if dl == 0 {
			continue
		}
		for i, tid := range d.terms {
			ti := &ix.terms[tid]
			if inQuery[tid] || ti.df < 2 {
				continue
			}
			weights[tid] += c.score / best * float64(d.tfs[i]) / dl
		}
	}
	exp := make([]qterm, 0, len(weights))
	for tid, w := range weights {
		exp = append(exp, qterm{tid: tid, w: w * ix.idf(ix.terms[tid].df)})
	}
	slices.SortFunc(exp, func(a, b qterm) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.tid, b.tid)
	})
	if len(exp) > p.FeedbackTerms {
		exp = exp[:p.FeedbackTerms]
	}
	// Drop word pairs from the expansion: they are only meaningful next to their words.
	exp = slices.DeleteFunc(exp, func(t qterm) bool { return ix.isPair(t.tid) })
	if len(exp) == 0 {
		return nil
	}
	maxW := exp[0].w
	for i := range exp {
		exp[i].w = exp[i].w / maxW * p.FeedbackWeight
		exp[i].pair = true // feedback terms do not count towards coverage
	}
	return exp
}

func (ix *Index) isPair(tid uint32) bool { return ix.terms[tid].pair }

// rerank adds the passage bonus to each candidate and sorts them again.
func (ix *Index) rerank(top []cand, q []qterm) {
	type qw struct {
		tid uint32
		w   float64
	}
	var terms []qw
	for _, t := range q {
		if !t.pair {
			terms = append(terms, qw{t.tid, t.w * ix.idf(ix.terms[t.tid].df)})
		}
	}
	if len(terms) > 64 {
		terms = terms[:64] // the matched set is a bit mask
	}
	for i := range top {
		best, cur := 0.0, 0.0
		var seen uint64
		for _, tid := range ix.docs[top[i].doc].lines {
			if tid == lineBreak {
				best = max(best, cur)
				cur, seen = 0, 0
				continue
			}
			for j, t := range terms {
				if t.tid == tid && seen&(1<<j) == 0 {
					seen |= 1 << j
					cur += t.w
				}
			}
		}
		best = max(best, cur)
		top[i].score += ix.params.Passage * best
	}
	sortCands(top)
}

func sortCands(c []cand) {
	slices.SortFunc(c, func(a, b cand) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}
