package extract

import (
	"math"
	"slices"
	"sort"
	"time"
)

// shingleSet is a set of shingles as sorted ids of a shingleDict: compact, and compared by a
// merge.
type shingleSet []uint32

// shingleDict gives each shingle of one plan an id, and counts in how many sets each occurs. A
// shingle is keyed by the ids of its two words (a lone word by its id and noWord).
type shingleDict struct {
	words map[string]uint32
	ids   map[uint64]uint32
	freq  []int32
}

const noWord = math.MaxUint32

func newShingleDict() *shingleDict {
	return &shingleDict{words: map[string]uint32{}, ids: map[uint64]uint32{}}
}

// word returns the id of w.
func (d *shingleDict) word(w string) uint32 {
	id, ok := d.words[w]
	if !ok {
		id = uint32(len(d.words))
		d.words[w] = id
	}
	return id
}

// set returns the shingles of the words of parts, read as one text (the word bigrams of
// Shingles), as a set of ids.
func (d *shingleDict) set(parts ...[]string) shingleSet {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make(shingleSet, 0, n)
	add := func(key uint64) {
		id, ok := d.ids[key]
		if !ok {
			id = uint32(len(d.freq))
			d.ids[key] = id
			d.freq = append(d.freq, 0)
		}
		out = append(out, id)
	}
	prev := uint32(noWord)
	for _, p := range parts {
		for _, w := range p {
			id := d.word(w)
			if n == 1 {
				add(uint64(id)<<32 | noWord)
			} else if prev != noWord {
				add(uint64(prev)<<32 | uint64(id))
			}
			prev = id
		}
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

// simIndex holds, for each memory compared, the others worth comparing it with: every pair
// with similarity floor or more, the same normalised body or the same name, found once for
// both pairwise rules by an exact similarity join (selfJoin), never by comparing every pair.
type simIndex struct {
	cands []*candidate // by id
	in    []bool       // by id: compared (the size and time budgets may leave memories out)
	near  [][]int32    // by id: the ids of the memories worth comparing with, ascending
	pairs int          // pairs whose similarity the join computed
	short bool         // the time budget stopped the join
}

// exhaustive makes every simIndex compare every pair: the all-pairs plan the index must agree
// with (tests).
var exhaustive = false

// newSimIndex finds the pairs among cands (by id) that the rules may act on: similarity floor or
// more, or the same normalised body, or the same name. Only the memories for which compare is
// true take part; when deadline passes it stops, and the memories it has not reached are left
// out (short).
func newSimIndex(cands []*candidate, compare []bool, dict *shingleDict, floor float64, deadline time.Time) *simIndex {
	ix := &simIndex{cands: cands, in: make([]bool, len(cands)), near: make([][]int32, len(cands))}
	var pairs []uint64
	emit := func(a, b int32) {
		pairs = append(pairs, uint64(min(a, b))<<32|uint64(max(a, b)))
	}
	if exhaustive || floor <= 0 {
		for a := range cands {
			for b := 0; b < a && compare[a]; b++ {
				if compare[b] {
					emit(int32(a), int32(b))
				}
			}
		}
		copy(ix.in, compare)
	} else {
		rank := dict.ranks()
		shing := make([][]uint32, len(cands))
		body := make([][]uint32, len(cands))
		for i, c := range cands {
			if !compare[i] {
				continue
			}
			shing[i] = ranked(c.shing, rank)
			if len(c.body) >= minBodyShingles {
				body[i] = ranked(c.body, rank)
			}
		}
		copy(ix.in, compare)
		for _, i := range append(selfJoin(shing, len(rank), floor, deadline, emit), selfJoin(body, len(rank), floor, deadline, emit)...) {
			ix.in[i], ix.short = false, true
		}
		groups := map[string][]int32{}
		for i, c := range cands {
			if ix.in[i] && c.norm != "" {
				groups["b"+c.norm] = append(groups["b"+c.norm], int32(i))
			}
			if ix.in[i] && c.name != "" {
				groups["n"+c.name] = append(groups["n"+c.name], int32(i))
			}
		}
		for _, g := range groups {
			for x := range g {
				for _, y := range g[:x] {
					emit(g[x], y)
				}
			}
		}
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	for _, p := range pairs {
		a, b := int32(p>>32), int32(p&math.MaxUint32)
		if !ix.in[a] || !ix.in[b] {
			continue
		}
		ca, cb := cands[a], cands[b]
		ix.pairs++
		if similarity(ca, cb) >= floor || exactDuplicate(ca, cb) || ca.name != "" && ca.name == cb.name {
			ix.near[a] = append(ix.near[a], b)
			ix.near[b] = append(ix.near[b], a)
		}
	}
	return ix
}

// has reports whether c is in the index (the budgets may leave memories out).
func (ix *simIndex) has(c *candidate) bool { return ix.in[c.id] }

// nearby returns the memories worth comparing with c among those pos places before limit, in
// pos order (pos follows the ids' order).
func (ix *simIndex) nearby(c *candidate, pos map[*candidate]int, limit int) []*candidate {
	var out []*candidate
	for _, id := range ix.near[c.id] {
		k := ix.cands[id]
		if p, ok := pos[k]; ok && p < limit {
			out = append(out, k)
		}
	}
	return out
}

// ranks returns each shingle's place in the global order of a join: rarest first, ties by id.
func (d *shingleDict) ranks() []uint32 {
	ids := make([]uint32, len(d.freq))
	for i := range ids {
		ids[i] = uint32(i)
	}
	sort.Slice(ids, func(i, j int) bool {
		if d.freq[ids[i]] != d.freq[ids[j]] {
			return d.freq[ids[i]] < d.freq[ids[j]]
		}
		return ids[i] < ids[j]
	})
	rank := make([]uint32, len(ids))
	for r, id := range ids {
		rank[id] = uint32(r)
	}
	return rank
}

// ranked returns set in the global order of rank: the same set, rarest shingle first.
func ranked(set shingleSet, rank []uint32) []uint32 {
	out := make([]uint32, len(set))
	for i, id := range set {
		out[i] = rank[id]
	}
	slices.Sort(out)
	return out
}

// ceilAtLeast is ceil(x), rounded down where float error could push an integer over: a bound
// that errs low keeps every pair.
func ceilAtLeast(x float64) int { return int(math.Ceil(x - 1e-9)) }

// prefixLen is how many of the first tokens of a set of size tokens another set must share one
// of to have overlap ⌈t·size⌉ or more with it.
func prefixLen(size int, t float64) int {
	return min(size, max(1, size-ceilAtLeast(t*float64(size))+1))
}

// selfJoin calls emit for every pair of sets (by index) with Jaccard similarity t or more, and
// for some pairs below it. When deadline passes it stops and returns the indexes of the sets it
// did not reach. Sets hold tokens (below tokens) in one global order, rarest first.
//
// It is an exact prefix-filtering join with positional filtering (PPJoin). Sets are taken in
// order of size; with |x| ≥ |y| and J(x, y) ≥ t they share at least α = ⌈t/(1+t)·(|x|+|y|)⌉
// tokens, so their first common token lies in the first |x|−⌈t·|x|⌉+1 tokens of x (probed)
// and in the first |y|−⌈2t/(1+t)·|y|⌉+1 of y (indexed), and a common token at places i and j
// can be followed by at most min(|x|−i−1, |y|−j−1) more: a pair that cannot reach α that way
// is dropped as soon as it is met. Sizes alone rule out |y| < t·|x|.
func selfJoin(sets [][]uint32, tokens int, t float64, deadline time.Time, emit func(a, b int32)) []int32 {
	type posting struct{ set, at int32 }
	order := make([]int32, 0, len(sets))
	for i, s := range sets {
		if len(s) > 0 {
			order = append(order, int32(i))
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return len(sets[order[i]]) < len(sets[order[j]]) })
	index := make([][]posting, tokens)
	start := make([]int32, tokens) // postings before it are too small for every later set
	seen := make([]int32, len(sets))
	var touched []int32
	for n, x := range order {
		if n%256 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			return order[n:]
		}
		s := sets[x]
		size := len(s)
		minSize := t * float64(size)
		for i, tok := range s[:prefixLen(size, t)] {
			list := index[tok]
			k := int(start[tok])
			for k < len(list) && float64(len(sets[list[k].set])) < minSize-1e-9 {
				k++
			}
			start[tok] = int32(k)
			for _, p := range list[k:] {
				if seen[p.set] < 0 {
					continue // already ruled out
				}
				ys := len(sets[p.set])
				alpha := ceilAtLeast(t / (1 + t) * float64(size+ys))
				if seen[p.set] == 0 {
					touched = append(touched, p.set)
				}
				if int(seen[p.set])+1+min(size-i-1, ys-int(p.at)-1) >= alpha {
					seen[p.set]++
				} else {
					seen[p.set] = -1
				}
			}
		}
		for _, y := range touched {
			if seen[y] > 0 {
				emit(x, y)
			}
			seen[y] = 0
		}
		touched = touched[:0]
		for i, tok := range s[:prefixLen(size, 2*t/(1+t))] {
			index[tok] = append(index[tok], posting{x, int32(i)})
		}
	}
	return nil
}
