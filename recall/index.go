package recall

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-mem/strata/memdir"
)

// The fields of a memory that the index scores, each with its own weight and length
// normalisation.
const (
	fieldName = iota
	fieldDesc
	fieldBody
	numFields
)

// Params tune the ranker. DefaultParams are the values strata ships; they were chosen on
// general grounds (BM25F practice) and checked on an eval set, not fitted to it.
type Params struct {
	// K1 is BM25's term-frequency saturation.
	K1 float64
	// Weight and B are each field's weight (name, description, body) and length normalisation.
	Weight [numFields]float64
	B      [numFields]float64
	// UnigramWeight scales single-CJK-character terms against bigrams and words.
	UnigramWeight float64
	// Coverage rewards documents that match more of the query: the score is multiplied by
	// (matched query weight / total query weight)^Coverage. 0 turns it off.
	Coverage float64
	// Proximity weighs matches of adjacent query-word pairs (in the same order, stopwords
	// aside) in the top RerankDepth documents against single terms. 0 turns it off.
	Proximity float64
	// Pseudo-relevance feedback: the top FeedbackDocs results of a first pass contribute up to
	// FeedbackTerms new terms, weighted FeedbackWeight against the original query, to a second
	// pass. FeedbackDocs 0 turns it off.
	FeedbackDocs   int
	FeedbackTerms  int
	FeedbackWeight float64
	// Passage rewards query terms found together on one line of the description or body (a
	// bullet, a sentence): the best line's matched query weight, times Passage, is added to
	// the score of each of the top RerankDepth documents. 0 turns it off.
	Passage     float64
	RerankDepth int
	// NameBonus adds, for each query term found in a memory's name, NameBonus times the
	// term's idf among names: the name says what a memory is about, and a term that sets a
	// few names apart (a person, a tool, a topic) should not drown in the body's counts.
	NameBonus float64
	// SecondRound weighs a second retrieval round, run when the best hit scores more than
	// twice the next (one memory matched the query well, the rest little of it): the
	// SecondTerms rarest terms of the best hit that the query lacks score the first round's
	// candidates again, and SecondRound times the best score goes to the one the second round
	// scores best (less to the others, in proportion). 0 turns it off.
	SecondRound float64
	SecondTerms int
	// Time weighs a memory that speaks of the time a query names ("in May", "on 8 May 2023",
	// "in 2022": its own date, a date in its text, or "last week" counted from its own date)
	// against the query's total weight; the bonus goes to the top RerankDepth documents.
	// 0 turns it off.
	Time float64
	// PrefixExpansion lets a query word of five letters or more also match the longer known
	// words it begins ("grandma" → "grandmother"), at half weight.
	PrefixExpansion bool
}

// DefaultParams returns the ranker's default tuning.
func DefaultParams() Params {
	return Params{
		K1:              1.2,
		Weight:          [numFields]float64{1.0, 1.5, 1.0},
		B:               [numFields]float64{0.5, 0.5, 0.75},
		UnigramWeight:   0.3,
		Coverage:        0.5,
		Proximity:       0.4,
		FeedbackDocs:    2,
		FeedbackTerms:   20,
		FeedbackWeight:  0.1,
		Passage:         0.5,
		RerankDepth:     50,
		NameBonus:       2,
		Time:            0.5,
		SecondRound:     0.5,
		SecondTerms:     20,
		PrefixExpansion: false,
	}
}

// posting is one document's occurrences of a term, per field.
type posting struct {
	doc uint32
	tf  [numFields]uint16
}

type termInfo struct {
	// post holds the term's postings, in one array from the last bulk build or compaction;
	// a posting linked after that goes in while post has room, else in the term's tail (see
	// Index.tails). Both may hold postings of removed documents until the next compaction.
	post   []posting
	df     int32  // live documents containing the term
	dfName int32  // live documents containing the term in their name
	key    uint64 // termKey: orders terms alike in every index, whatever their ids
}

