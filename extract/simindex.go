package extract

import (
	"math"
	"slices"
	"sort"
)

// shingleSet is a set of shingles as sorted ids of a shingleDict: compact, and compared by a
// merge.
type shingleSet []uint32

// shingleDict gives each shingle of one plan an id, and counts in how many sets each occurs.
type shingleDict struct {
	ids  map[string]uint32
	freq []int32
}

func newShingleDict() *shingleDict { return &shingleDict{ids: map[string]uint32{}} }

// set returns the shingles of text (the word bigrams of Shingles) as a set of ids.
func (d *shingleDict) set(text string) shingleSet {
	w := words(text)
	out := make(shingleSet, 0, len(w))
	add := func(s string) {
		id, ok := d.ids[s]
		if !ok {
			id = uint32(len(d.freq))
			d.ids[s] = id
			d.freq = append(d.freq, 0)
		}
		out = append(out, id)
	}
	if len(w) == 1 {
		add(w[0])
	}
	for i := 0; i+1 < len(w); i++ {
		add(w[i] + " " + w[i+1])
	}
	slices.Sort(out)
	out = slices.Compact(out)
	for _, id := range out {
		d.freq[id]++
	}
	return slices.Clip(out)
}

// jaccardSets is Jaccard over shingle sets.
func jaccardSets(a, b shingleSet) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// simIndex finds, for a memory, the others that may be similar to it, without comparing it to
// every one: an inverted index over the rarest shingles of each set (prefix filtering). Two sets
// with Jaccard similarity t or more share at least ceil(t·n) of the n shingles of either, so
// they share one of the n−ceil(t·n)+1 rarest of each: only memories that share such a shingle
// (of the whole text or of the body), the same normalised body or the same name are
// candidates, and no pair that could pass a threshold is missed. The plan is thus the one every
// pair compared would give.
type simIndex struct {
	dict   *shingleDict
	in     map[*candidate]bool
	floor  float64 // the lowest threshold the postings serve
	shing  map[uint32][]*candidate
	body   map[uint32][]*candidate
	byNorm map[string][]*candidate
	byName map[string][]*candidate
	seen   map[*candidate]int // the query that last returned a candidate
	query  int
	pairs  int // candidates returned: the pairs the rules compare
}

// exhaustive makes every simIndex return every memory as a candidate: the all-pairs plan the
// index must agree with (tests).
var exhaustive = false

func newSimIndex(cands []*candidate, dict *shingleDict) *simIndex {
	ix := &simIndex{dict: dict, in: make(map[*candidate]bool, len(cands)), floor: DefaultSubjectThreshold,
		shing: map[uint32][]*candidate{}, body: map[uint32][]*candidate{},
		byNorm: map[string][]*candidate{}, byName: map[string][]*candidate{}, seen: map[*candidate]int{}}
	return ix.build(cands)
}

func (ix *simIndex) build(cands []*candidate) *simIndex {
	for _, c := range cands {
		ix.in[c] = true
		for _, id := range ix.prefix(c.shing, ix.floor) {
			ix.shing[id] = append(ix.shing[id], c)
		}
		if len(c.body) >= minBodyShingles {
			for _, id := range ix.prefix(c.body, ix.floor) {
				ix.body[id] = append(ix.body[id], c)
			}
		}
		if c.norm != "" {
			ix.byNorm[c.norm] = append(ix.byNorm[c.norm], c)
		}
		if c.name != "" {
			ix.byName[c.name] = append(ix.byName[c.name], c)
		}
	}
	return ix
}

// lower lowers the floor of the postings to t when a threshold under it is asked for
// (Options.DuplicateThreshold below DefaultSubjectThreshold), rebuilding them.
func (ix *simIndex) lower(t float64) {
	if t >= ix.floor {
		return
	}
	cands := make([]*candidate, 0, len(ix.in))
	for c := range ix.in {
		cands = append(cands, c)
	}
	*ix = simIndex{dict: ix.dict, in: map[*candidate]bool{}, floor: t, shing: map[uint32][]*candidate{}, body: map[uint32][]*candidate{},
		byNorm: map[string][]*candidate{}, byName: map[string][]*candidate{}, seen: map[*candidate]int{}}
	ix.build(cands)
}

// prefix returns the rarest shingles of set that any set with Jaccard similarity t or more
// must share one of: the n−ceil(t·n)+1 rarest (ties by id).
func (ix *simIndex) prefix(set shingleSet, t float64) []uint32 {
	n := len(set)
	if n == 0 {
		return nil
	}
	k := max(0, min(n, n-int(math.Ceil(t*float64(n)-1e-9))+1))
	if t <= 0 {
		k = n
	}
	out := slices.Clone(set)
	freq := ix.dict.freq
	sort.Slice(out, func(i, j int) bool {
		if freq[out[i]] != freq[out[j]] {
			return freq[out[i]] < freq[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:k]
}

// has reports whether c is in the index (the size budget may leave memories out).
func (ix *simIndex) has(c *candidate) bool { return ix.in[c] }

// near returns the candidates that may have similarity t or more with c, or the same text,
// among those pos places before limit, in pos order.
func (ix *simIndex) near(c *candidate, t float64, pos map[*candidate]int, limit int) []*candidate {
	ix.lower(t)
	ix.query++
	var out []*candidate
	add := func(ks []*candidate) {
		for _, k := range ks {
			if p, ok := pos[k]; ok && k != c && p < limit && ix.seen[k] != ix.query {
				ix.seen[k] = ix.query
				out = append(out, k)
			}
		}
	}
	defer func() { ix.pairs += len(out) }()
	if exhaustive {
		for k := range pos {
			add([]*candidate{k})
		}
		sort.Slice(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
		return out
	}
	for _, id := range ix.prefix(c.shing, t) {
		add(ix.shing[id])
	}
	if len(c.body) >= minBodyShingles {
		for _, id := range ix.prefix(c.body, t) {
			add(ix.body[id])
		}
	}
	if c.norm != "" {
		add(ix.byNorm[c.norm])
	}
	sort.Slice(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
	return out
}

// subjects returns the candidates that may be about c's subject (sameSubject: the same name, or
// similarity DefaultSubjectThreshold or more) among those pos places before limit, in pos order.
func (ix *simIndex) subjects(c *candidate, pos map[*candidate]int, limit int) []*candidate {
	out := ix.near(c, DefaultSubjectThreshold, pos, limit)
	if c.name == "" {
		return out
	}
	n := len(out)
	for _, k := range ix.byName[c.name] {
		if p, ok := pos[k]; ok && k != c && p < limit && ix.seen[k] != ix.query {
			ix.seen[k] = ix.query
			out = append(out, k)
		}
	}
	ix.pairs += len(out) - n
	if len(out) > n {
		sort.Slice(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
	}
	return out
}
