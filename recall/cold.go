package recall

import (
	"context"
	"errors"
	"hash/maphash"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/strata-mem/strata/memdir"
)

// The cold build. Interning every term of every memory in the shared, locked dictionary
// costs a lock and a cache miss per distinct term per memory (millions for a store of Chinese
// memories, whose character pairs are many), and linking memory by memory scatters appends
// over every posting list and leaves them in pieces. A cold build into an empty index does
// neither. Each goroutine analyses a contiguous run of the memories (a coldShard) and numbers
// the terms it meets in its own dictionary, in order of first occurrence. The shards'
// dictionaries are then merged in run order: a term keeps the id of the first shard that met
// it, and a new one takes the next id, which is exactly the order of first occurrence over
// all memories — the order a one-worker build gives, whatever the number of shards. Each
// shard then counts its postings per term, and the counts place every shard's postings of a
// term one after the other in one array (a counting sort, in parallel), so that posting lists
// are contiguous and in memory order without any sorting or per-list growth.
//
// Memory is what a cold build costs most on a fresh process: each new page is a page fault.
// So the working set is kept to what the index keeps anyway: a memory's term counts per
// field, which only its postings keep, are counted again from its lines (and name) when the
// postings are written rather than stored in between.

// coldDoc is a memory analysed for a cold build: like analysed, but its terms are numbered in
// its shard's dictionary until the merge gives them their index-wide ids.
type coldDoc struct {
	mem   memdir.Memory
	terms []uint32 // distinct terms in order of first occurrence: shard ids, then term ids
	names []uint32 // the name's terms, as indexes into terms, one per occurrence
	body  int      // where the body starts in lines (the description comes first)
	tfs   []uint16 // total occurrences of terms[i] over all fields
	named []bool   // terms[i] occurs in the name
	len   [numFields]float32
	lines []uint32 // description and body as indexes into terms, lineBreak between lines
}

// coldWord is a written form of a word and the id of its term, for the word list.
type coldWord struct {
	surface string
	id      uint32
}

// docWord is a written word of the memory being analysed: its hash and the index of its term
// in the memory.
type docWord struct {
	surface string
	hash    uint64
	slot    uint32
}

// coldShard is what one goroutine analysed for a cold build: a run of memories, in order,
// with its own term dictionary. Each goroutine needs its own.
type coldShard struct {
	seed   maphash.Seed
	ids    termTable  // term hash → shard id
	hashes []uint64   // shard id → term hash, in order of first occurrence
	wordAt termTable  // hash of a written word → its index in words
	words  []coldWord // every written word met, with the shard id of its term
	docs   []coldDoc

	// Scratch space for the current memory, reused from one memory to the next; each
	// memory's slices are then copied to exact size into the chunks below, carved up in
	// turn, which spares a cold build most of its allocations.
	slot  termTable // term hash → index in the current memory's terms
	dhash []uint64  // the current memory's distinct terms
	terms []uint32  // their shard ids
	last  []string
	dword []docWord
	toks  []Token
	tf    [][numFields]uint16
	lines []uint32
	names []uint32
	sink  uint32 // keeps touch from being optimised away
	chunk struct {
		terms []uint32
		names []uint32
		tfs   []uint16
		named []bool
		lines []uint32
	}
}

func (ix *Index) newColdShard() *coldShard {
	return &coldShard{seed: ix.dict.seed}
}

// coldChunk is the least number of elements a coldShard allocates at once.
const coldChunk = 1 << 14

// carve copies src into the free end of *chunk (a new chunk when it is full) and returns the
// copy, its capacity clipped so that appending to it never writes into the chunk.
func carve[T any](chunk *[]T, src []T) []T {
	if len(src) == 0 {
		return nil
	}
	return carveN(chunk, len(src), func(dst []T) { copy(dst, src) })
}

// carveN is carve for n elements written by fill.
func carveN[T any](chunk *[]T, n int, fill func([]T)) []T {
	if n == 0 {
		return nil
	}
	if cap(*chunk)-len(*chunk) < n {
		*chunk = make([]T, 0, max(coldChunk, n))
	}
	k := len(*chunk)
	*chunk = (*chunk)[:k+n]
	dst := (*chunk)[k : k+n : k+n]
	fill(dst)
	return dst
}