// termKey is a hash of a term that is the same in every process (FNV-1a): where two terms
// tie, a search orders them by it, never by their ids, which depend on the order memories
// were read in (parallel reads, an index's history). So every index of the same memories
// ranks alike.
func termKey(term string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(term); i++ {
		h ^= uint64(term[i])
		h *= 1099511628211
	}
	return h
}

type docInfo struct {
	mem   memdir.Memory
	len   [numFields]float32
	terms []uint32 // distinct term ids
	tfs   []uint16 // total occurrences of terms[i] over all fields
	named []bool   // terms[i] occurs in the name
	lines []uint32 // description and body as term ids, lineBreak between lines
	// lazy: terms, tfs, named and lines are not filled in yet (a memory of a saved index;
	// see Index.detail).
	lazy bool
	// dates are the spans of time the memory speaks of (memoryDates), found the first time a
	// search asks (see Index.datesOf); dated says they were.
	dates []span
	dated bool
	// damaged: its texts failed their check (see savedDocs.doc); readers of memories skip it
	// until the ranker has rebuilt the index.
	damaged bool
}

// docLens is what scoring reads for every posting: kept apart from docInfo so the loop over a
// long posting list stays in cache.
type docLens struct {
	len   [numFields]float32
	alive bool
}

// Index is an in-memory inverted index over memories, updated one memory at a time. It is
// safe for concurrent use: searches share a read lock, updates take the write lock only for
// the time it takes to link an already analysed memory in.
type Index struct {
	params Params
	// exhaustive turns off rerank's bound, so every candidate is reranked: the reference
	// the bounded search must equal (tests).
	exhaustive bool

	dict  *dict // term → id; shared with the analysers, so not under mu
	words *dict // every written word seen → its term's id, for spelling correction

	mu     sync.RWMutex
	terms  termTable // by term id; may be shorter than dict until the next link
	docs   []docInfo // read through doc, which fills in those of a saved base
	lens   []docLens // by doc id, next to each other for the scoring loop
	byFile fileIDs
	// saved is the document table of the base the index was opened from; filled tells, for
	// each of its documents, whether docs holds it yet (see doc). Documents linked since are
	// always filled.
	saved  *savedDocs
	filled []atomic.Bool
	// damaged is set when a part of the saved base failed its check as it was first used
	// (blockSums): the index is then not to be trusted, and its ranker rebuilds it (reset).
	damaged atomic.Bool
	resets  atomic.Uint32 // bumped by every reset

	// tails holds, by term id, the postings linked once the term's post was full. A bulk
	// build gives every list exactly its length, and a list of thousands copied whole to add
	// one posting would make the first search after a change pay for every long list of the
	// changed memory; a tail is short and grows on its own. compact merges tails back.
	tails   map[uint32][]posting
	changes uint64    // bumped by every link and unlink: what norms are computed for
	norm    normTable // every document's length normalisation, kept by norms

	lazyMu sync.Mutex // guards the details of lazy documents, filling saved ones in, lazyZ and packed
	lazyZ  *analyser
	packed *packed // posting lists of a saved base not decoded yet (see postingsOf)

	sortedMu sync.Mutex // guards sorted, built lazily under the read lock
	sorted   []string   // the keys of words, in order
	free     []uint32   // doc ids whose stale postings have been purged
	live     int
	dead     int // removed docs whose postings are still in the lists
	sumLen   [numFields]float64
	postings int // total postings, live and stale
}

// roomy is the capacity a bulk build gives an array of n entries that grows by one entry at a
// time as memories are added or edited (terms, documents): the first change then does not
// copy the whole array, for an eighth more address space.
func roomy(n int) int { return n + n/8 + 16 }

// NewIndex returns an empty index using p.
func NewIndex(p Params) *Index {
	return &Index{params: p, dict: newHashDict(), words: newDict(), byFile: fileIDs{m: map[string]uint32{}}}
}

