package recall

import (
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/strata-mem/strata/memdir"
)

// The cold build. Interning every term of every memory in the shared dictionary costs a
// cache miss per distinct term per memory (millions for a store of Chinese memories, whose
// character pairs are many), and linking memory by memory scatters appends over every posting
// list. A cold build into an empty index does neither: analysers name terms by their
// dictionary hash only, the (term, memory) pairs are split by hash into small partitions that
// are resolved in cache, and term ids are handed out afterwards in order of first occurrence
// (memory order, then text order), which is the order a one-worker build gives and does not
// depend on how the work was shared out.

// coldDoc is a memory analysed for a cold build: like analysed, but terms are dictionary
// hashes and lines hold indexes into hashes until the ids are known.
type coldDoc struct {
	mem    memdir.Memory
	hashes []uint64 // distinct terms, by hash, in order of first occurrence
	tf     [][numFields]uint16
	len    [numFields]float32
	lines  []uint32 // description and body as indexes into hashes, lineBreak between lines
	words  []coldWord
}

// coldWord is a written form of the word behind hashes[slot], for the word list.
type coldWord struct {
	surface string
	slot    uint32
}

// coldAnalyser is analyser for a cold build. Each goroutine needs its own.
type coldAnalyser struct {
	seed maphash.Seed
	slot map[uint64]int32
	last []string
	toks []Token
	// The current memory's terms, counts and lines, reused from one memory to the next;
	// each memory's are then copied to exact size into the chunks below, carved up in
	// turn, which spares a cold build most of its allocations (and fresh pages).
	hashes []uint64
	tf     [][numFields]uint16
	lines  []uint32
	words  []coldWord
	chunks struct {
		hashes []uint64
		tf     [][numFields]uint16
		lines  []uint32
	}
}

func (ix *Index) newColdAnalyser() *coldAnalyser {
	return &coldAnalyser{seed: ix.dict.seed, slot: map[uint64]int32{}}
}

// coldChunk is the least number of elements a coldAnalyser allocates at once.
const coldChunk = 1 << 14

// carve copies src into the free end of *chunk (a new chunk when it is full) and returns the
// copy, its capacity clipped so that appending to it never writes into the chunk.
func carve[T any](chunk *[]T, src []T) []T {
	if len(src) == 0 {
		return nil
	}
	if cap(*chunk)-len(*chunk) < len(src) {
		*chunk = make([]T, 0, max(coldChunk, len(src)))
	}
	n := len(*chunk)
	*chunk = append(*chunk, src...)
	return (*chunk)[n : n+len(src) : n+len(src)]
}

// analyse is analyser.analyse without the dictionary: it gives the same terms, counts, lines
// and words, with hashes in place of term ids.
func (z *coldAnalyser) analyse(m memdir.Memory) coldDoc {
	a := coldDoc{mem: m}
	clear(z.slot)
	z.last = z.last[:0]
	z.hashes, z.tf, z.lines, z.words = z.hashes[:0], z.tf[:0], z.lines[:0], z.words[:0]
	for f, text := range [numFields]string{m.Name, m.Description, m.Body} {
		n := 0
		for line := range strings.SplitSeq(text, "\n") {
			z.toks = Tokenize(line, z.toks[:0])
			if len(z.toks) == 0 {
				continue
			}
			for _, t := range z.toks {
				n++
				hs := maphash.String(z.seed, t.Term)
				i, ok := z.slot[hs]
				if !ok {
					i = int32(len(z.hashes))
					z.slot[hs] = i
					z.hashes = append(z.hashes, hs)
					z.tf = append(z.tf, [numFields]uint16{})
					z.last = append(z.last, "")
				}
				if z.tf[i][f] < math.MaxUint16 {
					z.tf[i][f]++
				}
				if t.Surface != "" && z.last[i] != t.Surface {
					z.last[i] = t.Surface
					z.words = append(z.words, coldWord{surface: t.Surface, slot: uint32(i)})
				}
				if f != fieldName {
					z.lines = append(z.lines, uint32(i))
				}
			}
			if f != fieldName {
				z.lines = append(z.lines, lineBreak)
			}
		}
		a.len[f] = float32(n)
	}
	a.hashes = carve(&z.chunks.hashes, z.hashes)
	a.tf = carve(&z.chunks.tf, z.tf)
	a.lines = carve(&z.chunks.lines, z.lines)
	a.words = slices.Clone(z.words)
	return a
}