// add analyses m (as analyser.analyse does, with the shard's dictionary in place of the
// index's) and appends it to the shard.
func (z *coldShard) add(m memdir.Memory) {
	a := coldDoc{mem: m}
	z.slot.reset()
	z.dhash, z.last, z.tf, z.lines, z.dword, z.names = z.dhash[:0], z.last[:0], z.tf[:0], z.lines[:0], z.dword[:0], z.names[:0]
	for f, text := range fieldTexts(m) {
		n := 0
		for line := range strings.SplitSeq(text, "\n") {
			z.toks = Tokenize(line, z.toks[:0])
			if len(z.toks) == 0 {
				continue
			}
			for _, t := range z.toks {
				n++
				hs := maphash.String(z.seed, t.Term)
				i, ok := z.slot.get(hs, uint32(len(z.dhash)))
				if !ok {
					z.dhash = append(z.dhash, hs)
					z.tf = append(z.tf, [numFields]uint16{})
					z.last = append(z.last, "")
				}
				if z.tf[i][f] < math.MaxUint16 {
					z.tf[i][f]++
				}
				// Each written form of a word once in a row (see analyser.analyse).
				if t.Surface != "" && z.last[i] != t.Surface {
					z.last[i] = t.Surface
					wh := hs
					if t.Surface != t.Term {
						wh = maphash.String(z.seed, t.Surface)
					}
					z.dword = append(z.dword, docWord{surface: t.Surface, hash: wh, slot: i})
				}
				if f != fieldName {
					z.lines = append(z.lines, i)
				} else {
					z.names = append(z.names, i)
				}
			}
			if f != fieldName {
				z.lines = append(z.lines, lineBreak)
			}
		}
		a.len[f] = float32(n)
		if f == fieldDesc {
			a.body = len(z.lines)
		}
	}
	// The memory's terms in the shard's dictionary. The table is large, so each lookup is a
	// cache miss: touching all the slots first, in a loop whose loads do not wait for one
	// another, lets the processor fetch them at once rather than one after the other.
	z.sink += z.ids.touch(z.dhash)
	z.terms = z.terms[:0]
	for _, hs := range z.dhash {
		z.terms = append(z.terms, z.id(hs))
	}
	// Written words: a form always belongs to the same term, so the first one met stands
	// for all.
	for _, w := range z.dword {
		if _, ok := z.wordAt.get(w.hash, uint32(len(z.words))); !ok {
			z.words = append(z.words, coldWord{surface: w.surface, id: z.terms[w.slot]})
		}
	}
	n := len(z.terms)
	a.terms = carve(&z.chunk.terms, z.terms)
	a.names = carve(&z.chunk.names, z.names)
	a.tfs = carveN(&z.chunk.tfs, n, func(dst []uint16) {
		for i, tf := range z.tf {
			sum := 0
			for _, k := range tf {
				sum += int(k)
			}
			dst[i] = uint16(min(sum, math.MaxUint16))
		}
	})
	a.named = carveN(&z.chunk.named, n, func(dst []bool) {
		for i, tf := range z.tf {
			dst[i] = tf[fieldName] > 0
		}
	})
	a.lines = carve(&z.chunk.lines, z.lines)
	z.docs = append(z.docs, a)
}

// counts returns the memory's occurrences of each of its terms per field, counted again from
// its name and lines (which must still hold indexes into terms) into dst.
func (c *coldDoc) counts(dst [][numFields]uint16) [][numFields]uint16 {
	dst = slices.Grow(dst[:0], len(c.terms))[:len(c.terms)]
	clear(dst)
	add := func(slot uint32, f int) {
		if dst[slot][f] < math.MaxUint16 {
			dst[slot][f]++
		}
	}
	for _, s := range c.names {
		add(s, fieldName)
	}
	for j, s := range c.lines {
		if s == lineBreak {
			continue
		}
		if j < c.body {
			add(s, fieldDesc)
		} else {
			add(s, fieldBody)
		}
	}
	return dst
}

// id returns the shard id of the term hs, giving it the next one if it is new.
func (z *coldShard) id(hs uint64) uint32 {
	id, ok := z.ids.get(hs, uint32(len(z.hashes)))
	if !ok {
		z.hashes = append(z.hashes, hs)
	}
	return id
}

// mergeBatch is how many slots a merge loads at once.
const mergeBatch = 64

// coldReady reports whether a cold build may be used: the index and its dictionaries are
// empty. Caller holds ix.mu.
func (ix *Index) coldReady() bool {
	return len(ix.docs) == 0 && ix.live == 0 && ix.dict.next.Load() == 0
}

