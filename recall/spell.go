package recall

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Query words the index has never seen get a second chance, in this order:
//
//  1. a compound written as one word is split into two known words ("roadtrip" → "road trip");
//  2. a misspelt word is replaced by the known word within a small edit distance ("educaton"
//     → "education": one edit for words of 4–7 letters, two from 8), the most frequent
//     one winning ties;
//  3. a word of six letters or more that is neither matches the known words that begin with
//     all of it but its last letter, another form of the same word ("grandma" →
//     "grandmother"), at prefixWeight.
//
// And two adjacent query words that are known joined ("road trip" where the memories say
// "roadtrip") also match the joined word.

// minFuzzyLen is the shortest word (in runes) that spelling correction touches: shorter words
// have too many neighbours to guess from.
const minFuzzyLen = 4

// correctionWeight scales a term found by correction or compound handling against a term the
// query spelled out.
const correctionWeight = 0.8

// rescue returns the term ids (with weights) that stand for an unknown query word. Caller
// holds ix.mu.
func (ix *Index) rescue(surface string) []qterm {
	n := utf8.RuneCountInString(surface)
	if n < minFuzzyLen || nearStopword(surface) {
		return nil
	}
	// Split compounds: both halves known, each at least three bytes.
	for i := 3; i+3 <= len(surface); i++ {
		if !utf8.RuneStart(surface[i]) {
			continue
		}
		a, okA := ix.liveWord(surface[:i])
		b, okB := ix.liveWord(surface[i:])
		if okA && okB {
			return []qterm{{tid: a, w: correctionWeight}, {tid: b, w: correctionWeight}}
		}
	}
	maxDist := 1
	if n >= 8 {
		maxDist = 2
	}
	best, bestDist, bestDF, bestWord := uint32(0), maxDist+1, int32(-1), ""
	ix.words.each(func(w string, tid uint32) {
		if int(tid) >= len(ix.terms) || ix.terms[tid].df == 0 {
			return
		}
		df := ix.terms[tid].df
		if d := len(w) - len(surface); d > 2*maxDist*utf8.UTFMax || -d > 2*maxDist*utf8.UTFMax {
			return // cheap length filter in bytes before counting runes
		}
		m := utf8.RuneCountInString(w)
		if m-n > maxDist || n-m > maxDist {
			return
		}
		d := editDistance(surface, w, maxDist)
		if d < bestDist || d == bestDist && (df > bestDF || df == bestDF && w < bestWord) {
			best, bestDist, bestDF, bestWord = tid, d, df, w
		}
	})
	if bestDist <= maxDist {
		return []qterm{{tid: best, w: correctionWeight}}
	}
	if n < minStemLen {
		return nil
	}
	_, last := utf8.DecodeLastRuneInString(surface)
	return ix.prefixTerms(surface[:len(surface)-last], ^uint32(0))
}

// liveWord returns the term of a known surface word that is still in some memory.
func (ix *Index) liveWord(w string) (uint32, bool) {
	tid, ok := ix.words.lookup(w)
	if !ok || int(tid) >= len(ix.terms) || ix.terms[tid].df == 0 {
		return 0, false
	}
	return tid, true
}

// editDistance returns the Levenshtein distance of a and b in runes (an adjacent
// transposition counts one), or max+1 as soon as it must exceed max.
func editDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return max + 1
	}
	var rows [3][65]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(rb); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// nearStopword reports whether w is one edit away from a stopword ("iwth", "thier"): such a
// word is a misspelt function word, and correcting it to some content word would only add
// noise.
func nearStopword(w string) bool {
	for s := range stopwords() {
		if len(s) >= minFuzzyLen-1 && editDistance(w, s, 1) <= 1 {
			return true
		}
	}
	return false
}

// minPrefixLen is the shortest query word that is expanded to the longer words it begins
// ("photo" → "photography").
const minPrefixLen = 5

// minStemLen is the shortest unknown query word that matches the known words beginning with
// all of it but its last letter (see rescue).
const minStemLen = 6

// prefixWeight scales a prefix expansion; maxPrefixTerms bounds how many are added.
const (
	prefixWeight   = 0.5
	maxPrefixTerms = 5
)

// sortedWords returns the surface vocabulary in order, rebuilding it when words were added
// since the last call. Caller holds ix.mu (read or write).
func (ix *Index) sortedWords() []string {
	ix.sortedMu.Lock()
	defer ix.sortedMu.Unlock()
	if n := ix.words.len(); len(ix.sorted) != n {
		ix.sorted = ix.sorted[:0]
		ix.words.each(func(w string, _ uint32) { ix.sorted = append(ix.sorted, w) })
		slices.Sort(ix.sorted)
	}
	return ix.sorted
}

// prefixTerms returns the terms of known words that start with w and are longer, most
// frequent first, at most maxPrefixTerms, excluding the term skip (w's own). Caller holds
// ix.mu.
func (ix *Index) prefixTerms(w string, skip uint32) []qterm {
	if utf8.RuneCountInString(w) < minPrefixLen {
		return nil
	}
	words := ix.sortedWords()
	i, _ := slices.BinarySearch(words, w)
	seen := map[uint32]bool{skip: true}
	var out []qterm
	for ; i < len(words) && strings.HasPrefix(words[i], w); i++ {
		tid, ok := ix.liveWord(words[i])
		if !ok || seen[tid] {
			continue
		}
		seen[tid] = true
		out = append(out, qterm{tid: tid, w: prefixWeight})
	}
	slices.SortFunc(out, func(a, b qterm) int {
		if c := cmp.Compare(ix.terms[b.tid].df, ix.terms[a.tid].df); c != 0 {
			return c
		}
		return cmp.Compare(ix.terms[a.tid].key, ix.terms[b.tid].key)
	})
	return out[:min(len(out), maxPrefixTerms)]
}