// reset empties the index, as NewIndex made it: what a ranker does to an index found damaged
// before it builds it again. Its caller serialises it with the index's analysers.
func (ix *Index) reset() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.dict, ix.words = newHashDict(), newDict()
	ix.terms, ix.docs, ix.lens, ix.byFile = termTable{}, nil, nil, fileIDs{m: map[string]uint32{}}
	ix.saved, ix.filled, ix.packed, ix.lazyZ = nil, nil, nil, nil
	ix.tails, ix.sorted, ix.free = nil, nil, nil
	ix.live, ix.dead, ix.sumLen, ix.postings = 0, 0, [numFields]float64{}, 0
	ix.changes++
	ix.norm.reset()
	ix.damaged.Store(false)
	ix.resets.Add(1)
}

// Params returns the index's tuning.
func (ix *Index) Params() Params { return ix.params }

// Len returns the number of memories in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// analysed is a memory turned into term counts, ready to be linked into an index.
type analysed struct {
	mem   memdir.Memory
	tids  []uint32 // distinct term ids
	tf    [][numFields]uint16
	len   [numFields]float32
	lines []uint32 // description and body as term ids, lineBreak between lines
}

// lineBreak separates lines in docInfo.lines.
const lineBreak = ^uint32(0)

// analyser turns memories into term counts. It interns terms into the index's dictionary
// (safe in parallel) and holds scratch space reused from one memory to the next, so each
// goroutine analysing memories needs its own.
type analyser struct {
	dict, words *dict
	slot        map[string]int32 // term → index in the current memory's tids
	last        []string         // the last written form recorded for each of tids
	toks        []Token
	// again: the memories were analysed before (a saved base's, see Index.detail), so their
	// written forms are in the word list already and are not looked up there again.
	again bool
}

func (ix *Index) newAnalyser() *analyser {
	return &analyser{dict: ix.dict, words: ix.words, slot: map[string]int32{}}
}

// analyse tokenizes a memory's fields and interns its terms.
func (z *analyser) analyse(m memdir.Memory) analysed {
	a := analysed{mem: m}
	clear(z.slot)
	z.last = z.last[:0]
	for f, text := range fieldTexts(m) {
		n := 0
		for line := range strings.SplitSeq(text, "\n") {
			z.toks = Tokenize(line, z.toks[:0])
			if len(z.toks) == 0 {
				continue
			}
			for _, t := range z.toks {
				n++
				// The memory's own small map first: the shared dictionary is large, so each
				// lookup there is a cache miss; it is asked once per distinct term.
				i, ok := z.slot[t.Term]
				if !ok {
					i = int32(len(a.tids))
					z.slot[t.Term] = i
					a.tids = append(a.tids, z.dict.intern(t.Term))
					a.tf = append(a.tf, [numFields]uint16{})
					z.last = append(z.last, "")
				}
				if a.tf[i][f] < math.MaxUint16 {
					a.tf[i][f]++
				}
				// Record each written form of a word once in a row: enough for spelling
				// correction to know "deploying" as well as "deploy".
				tid := a.tids[i]
				if !z.again && t.Surface != "" && z.last[i] != t.Surface {
					z.last[i] = t.Surface
					z.words.putIfAbsent(t.Surface, tid)
				}
				if f != fieldName {
					a.lines = append(a.lines, tid)
				}
			}
			if f != fieldName {
				a.lines = append(a.lines, lineBreak)
			}
		}
		a.len[f] = float32(n)
	}
	return a
}

// Put adds m to the index, replacing the memory with the same File.
func (ix *Index) Put(m memdir.Memory) {
	a := ix.newAnalyser().analyse(m)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.link(a)
}

// link adds an analysed memory, replacing the one with the same file. Caller holds ix.mu.
func (ix *Index) link(a analysed) {
	ix.unlink(a.mem.File)
	ix.growTerms()
	var id uint32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		id = uint32(len(ix.docs))
		ix.docs = append(ix.docs, docInfo{})
		ix.lens = append(ix.lens, docLens{})
	}
	ix.linkAs(a, id)
}