// linkWarm links cold-analysed shards, in order, one memory at a time by interning their
// terms, for when the index stopped being empty between the analysis and the link. It builds
// the index that Put of each memory in order builds. Caller holds ix.mu.
func (ix *Index) linkWarm(shards []*coldShard) {
	for _, z := range shards {
		for _, c := range z.docs {
			a := analysed{mem: c.mem, tf: c.counts(nil), len: c.len, tids: make([]uint32, len(c.terms))}
			for i, s := range c.terms {
				a.tids[i] = ix.dict.internHash(z.hashes[s])
			}
			a.lines = c.lines
			for i, s := range a.lines {
				if s != lineBreak {
					a.lines[i] = a.tids[s]
				}
			}
			ix.link(a)
		}
		for _, w := range z.words {
			ix.words.putIfAbsent(w.surface, ix.dict.internHash(z.hashes[w.id]))
		}
	}
}

// bulkLinkCold links cold-analysed shards, runs of consecutive memories in order, into an
// empty index (see coldReady), one goroutine per shard. It builds the same index as
// analysing the memories one by one in order and linking them with bulkLink. Of a file given
// twice, the last one is linked (its terms are interned all the same, as Put does). Caller
// holds ix.mu.
func (ix *Index) bulkLinkCold(shards []*coldShard) {
	// Which memories are linked, and their doc ids: in order, the last of each file.
	given := 0
	for _, z := range shards {
		given += len(z.docs)
	}
	last := make(map[string]int, given)
	k := 0
	for _, z := range shards {
		for _, c := range z.docs {
			last[c.mem.File] = k
			k++
		}
	}
	docID := make([][]int32, len(shards)) // -1: a file given again later
	n := 0
	k = 0
	for s, z := range shards {
		docID[s] = make([]int32, len(z.docs))
		for i, c := range z.docs {
			docID[s][i] = -1
			if last[c.mem.File] == k {
				docID[s][i] = int32(n)
				n++
			}
			k++
		}
	}

	// Merge the shards' dictionaries in run order: term ids in order of first occurrence.
	// The first shard's ids are already those; the terms each later shard meets first go in
	// a table of their own (when a shard after it needs to look them up), which spares
	// growing the first shard's.
	var first *termTable
	var hashes []uint64 // term id → hash
	if len(shards) > 0 {
		first, hashes = &shards[0].ids, shards[0].hashes
	}
	var later termTable
	remap := make([][]uint32, len(shards))
	for s, z := range shards {
		if s == 0 {
			continue
		}
		remap[s] = make([]uint32, len(z.hashes))
		for l, hs := range z.hashes {
			if l%mergeBatch == 0 { // see add
				z.sink += first.touch(z.hashes[l:min(l+mergeBatch, len(z.hashes))])
			}
			id, ok := first.find(hs)
			if !ok && s+1 < len(shards) {
				id, ok = later.get(hs, uint32(len(hashes)))
			} else if !ok {
				id, ok = later.find(hs)
				if !ok {
					id = uint32(len(hashes))
				}
			}
			if !ok {
				hashes = append(hashes, hs)
			}
			remap[s][l] = id
		}
	}
	next := uint32(len(hashes))
	ix.dict.next.Store(next)
	ix.terms = make([]termInfo, next, roomy(int(next)))

	run := func(f func(s int, z *coldShard)) {
		var wg sync.WaitGroup
		for s, z := range shards {
			wg.Go(func() { f(s, z) })
		}
		wg.Wait()
	}
	// Term ids in place of shard ids, lines as term ids, the word list, and each shard's
	// postings per term (and in names).
	count := make([][]int32, len(shards))
	names := make([][]int32, len(shards))
	run(func(s int, z *coldShard) {
		ids := remap[s] // nil for the first shard, whose ids are term ids
		cnt := make([]int32, next)
		nm := make([]int32, next)
		for i := range z.docs {
			c := &z.docs[i]
			if ids != nil {
				for j, l := range c.terms {
					c.terms[j] = ids[l]
				}
			}
			if docID[s][i] < 0 {
				continue
			}
			for j, id := range c.terms {
				cnt[id]++
				if c.named[j] {
					nm[id]++
				}
			}
		}
		for _, w := range z.words {
			if ids != nil {
				w.id = ids[w.id]
			}
			ix.words.putIfAbsent(w.surface, w.id)
		}
		// The dictionary's entries, shared out by dictionary shard.
		for i := s; i < dictShards; i += len(shards) {
			ix.dict.reserveShard(i, int(next))
		}
		for id, hs := range hashes {
			if int(hs%dictShards)%len(shards) == s {
				ix.dict.putHash(hs, uint32(id))
			}
		}
		count[s], names[s] = cnt, nm
	})

	// Each term's postings in one stretch of one array, shard after shard; count[s][id]
	// becomes where shard s writes its next posting of term id.
	total := 0
	for id := range next {
		start := total
		var dfName int32
		for s := range shards {
			c := count[s][id]
			count[s][id] = int32(total)
			total += int(c)
			dfName += names[s][id]
		}
		ix.terms[id] = termInfo{df: int32(total - start), dfName: dfName}
	}
	all := make([]posting, total)
	ix.docs = make([]docInfo, n, roomy(n))
	ix.lens = make([]docLens, n, roomy(n))
	run(func(s int, z *coldShard) {
		cur := count[s]
		var tf [][numFields]uint16
		for i := range z.docs {
			c := &z.docs[i]
			d := docID[s][i]
			if d >= 0 {
				tf = c.counts(tf)
				for j, id := range c.terms {
					all[cur[id]] = posting{doc: uint32(d), tf: tf[j]}
					cur[id]++
				}
			}
			for j, l := range c.lines {
				if l != lineBreak {
					c.lines[j] = c.terms[l]
				}
			}
			if d < 0 {
				continue
			}
			ix.docs[d] = docInfo{mem: c.mem, len: c.len, alive: true, terms: c.terms, lines: c.lines,
				tfs: c.tfs, named: c.named}
			ix.lens[d] = docLens{len: c.len, alive: true}
		}
	})
	if len(ix.byFile) == 0 {
		ix.byFile = make(map[string]uint32, n)
	}
	o := 0
	for id := range ix.terms {
		t := &ix.terms[id]
		t.post = all[o : o+int(t.df) : o+int(t.df)]
		o += int(t.df)
	}
	for id, d := range ix.docs {
		ix.byFile[d.mem.File] = uint32(id)
		ix.live++
		for f := range numFields {
			ix.sumLen[f] += float64(d.len[f])
		}
	}
	ix.postings += total
	ix.changes++
	ix.norm.reset()
}