// coldReady reports whether a cold build may be used: the index and its dictionaries are
// empty. Caller holds ix.mu.
func (ix *Index) coldReady() bool {
	return len(ix.docs) == 0 && ix.live == 0 && ix.dict.next.Load() == 0
}

// warm turns a cold-analysed memory into an analysed one by interning its terms, for when the
// index stopped being empty between the analysis and the link.
func (ix *Index) warm(c coldDoc) analysed {
	a := analysed{mem: c.mem, tf: c.tf, len: c.len, tids: make([]uint32, len(c.hashes))}
	for i, hs := range c.hashes {
		a.tids[i] = ix.dict.internHash(hs)
	}
	for _, w := range c.words {
		ix.words.putIfAbsent(w.surface, a.tids[w.slot])
	}
	a.lines = c.lines
	for i, s := range a.lines {
		if s != lineBreak {
			a.lines[i] = a.tids[s]
		}
	}
	return a
}

// coldParts is the number of hash partitions of a cold build: enough that each partition's
// terms fit in cache.
const coldParts = 1024

// coldEntry is one (term, memory) pair of a cold build.
type coldEntry struct {
	hash uint64 // the term's hash; once resolved, the term's index in its partition
	pos  uint32 // index of the pair in the flat per-memory arrays (memory start + slot)
	doc  uint32
	tf   [numFields]uint16
}

// coldShift picks a hash's partition from its top bits.
const coldShift = 64 - 10