// growTerms extends terms to cover every id the dictionary handed out. Caller holds ix.mu.
func (ix *Index) growTerms() {
	ix.terms.grow(int(ix.dict.next.Load()))
}

// linkAs links an analysed memory under doc id. Caller holds ix.mu, has removed any memory
// with the same file and grown terms.
func (ix *Index) linkAs(a analysed, id uint32) {
	d := docInfo{mem: a.mem, len: a.len}
	d.setDetail(a)
	ix.dict.keyMu.RLock()
	defer ix.dict.keyMu.RUnlock()
	for i, tid := range a.tids {
		ti := ix.terms.at(tid)
		if ti.key == 0 {
			ti.key = ix.dict.keys[tid] // interned before a was analysed, so stored
		}
		ix.addPosting(tid, posting{doc: id, tf: a.tf[i]})
		ti.df++
		if d.named[i] {
			ti.dfName++
		}
	}
	ix.postings += len(a.tids)
	ix.changes++
	ix.norm.touch(id, len(ix.lens))
	ix.docs[id] = d
	if int(id) < len(ix.filled) {
		ix.filled[id].Store(true)
	}
	ix.lens[id] = docLens{len: a.len, alive: true}
	ix.byFile.set(a.mem.File, id)
	ix.live++
	for f := range numFields {
		ix.sumLen[f] += float64(a.len[f])
	}
}

// setDetail fills in what a memory's analysis gives beyond its postings: its distinct terms
// with their total counts and whether each is in the name, and its lines as terms.
func (d *docInfo) setDetail(a analysed) {
	d.terms, d.lines, d.lazy = a.tids, a.lines, false
	d.tfs, d.named = make([]uint16, len(a.tids)), make([]bool, len(a.tids))
	for i := range a.tids {
		total := 0
		for _, n := range a.tf[i] {
			total += int(n)
		}
		d.tfs[i] = uint16(min(total, math.MaxUint16))
		d.named[i] = a.tf[i][fieldName] > 0
	}
}

// detail returns document id with its terms and lines, read first from its saved analysis
// when it came from a saved index, or, when that fails its check (the index is then damaged
// and its ranker rebuilds it), by analysing its memory again. Searches call it under the read
// lock for the few documents they rerank; lazyMu makes that safe.
func (ix *Index) detail(id uint32) *docInfo {
	ix.lazyMu.Lock()
	defer ix.lazyMu.Unlock()
	d := ix.fill(id)
	if d.lazy && !ix.saved.analysis(int(id), d) {
		if ix.lazyZ == nil {
			ix.lazyZ = ix.newAnalyser()
			ix.lazyZ.again = true
		}
		a := ix.lazyZ.analyse(d.mem)
		a.keepKnown(ix.terms.len())
		d.setDetail(a)
	}
	return d
}

// keepKnown keeps of a the terms the first n term ids cover: a memory analysed during a search
// can hold a word the term table has no entry for yet (one a Put interned and has not linked,
// or one a wrongly written base never had), which no posting and no query term can match.
func (a *analysed) keepKnown(n int) {
	k := 0
	for i, tid := range a.tids {
		if int(tid) < n {
			a.tids[k], a.tf[k] = tid, a.tf[i]
			k++
		}
	}
	a.tids, a.tf = a.tids[:k], a.tf[:k]
	a.lines = slices.DeleteFunc(a.lines, func(tid uint32) bool { return tid != lineBreak && int(tid) >= n })
}

// doc returns document id, filled in first from the saved base if it is one of its documents
// not used yet. Searches call it under the read lock; lazyMu makes the filling safe.
func (ix *Index) doc(id uint32) *docInfo {
	if int(id) < len(ix.filled) && !ix.filled[id].Load() {
		ix.lazyMu.Lock()
		defer ix.lazyMu.Unlock()
		return ix.fill(id)
	}
	return &ix.docs[id]
}

