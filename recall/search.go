package recall

import (
	"cmp"
	"container/heap"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/strata-mem/strata/memdir"
)

// Hit is one ranked memory.
type Hit struct {
	Memory memdir.Memory
	Score  float64
}

// qterm is a weighted query term. Feedback terms (added by pseudo-relevance feedback) rank
// documents but do not count towards coverage, passages or the name bonus: the user did not
// ask for them.
type qterm struct {
	tid      uint32
	w        float64
	feedback bool
}

// query is an analysed query.
type query struct {
	terms []qterm
	pairs [][2]uint32 // adjacent query words, in order
	total float64     // weight × idf of all non-feedback terms: the base of coverage
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
func (ix *Index) Search(text string, k int) []Hit {
	if k <= 0 {
		return nil
	}
	toks := Tokenize(stripQuestionPhrases(text), nil)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}
	q := ix.analyseQuery(toks)
	if len(q.terms) == 0 {
		return nil
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.reset(len(ix.docs))
	ix.accumulate(s, q.terms)
	p := ix.params
	if p.FeedbackDocs > 0 && p.FeedbackTerms > 0 && p.FeedbackWeight > 0 {
		top := ix.top(s, q.total, p.FeedbackDocs)
		if exp := ix.expand(top, q.terms); len(exp) > 0 {
			ix.accumulate(s, exp)
		}
	}
	rerank := p.Passage > 0 || p.Proximity > 0 && len(q.pairs) > 0
	depth := k
	if rerank {
		depth = max(k, p.RerankDepth)
	}
	top := ix.top(s, q.total, depth)
	if rerank {
		ix.rerank(top, q)
		top = top[:min(k, len(top))]
	}
	hits := make([]Hit, len(top))
	for i, c := range top {
		hits[i] = Hit{Memory: ix.docs[c.doc].mem, Score: c.score}
	}
	return hits
}

// analyseQuery maps query tokens to weighted index terms. A repeated word adds half its weight
// again; a word the index does not know is corrected or split when possible (see rescue);
// two adjacent words the memories write as one also match the joined word.
func (ix *Index) analyseQuery(toks []Token) query {
	p := ix.params
	var q query
	at := map[uint32]int{}
	add := func(tid uint32, weight float64) {
		if i, ok := at[tid]; ok {
			q.terms[i].w += weight * 0.5
			return
		}
		at[tid] = len(q.terms)
		q.terms = append(q.terms, qterm{tid: tid, w: weight})
	}
	var prevTid uint32
	prevWord, prevSurface := false, ""
	for _, t := range toks {
		if t.Unigram {
			if tid, ok := ix.liveTerm(t.Term); ok {
				add(tid, p.UnigramWeight)
			}
			prevWord, prevSurface = false, ""
			continue
		}
		tid, ok := ix.liveTerm(t.Term)
		if ok {
			add(tid, 1)
		}
		if t.Surface != "" && p.PrefixExpansion {
			for _, r := range ix.prefixTerms(t.Surface, tid) {
				add(r.tid, r.w)
			}
		}
		if !ok && t.Surface != "" {
			for _, r := range ix.rescue(t.Surface) {
				add(r.tid, r.w)
			}
		}
		if prevSurface != "" && t.Surface != "" {
			if joined, ok := ix.liveWord(prevSurface + t.Surface); ok {
				add(joined, correctionWeight)
			}
		}
		if ok && prevWord && t.Surface != "" && prevTid != tid {
			q.pairs = append(q.pairs, [2]uint32{prevTid, tid})
		}
		prevTid, prevWord, prevSurface = tid, ok && t.Surface != "", t.Surface
	}
	for _, t := range q.terms {
		q.total += t.w * ix.idf(ix.terms[t.tid].df)
	}
	return q
}

// questionPhrase matches the "what kind of" family: in a question, "kind", "type" or "sort"
// followed by "of" says nothing about the topic, while the same words elsewhere may ("a kind
// person", "type errors").
var questionPhrase = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:kinds?|types?|sorts?)\s+of\b`) })

func stripQuestionPhrases(q string) string {
	if !strings.Contains(q, " of") && !strings.Contains(q, " Of") && !strings.Contains(q, " OF") {
		return q
	}
	return questionPhrase().ReplaceAllString(q, " ")
}

// liveTerm returns the id of a term that is in at least one memory.
func (ix *Index) liveTerm(term string) (uint32, bool) {
	tid, ok := ix.dict.lookup(term)
	if !ok || int(tid) >= len(ix.terms) || ix.terms[tid].df == 0 {
		return 0, false
	}
	return tid, true
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
		if !t.feedback && ti.dfName > 0 {
			nameBonus = p.NameBonus * t.w * ix.idf(ti.dfName)
		}
		for _, ps := range ti.post {
			d := &ix.lens[ps.doc]
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
			if !t.feedback {
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
func (ix *Index) top(s *scratch, total float64, k int) []cand {
	gamma := ix.params.Coverage
	h := make(candHeap, 0, k+1)
	for _, d := range s.touched {
		sc := s.score[d]
		if gamma > 0 && total > 0 {
			f := min(s.cov[d]/total, 1)
			switch gamma {
			case 0.5:
				sc *= math.Sqrt(f)
			case 1:
				sc *= f
			default:
				sc *= math.Pow(f, gamma)
			}
		}
		if sc <= 0 || len(h) == k && sc < h[0].score {
			continue // cannot enter the heap: skip reading the file name
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

// expand picks feedback terms from the top documents (relevance-model style: a term's weight
// is its share of each document's length, weighted by the document's score, times its idf)
// and returns them as extra query terms scaled to FeedbackWeight.
func (ix *Index) expand(top []cand, q []qterm) []qterm {
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
			if df := ix.terms[tid].df; df < 2 || int(df)*5 > ix.live || inQuery[tid] {
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
		exp[i].w *= ix.idf(ix.terms[exp[i].tid].df)
		exp[i].feedback = true
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
	if len(exp) == 0 || exp[0].w <= 0 {
		return nil
	}
	maxW := exp[0].w
	for i := range exp {
		exp[i].w = exp[i].w / maxW * p.FeedbackWeight
	}
	return exp
}

// rerank adds the passage and proximity bonuses to each candidate and sorts them again. Both
// read the document's lines of term ids:
//   - passage: the query weight matched by the best single line, times Passage;
//   - proximity: for each pair of adjacent query words found adjacent in the document (in
//     that order), a saturated BM25-style count times the rarer word's idf, times Proximity.
func (ix *Index) rerank(top []cand, q query) {
	p := ix.params
	type qw struct {
		tid uint32
		w   float64
	}
	var terms []qw
	for _, t := range q.terms {
		if !t.feedback {
			terms = append(terms, qw{t.tid, t.w * ix.idf(ix.terms[t.tid].df)})
		}
	}
	if len(terms) > 64 {
		terms = terms[:64] // the matched set is a bit mask
	}
	pairIDF := make([]float64, len(q.pairs))
	for i, pr := range q.pairs {
		pairIDF[i] = max(ix.idf(ix.terms[pr[0]].df), ix.idf(ix.terms[pr[1]].df))
	}
	pairTF := make([]int, len(q.pairs))
	// A 64-bit filter of the query's term ids lets most of a document's tokens be skipped
	// with one AND.
	var mask uint64
	for _, t := range terms {
		mask |= 1 << (t.tid & 63)
	}
	for _, pr := range q.pairs {
		mask |= 1 << (pr[0] & 63)
	}
	for i := range top {
		lines := ix.docs[top[i].doc].lines
		best, cur := 0.0, 0.0
		var seen uint64
		clear(pairTF)
		for j, tid := range lines {
			if tid == lineBreak {
				best = max(best, cur)
				cur, seen = 0, 0
				continue
			}
			if mask&(1<<(tid&63)) == 0 {
				continue
			}
			for k, t := range terms {
				if t.tid == tid && seen&(1<<k) == 0 {
					seen |= 1 << k
					cur += t.w
				}
			}
			if j+1 < len(lines) {
				for k, pr := range q.pairs {
					if pr[0] == tid && pr[1] == lines[j+1] {
						pairTF[k]++
					}
				}
			}
		}
		best = max(best, cur)
		bonus := p.Passage * best
		for k, n := range pairTF {
			if n > 0 {
				tf := float64(n)
				bonus += p.Proximity * pairIDF[k] * tf * (p.K1 + 1) / (p.K1 + tf)
			}
		}
		top[i].score += bonus
	}
	sortCands(top)
}
