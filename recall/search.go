package recall

import (
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
	key      uint64 // the term's termKey (feedback terms)
}

// query is an analysed query.
type query struct {
	terms []qterm
	pairs [][2]uint32 // adjacent query words, in order
	total float64     // weight × idf of all non-feedback terms: the base of coverage
	when  *period     // the time the query names, if any (and Params.Time is on)
}

// scratch holds a search's per-document accumulators, reused across searches, so a warm
// search allocates little more than its results.
type scratch struct {
	acc     []docAcc // by doc id
	touched []uint32
	// fterms and fw collect the feedback terms and their summed weights (expand), fslot
	// giving each term's place in them: sparse, as a few hundred terms of a vocabulary of
	// hundreds of thousands are touched. fslot is empty again when expand returns.
	fslot  map[uint32]int32
	fterms []uint32
	fw     []float64
	exp    []qterm
	first  []cand // the first round's candidates, before rerank
}

// docAcc is one document's accumulators, side by side: the scoring loop touches both.
type docAcc struct {
	score float64 // BM25F sum so far
	cov   float64 // matched weight × idf of the non-feedback query terms
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (s *scratch) reset(n int) {
	for _, d := range s.touched {
		s.acc[d] = docAcc{}
	}
	s.touched = s.touched[:0]
	if cap(s.acc) < n {
		s.acc = make([]docAcc, n)
	}
	s.acc = s.acc[:n]
}

// Search ranks the memories against query and returns at most k hits, best first. Ties are
// broken by file name so results are deterministic. A query with no indexable term (only
// stopwords or punctuation) returns nothing.
func (ix *Index) Search(text string, k int) []Hit {
	if k <= 0 {
		return nil
	}
	toks := Tokenize(stripQuestionPhrases(text), nil)
	when, timed := queryPeriod(text)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}
	q := ix.analyseQuery(toks)
	if timed && ix.params.Time > 0 {
		q.when = &when
	}
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
		if exp := ix.expand(s, top, q.terms); len(exp) > 0 {
			ix.accumulate(s, exp)
		}
	}
	rerank := p.Passage > 0 || p.Proximity > 0 && len(q.pairs) > 0 || q.when != nil
	depth := k
	if rerank {
		depth = max(k, p.RerankDepth)
	}
	top := ix.top(s, q.total, depth)
	if p.SecondRound > 0 {
		s.first = append(s.first[:0], top...) // rerank compacts top in place
	}
	if rerank {
		top = ix.rerank(s, top, q, max(k, 2))
	}
	if p.SecondRound > 0 && len(top) > 1 && top[1].score < secondGap*top[0].score {
		if len(top) < len(s.first) { // rerank dropped some: rerank them all
			top = ix.rerank(s, s.first, q, len(s.first))
		}
		top = ix.secondRound(top, q)
	}
	top = top[:min(k, len(top))]
	hits := make([]Hit, len(top))
	for i, c := range top {
		hits[i] = Hit{Memory: ix.doc(c.doc).mem, Score: c.score}
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
		q.total += t.w * ix.idf(ix.terms.at(t.tid).df)
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
	if !ok || int(tid) >= ix.terms.len() || ix.terms.at(tid).df == 0 {
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
	norms := ix.norms()
	for _, t := range q {
		ti := ix.terms.at(t.tid)
		idf := ix.idf(ti.df)
		wi := t.w * idf
		nameBonus := 0.0
		if !t.feedback && ti.dfName > 0 {
			nameBonus = p.NameBonus * t.w * ix.idf(ti.dfName)
		}
		scorePostings(s, &p, norms, ix.postingsOf(t.tid), wi, nameBonus, t.feedback)
		if tail := ix.tails[t.tid]; len(tail) > 0 {
			scorePostings(s, &p, norms, tail, wi, nameBonus, t.feedback)
		}
	}
}

// scorePostings adds one query term's contribution (weight × idf wi, name bonus) to the
// documents of the postings post.
func scorePostings(s *scratch, p *Params, norms []docNorm, post []posting, wi, nameBonus float64, feedback bool) {
	k1p1 := p.K1 + 1
	for _, ps := range post {
		d := &norms[ps.doc]
		if !d.alive {
			continue
		}
		tfw := 0.0
		for f := range numFields {
			if ps.tf[f] == 0 {
				continue
			}
			tfw += p.Weight[f] * float64(ps.tf[f]) / d.norm[f]
		}
		a := &s.acc[ps.doc]
		if a.score == 0 && a.cov == 0 {
			s.touched = append(s.touched, ps.doc)
		}
		a.score += wi * tfw * k1p1 / (p.K1 + tfw)
		if ps.tf[fieldName] > 0 {
			a.score += nameBonus
		}
		if !feedback {
			a.cov += wi
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
		sc := s.acc[d].score
		// The coverage factor is at most 1, so a score that cannot enter the heap before it
		// cannot after: skip computing it.
		if sc <= 0 || len(h) == k && sc < h[0].score {
			continue
		}
		if gamma > 0 && total > 0 {
			f := min(s.acc[d].cov/total, 1)
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
		c := cand{doc: d, score: sc, file: ix.fileOf(d)}
		if len(h) < k {
			h = append(h, c) // heap.Push would box c: an allocation per candidate
			heap.Fix(&h, len(h)-1)
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
// and returns them as extra query terms scaled to FeedbackWeight. The weights are summed by
// term in s.fw and the best FeedbackTerms kept by insertion (ties by termKey), so a search
// neither sorts nor allocates here; the result lives in s until the next search.
func (ix *Index) expand(s *scratch, top []cand, q []qterm) []qterm {
	p := ix.params
	if len(top) == 0 || top[0].score <= 0 || p.FeedbackTerms <= 0 {
		return nil
	}
	if s.fslot == nil {
		s.fslot = map[uint32]int32{}
	}
	var inQuery uint64 // a filter of the query's term ids; a hit is checked against q
	for _, t := range q {
		inQuery |= 1 << (t.tid & 63)
	}
	isQuery := func(tid uint32) bool {
		if inQuery&(1<<(tid&63)) == 0 {
			return false
		}
		for _, t := range q {
			if t.tid == tid {
				return true
			}
		}
		return false
	}
	s.fterms, s.fw = s.fterms[:0], s.fw[:0]
	best := top[0].score
	for _, c := range top {
		d := ix.detail(c.doc)
		dl := float64(d.len[fieldName] + d.len[fieldDesc] + d.len[fieldBody])
		if dl == 0 {
			continue
		}
		for i, tid := range d.terms {
			// A term of one memory only cannot bring in another; a term in more than a
			// fifth of them is too common to say what the top memories are about (and
			// costs the most to score).
			if df := ix.terms.df(tid); df < 2 || int(df)*5 > ix.live || isQuery(tid) {
				continue
			}
			w := c.score / best * float64(d.tfs[i]) / dl
			if w <= 0 {
				continue // adds nothing
			}
			j, ok := s.fslot[tid]
			if !ok {
				j = int32(len(s.fterms))
				s.fslot[tid] = j
				s.fterms, s.fw = append(s.fterms, tid), append(s.fw, 0)
			}
			s.fw[j] += w
		}
	}
	exp := s.exp[:0]
	clear(s.fslot)
	for j, tid := range s.fterms {
		t := qterm{tid: tid, w: s.fw[j] * ix.idf(ix.terms.df(tid)), feedback: true, key: ix.terms.key(tid)}
		if len(exp) == p.FeedbackTerms && !heavier(t, exp[len(exp)-1]) {
			continue
		}
		at := len(exp)
		for at > 0 && heavier(t, exp[at-1]) {
			at--
		}
		if len(exp) < p.FeedbackTerms {
			exp = append(exp, qterm{})
		}
		copy(exp[at+1:], exp[at:len(exp)-1])
		exp[at] = t
	}
	s.exp = exp
	if len(exp) == 0 || exp[0].w <= 0 {
		return nil
	}
	maxW := exp[0].w
	for i := range exp {
		exp[i].w = exp[i].w / maxW * p.FeedbackWeight
	}
	return exp
}

// secondGap is the share of the best hit's score below which the second hit makes the first
// round's shape one best hit and a tail that matched little of the query: the second round runs.
const secondGap = 0.5

// secondRound scores the candidates top (best first, reranked) again with the rarest terms of
// the best hit that the query lacks (the names, places and things it speaks of), so that the
// tail is ordered by what the one memory that matched well leads to: the second piece of a
// question that needs two. A candidate's new score is its score plus SecondRound times the
// best score times its share of the best second-round score, so the first round's order holds
// unless the second round's evidence is strong. Only candidates of the first round (which
// matched the query) are scored.
func (ix *Index) secondRound(top []cand, q query) []cand {
	p := ix.params
	d := ix.detail(top[0].doc)
	var exp []qterm
	for _, tid := range d.terms {
		df := ix.terms.df(tid)
		if df < 2 || int(df)*5 > ix.live || slices.ContainsFunc(q.terms, func(t qterm) bool { return t.tid == tid }) {
			continue // as in expand: a term of one memory leads nowhere, a common one everywhere
		}
		exp = append(exp, qterm{tid: tid, w: ix.idf(df), feedback: true, key: ix.terms.key(tid)})
	}
	if len(exp) == 0 {
		return top
	}
	slices.SortFunc(exp, func(a, b qterm) int {
		switch {
		case heavier(a, b):
			return -1
		case heavier(b, a):
			return 1
		}
		return 0
	})
	exp = exp[:min(len(exp), p.SecondTerms)]
	for i := range exp {
		exp[i].w /= exp[0].w
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.reset(len(ix.docs))
	ix.accumulate(s, exp)
	best2 := 0.0
	for _, c := range top {
		best2 = max(best2, s.acc[c.doc].score)
	}
	if best2 == 0 {
		return top
	}
	w := p.SecondRound * top[0].score / best2
	for i := range top {
		top[i].score += w * s.acc[top[i].doc].score
	}
	sortCands(top)
	return top
}

// heavier orders feedback terms: higher weight first, then by termKey (then id, should two
// keys collide).
func heavier(a, b qterm) bool {
	if a.w != b.w {
		return a.w > b.w
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.tid < b.tid
}

// rerank adds the passage and proximity bonuses to the candidates and returns the best of
// them, sorted again; at least the k best are exact. Both bonuses read the document's lines
// of term ids:
//   - passage: the query weight matched by the best single line, times Passage;
//   - proximity: for each pair of adjacent query words found adjacent in the document (in
//     that order), a saturated BM25-style count times the rarer word's idf, times Proximity.
//
// A candidate whose score plus the most its bonuses could add (bonusBound) is below the k-th
// best reranked score cannot reach the top k, so its lines are not read and it is dropped;
// candidates come best first, so that bar rises early.
func (ix *Index) rerank(s *scratch, top []cand, q query, k int) []cand {
	p := ix.params
	type qw struct {
		tid uint32
		w   float64
	}
	var terms []qw
	for _, t := range q.terms {
		if !t.feedback {
			terms = append(terms, qw{t.tid, t.w * ix.idf(ix.terms.at(t.tid).df)})
		}
	}
	if len(terms) > 64 {
		terms = terms[:64] // the matched set is a bit mask
	}
	pairIDF := make([]float64, len(q.pairs))
	pairMax := 0.0 // the most the proximity bonus can add
	for i, pr := range q.pairs {
		pairIDF[i] = max(ix.idf(ix.terms.at(pr[0]).df), ix.idf(ix.terms.at(pr[1]).df))
		pairMax += p.Proximity * pairIDF[i] * (p.K1 + 1)
	}
	pairTF := make([]int, len(q.pairs))
	timeBonus := 0.0
	if q.when != nil {
		timeBonus = p.Time * q.total
		pairMax += timeBonus
	}
	// A 64-bit filter of the query's term ids lets most of a document's tokens be skipped
	// with one AND.
	var mask uint64
	for _, t := range terms {
		mask |= 1 << (t.tid & 63)
	}
	for _, pr := range q.pairs {
		mask |= 1 << (pr[0] & 63)
	}
	bar := newBar(k)
	kept := top[:0]
	for i := range top {
		c := top[i]
		if !ix.exhaustive && bar.full() && c.score+bonusBound(p, s.acc[c.doc].cov, pairMax) < bar.min() {
			continue
		}
		lines := ix.detail(c.doc).lines
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
		if timeBonus > 0 && ix.speaksOf(c.doc, *q.when) {
			bonus += timeBonus
		}
		c.score += bonus
		bar.add(c.score)
		kept = append(kept, c)
	}
	sortCands(kept)
	return kept
}

// speaksOf reports whether document id speaks of the time p.
func (ix *Index) speaksOf(id uint32, p period) bool {
	for _, s := range ix.datesOf(id) {
		if p.matches(s) {
			return true
		}
	}
	return false
}

// bonusBound is the most rerank can add to a document whose matched query weight (its
// coverage sum) is cov: a line matches at most every query term the document holds, and each
// pair's saturated count stays below K1+1 (pairMax). The small margin covers rounding: the
// line's sum adds the same weights in another order.
func bonusBound(p Params, cov, pairMax float64) float64 {
	return (p.Passage*cov + pairMax) * (1 + 1e-9)
}

// bar tracks the k-th best of the scores added so far (a min-heap of the k best).
type bar struct {
	k int
	h []float64
}

func newBar(k int) bar { return bar{k: k, h: make([]float64, 0, k)} }

func (b *bar) full() bool   { return b.k > 0 && len(b.h) == b.k }
func (b *bar) min() float64 { return b.h[0] }
func (b *bar) add(sc float64) {
	switch {
	case len(b.h) < b.k:
		b.h = append(b.h, sc)
		for i := len(b.h) - 1; i > 0; {
			up := (i - 1) / 2
			if b.h[up] <= b.h[i] {
				break
			}
			b.h[up], b.h[i] = b.h[i], b.h[up]
			i = up
		}
	case b.k > 0 && sc > b.h[0]:
		b.h[0] = sc
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < len(b.h) && b.h[l] < b.h[m] {
				m = l
			}
			if r := l + 1; r < len(b.h) && b.h[r] < b.h[m] {
				m = r
			}
			if m == i {
				break
			}
			b.h[i], b.h[m] = b.h[m], b.h[i]
			i = m
		}
	}
}