// fill is doc for a caller holding lazyMu.
func (ix *Index) fill(id uint32) *docInfo {
	if int(id) < len(ix.filled) && !ix.filled[id].Load() {
		ix.docs[id] = ix.saved.doc(int(id))
		ix.filled[id].Store(true)
	}
	return &ix.docs[id]
}

// fileOf returns the file of document id without filling it in.
func (ix *Index) fileOf(id uint32) string {
	if int(id) < len(ix.filled) && !ix.filled[id].Load() {
		return ix.saved.file(int(id))
	}
	return ix.docs[id].mem.File
}

// datesOf returns the spans of time document id speaks of, reading them from its text the
// first time. Searches call it under the read lock; lazyMu makes that safe.
func (ix *Index) datesOf(id uint32) []span {
	ix.lazyMu.Lock()
	defer ix.lazyMu.Unlock()
	d := ix.fill(id)
	if !d.dated {
		d.dates, d.dated = memoryDates(d.mem.Modified, d.mem.Description+"\n"+d.mem.Body), true
	}
	return d.dates
}

// addPosting appends p to the postings of term tid: in place while the term's array has room
// or is short (growing it copies little), else to its tail (see Index.tails), so no long list
// is copied. Caller holds ix.mu.
func (ix *Index) addPosting(tid uint32, p posting) {
	ix.postingsOf(tid)
	ti := ix.terms.at(tid)
	// A term has a tail only once its array was full and long, and only compact shortens an
	// array, merging the tail in: the postings in post then tail are in the order linked.
	if len(ti.post) < cap(ti.post) || len(ti.post) < tailMin {
		ti.post = append(ti.post, p)
		return
	}
	if ix.tails == nil {
		ix.tails = map[uint32][]posting{}
	}
	ix.tails[tid] = append(ix.tails[tid], p)
}

// tailMin is the length from which a full posting array gets a tail instead of growing.
const tailMin = 64

// bulkLink links many memories into an empty index. It does what link does for each, but
// allocates every posting list from one array sized in a first pass, which makes a cold
// build much faster than linking one memory at a time. Every list is full: a later posting
// of a long list goes to its tail (addPosting), one of a short list moves the list out of the
// shared array. Caller holds ix.mu; the index must be empty.
func (ix *Index) bulkLink(as []analysed) {
	last := make(map[string]int, len(as))
	for i, a := range as {
		last[a.mem.File] = i // of a file given twice, the last one wins, as with link
	}
	ix.growTerms()
	counts := make([]int32, ix.terms.len())
	n := 0
	for i, a := range as {
		if last[a.mem.File] != i {
			continue
		}
		n++
		for _, tid := range a.tids {
			counts[tid]++
		}
	}
	total := 0
	for _, c := range counts {
		total += int(c)
	}
	all := make([]posting, total)
	off := 0
	for tid, c := range counts {
		if c > 0 {
			ix.terms.at(uint32(tid)).post = all[off : off : off+int(c)]
			off += int(c)
		}
	}
	ix.docs = make([]docInfo, 0, roomy(n))
	ix.lens = make([]docLens, 0, roomy(n))
	for i, a := range as {
		if last[a.mem.File] == i {
			ix.docs = append(ix.docs, docInfo{})
			ix.lens = append(ix.lens, docLens{})
			ix.linkAs(a, uint32(len(ix.docs)-1))
		}
	}
}

// Remove drops the memory stored under file, if any, and reports whether there was one.
func (ix *Index) Remove(file string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.unlink(file)
}