// roomy is the capacity a bulk build gives an array of n entries that grows by one entry at a
// time as memories are added or edited (terms, documents): the first change then does not
// copy the whole array, for an eighth more address space.
func roomy(n int) int { return n + n/8 + 16 }

// loadCold reads files into an empty index: each goroutine reads and analyses a contiguous
// run of them into its own shard, then the shards are linked by bulkLinkCold (or one by one,
// should the index have changed meanwhile). Diagnostics come in file order. Caller holds r.mu.
func (r *Ranker) loadCold(ctx context.Context, files []string) ([]memdir.Diagnostic, error) {
	if len(files) > 1000 {
		// A memory brings a few new words (measured on English and Chinese text): size the
		// word list once. The cold build sizes the term dictionary itself.
		r.ix.words.reserve(len(files) * 2)
	}
	type result struct {
		info  FileInfo
		diags []memdir.Diagnostic
		err   error
	}
	res := make([]result, len(files))
	workers := min(r.workers, len(files))
	shards := make([]*coldShard, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			z := r.ix.newColdShard()
			shards[w] = z
			var buf []byte
			lo, hi := len(files)*w/workers, len(files)*(w+1)/workers
			z.docs = make([]coldDoc, 0, hi-lo)
			// Room for the terms of text that brings many new ones (Chinese does, about 30
			// a memory at first): pages of it never used are never touched, where growing
			// would copy it again and again.
			z.hashes = make([]uint64, 0, 64*(hi-lo))
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return
				}
				m, d, err := r.read(ctx, files[i], &buf)
				res[i] = result{info: FileInfo{File: files[i], ModTime: m.ModTime, Size: m.Size}, diags: d, err: err}
				if err == nil {
					z.add(m)
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var diags []memdir.Diagnostic
	if len(r.seen) == 0 {
		r.seen = make(map[string]FileInfo, len(files))
	}
	for i, x := range res {
		diags = append(diags, x.diags...)
		if x.err == nil {
			r.seen[files[i]] = x.info
		} else if !errors.Is(x.err, fs.ErrNotExist) {
			diags = append(diags, memdir.Diagnostic{Path: files[i], Severity: memdir.SevError, Message: x.err.Error()})
		}
	}
	r.ix.mu.Lock()
	defer r.ix.mu.Unlock()
	if r.ix.coldReady() {
		r.ix.bulkLinkCold(shards)
	} else {
		r.ix.linkWarm(shards) // the index changed meanwhile (a Put)
	}
	return diags, nil
}