// bulkLinkCold links cold-analysed memories into an empty index (see coldReady) with the
// given number of goroutines. It builds the same index as analysing the memories one by one
// in order and linking them with bulkLink. Caller holds ix.mu.
func (ix *Index) bulkLinkCold(cs []coldDoc, workers int) {
	last := make(map[string]int, len(cs))
	for i, c := range cs {
		last[c.mem.File] = i // of a file given twice, the last one wins, as with link
	}
	docs := make([]*coldDoc, 0, len(last))
	for i := range cs {
		if last[cs[i].mem.File] == i {
			docs = append(docs, &cs[i])
		}
	}
	n := len(docs)
	off := make([]uint32, n+1) // where each memory's terms start in the flat arrays
	for d, c := range docs {
		off[d+1] = off[d] + uint32(len(c.hashes))
	}
	total := int(off[n])
	workers = max(1, min(workers, n))

	// Split the pairs by hash, each goroutine a contiguous run of memories, so that reading
	// the parts in goroutine order reads each partition in memory order. Each goroutine
	// counts its pairs per partition first, so each part is one exact allocation.
	parts := make([][coldParts][]coldEntry, workers)
	run := func(f func(w int)) {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { f(w) })
		}
		wg.Wait()
	}
	run(func(w int) {
		lo, hi := n*w/workers, n*(w+1)/workers
		var count [coldParts]int
		for d := lo; d < hi; d++ {
			for _, hs := range docs[d].hashes {
				count[hs>>coldShift]++
			}
		}
		buf := make([]coldEntry, off[hi]-off[lo])
		p := &parts[w]
		o := 0
		for q, c := range count {
			p[q] = buf[o : o : o+c]
			o += c
		}
		for d := lo; d < hi; d++ {
			c := docs[d]
			for i, hs := range c.hashes {
				q := &p[hs>>coldShift]
				*q = append(*q, coldEntry{hash: hs, pos: off[d] + uint32(i), doc: uint32(d), tf: c.tf[i]})
			}
		}
	})

	// Resolve each partition: its distinct terms, their document frequencies, and which pair
	// is each term's first occurrence. A pair's hash is replaced by its term's index in the
	// partition (the hashes are kept in partTerms).
	type partTerms struct {
		hashes []uint64
		ids    []uint32 // global ids, once assigned
	}
	pt := make([]partTerms, coldParts)
	local := make([]uint32, total)
	first := make([]bool, total)
	partOf := make([]uint16, total)
	var next sync.Mutex // hands out partitions
	nextPart := 0
	take := func() int {
		next.Lock()
		defer next.Unlock()
		p := nextPart
		nextPart++
		return p
	}
	run(func(int) {
		seen := map[uint64]uint32{}
		for p := take(); p < coldParts; p = take() {
			clear(seen)
			t := &pt[p]
			for w := range workers {
				es := parts[w][p]
				for k := range es {
					e := &es[k]
					l, ok := seen[e.hash]
					if !ok {
						l = uint32(len(t.hashes))
						seen[e.hash] = l
						t.hashes = append(t.hashes, e.hash)
						first[e.pos] = true
					}
					e.hash = uint64(l)
					local[e.pos] = l
					partOf[e.pos] = uint16(p)
				}
			}
			t.ids = make([]uint32, len(t.hashes))
		}
	})

	// Hand out ids in order of first occurrence, and record every pair's term id.
	tids := make([]uint32, total)
	var id uint32
	for pos := range total {
		t := &pt[partOf[pos]]
		if first[pos] {
			t.ids[local[pos]] = id
			id++
		}
		tids[pos] = t.ids[local[pos]]
	}
	ix.terms = make([]termInfo, id)
	ix.dict.next.Store(id)
	ix.dict.reserve(int(id))

	// Posting lists, each allocated from its partition's stretch of one array (so that
	// filling a partition writes to one region), filled in memory order; and the dictionary.
	all := make([]posting, total)
	var base int
	bases := make([]int, coldParts)
	for p := range coldParts {
		bases[p] = base
		for w := range workers {
			base += len(parts[w][p])
		}
	}
	next.Lock()
	nextPart = 0
	next.Unlock()
	run(func(int) {
		var ends, names []int32
		for p := take(); p < coldParts; p = take() {
			t := &pt[p]
			ends = slices.Grow(ends[:0], len(t.ids))[:len(t.ids)]
			names = slices.Grow(names[:0], len(t.ids))[:len(t.ids)]
			clear(ends)
			clear(names)
			for w := range workers {
				for _, e := range parts[w][p] {
					ends[e.hash]++
				}
			}
			o := int32(bases[p])
			for l, df := range ends { // ends[l] becomes where term l's postings start
				ends[l] = o
				o += df
			}
			for w := range workers {
				for _, e := range parts[w][p] {
					all[ends[e.hash]] = posting{doc: e.doc, tf: e.tf}
					ends[e.hash]++
					if e.tf[fieldName] > 0 {
						names[e.hash]++
					}
				}
			}
			o = int32(bases[p])
			for l, id := range t.ids {
				ix.terms[id] = termInfo{post: all[o:ends[l]:ends[l]], df: ends[l] - o, dfName: names[l]}
				o = ends[l]
			}
			for l, hs := range t.hashes {
				ix.dict.putHash(hs, t.ids[l])
			}
		}
	})
	// The memories: term ids, per-term totals, name flags, lines; and the word list.
	tfs := make([]uint16, total)
	named := make([]bool, total)
	ix.docs = make([]docInfo, n)
	ix.lens = make([]docLens, n)
	run(func(w int) {
		for d := w; d < n; d += workers {
			c := docs[d]
			lo, hi := off[d], off[d+1]
			for i, tf := range c.tf {
				sum := 0
				for _, k := range tf {
					sum += int(k)
				}
				tfs[int(lo)+i] = uint16(min(sum, math.MaxUint16))
				named[int(lo)+i] = tf[fieldName] > 0
			}
			ids := tids[lo:hi:hi]
			for i, s := range c.lines {
				if s != lineBreak {
					c.lines[i] = ids[s]
				}
			}
			for _, cw := range c.words {
				ix.words.putIfAbsent(cw.surface, ids[cw.slot])
			}
			ix.docs[d] = docInfo{mem: c.mem, len: c.len, alive: true, terms: ids, lines: c.lines,
				tfs: tfs[lo:hi:hi], named: named[lo:hi:hi]}
			ix.lens[d] = docLens{len: c.len, alive: true}
		}
	})
	for d, c := range docs {
		ix.byFile[c.mem.File] = uint32(d)
		ix.live++
		for f := range numFields {
			ix.sumLen[f] += float64(c.len[f])
		}
	}
	ix.postings += total
}