// unlink marks a document dead. Its postings stay in the lists (skipped by searches) until
// dead documents make up a quarter of the index, when the lists are compacted in one pass.
func (ix *Index) unlink(file string) bool {
	id, ok := ix.byFile.get(file)
	if !ok {
		return false
	}
	ix.byFile.remove(file)
	d := ix.detail(id)
	for i, tid := range d.terms {
		ix.terms.at(tid).df--
		if d.named[i] {
			ix.terms.at(tid).dfName--
		}
	}
	for f := range numFields {
		ix.sumLen[f] -= float64(d.len[f])
	}
	*d = docInfo{}
	ix.lens[id] = docLens{}
	ix.changes++
	ix.norm.touch(id, len(ix.lens))
	ix.live--
	ix.dead++
	if ix.dead > 64 && ix.dead*4 > ix.live {
		ix.compact()
	}
	return true
}

// compact removes the postings of dead documents, merges the tails into the posting arrays and
// makes the dead documents' ids reusable.
func (ix *Index) compact() {
	ix.postings = 0
	dead := func(p posting) bool { return !ix.lens[p.doc].alive }
	for t := range ix.terms.len() {
		ti := ix.terms.at(uint32(t))
		ti.post = slices.DeleteFunc(ix.postingsOf(uint32(t)), dead)
		if tail, ok := ix.tails[uint32(t)]; ok {
			ti.post = append(ti.post, slices.DeleteFunc(tail, dead)...)
		}
		ix.postings += len(ti.post)
	}
	clear(ix.tails)
	ix.free = ix.free[:0]
	for id := range ix.lens {
		if !ix.lens[id].alive {
			ix.free = append(ix.free, uint32(id))
		}
	}
	ix.dead = 0
}

// Get returns the memory stored under file.
func (ix *Index) Get(file string) (memdir.Memory, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	id, ok := ix.byFile.get(file)
	if !ok {
		return memdir.Memory{}, false
	}
	if d := ix.doc(id); !d.damaged {
		return d.mem, true
	}
	return memdir.Memory{}, false
}

// Find returns the memory called name by memdir's rule for a lookup by name (memdir.FindIn:
// frontmatter name, else file, else the only look-alike), without copying the index: a
// memory_get on a store of 10,000 memories must not copy them all.
func (ix *Index) Find(name string) (memdir.Memory, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	m, ok := memdir.FindIn(func(yield func(*memdir.Memory) bool) {
		for i := range ix.lens {
			if !ix.lens[i].alive {
				continue
			}
			if d := ix.doc(uint32(i)); !d.damaged && !yield(&d.mem) {
				return
			}
		}
	}, name)
	if !ok {
		return memdir.Memory{}, false
	}
	return *m, true
}

// Files returns the file of every memory in the index, in no particular order: what a
// session's first recall counts as eligible, without copying the memories.
func (ix *Index) Files() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]string, 0, ix.live)
	for i := range ix.lens {
		if ix.lens[i].alive {
			out = append(out, ix.fileOf(uint32(i)))
		}
	}
	return out
}

// Memories returns every memory in the index, in no particular order.
func (ix *Index) Memories() []memdir.Memory {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]memdir.Memory, 0, ix.live)
	for i := range ix.lens {
		if ix.lens[i].alive {
			if d := ix.doc(uint32(i)); !d.damaged {
				out = append(out, d.mem)
			}
		}
	}
	return out
}

// fileIDs gives the document id of each memory's file: those of a saved base by binary search
// in its document table, which is sorted by file, and the files linked or removed since from
// a map, which wins.
type fileIDs struct {
	m     map[string]uint32 // noDoc: removed
	saved *savedDocs
}

const noDoc = math.MaxUint32

func (f *fileIDs) get(file string) (uint32, bool) {
	if id, ok := f.m[file]; ok {
		return id, id != noDoc
	}
	if f.saved != nil {
		return f.saved.find(file)
	}
	return 0, false
}

func (f *fileIDs) set(file string, id uint32) { f.m[file] = id }

func (f *fileIDs) remove(file string) {
	if f.saved != nil {
		if _, ok := f.saved.find(file); ok {
			f.m[file] = noDoc
			return
		}
	}
	delete(f.m, file)
}
