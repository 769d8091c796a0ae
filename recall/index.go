package recall

import (
	"math"
	"slices"
	"strings"
	"sync"

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
		PrefixExpansion: false,
	}
}

// posting is one document's occurrences of a term, per field.
type posting struct {
	doc uint32
	tf  [numFields]uint16
}

type termInfo struct {
	post   []posting // may hold postings of removed documents until the next compaction
	df     int32     // live documents containing the term
	dfName int32     // live documents containing the term in their name
}

type docInfo struct {
	mem   memdir.Memory
	len   [numFields]float32
	terms []uint32 // distinct term ids
	tfs   []uint16 // total occurrences of terms[i] over all fields
	named []bool   // terms[i] occurs in the name
	lines []uint32 // description and body as term ids, lineBreak between lines
	alive bool
}

// Index is an in-memory inverted index over memories, updated one memory at a time. It is
// safe for concurrent use: searches share a read lock, updates take the write lock only for
// the time it takes to link an already analysed memory in.
type Index struct {
	params Params

	mu     sync.RWMutex
	dict   map[string]uint32
	terms  []termInfo
	docs   []docInfo
	byFile map[string]uint32
	words  map[string]uint32 // every surface word seen → its term id (never shrinks)

	sortedMu sync.Mutex // guards sorted, built lazily under the read lock
	sorted   []string   // the keys of words, in order
	free     []uint32   // doc ids whose stale postings have been purged
	live     int
	dead     int // removed docs whose postings are still in the lists
	sumLen   [numFields]float64
	postings int // total postings, live and stale
}

// NewIndex returns an empty index using p.
func NewIndex(p Params) *Index {
	return &Index{params: p, dict: map[string]uint32{}, byFile: map[string]uint32{}, words: map[string]uint32{}}
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
	terms []string
	tf    [][numFields]uint16
	len   [numFields]float32
	lines []int32  // description and body as indexes into terms, -1 between lines
	words []string // a surface form of each word term (first seen), for spelling correction
}

// lineBreak separates lines in docInfo.lines.
const lineBreak = ^uint32(0)

// analyse tokenizes a memory's fields. It touches no index state, so it runs outside the lock
// and in parallel.
func analyse(m memdir.Memory) analysed {
	a := analysed{mem: m}
	pos := make(map[string]int, min(len(m.Body)/4+16, 4096))
	var toks []Token
	var last []string // the last written form recorded for each term
	for f, text := range [numFields]string{m.Name, m.Description, m.Body} {
		n := 0
		for line := range strings.SplitSeq(text, "\n") {
			toks = Tokenize(line, toks[:0])
			if len(toks) == 0 {
				continue
			}
			for _, t := range toks {
				n++
				i, isNew := a.add(pos, t.Term, f)
				if t.Surface != "" {
					// Record each written form of a term once in a row: enough for spelling
					// correction to know "deploying" as well as "deploy".
					if isNew {
						last = append(last, t.Surface)
						a.words = append(a.words, t.Surface, t.Term)
					} else if i < len(last) && last[i] != t.Surface {
						last[i] = t.Surface
						a.words = append(a.words, t.Surface, t.Term)
					}
				} else if isNew {
					last = append(last, "")
				}
				if f != fieldName {
					a.lines = append(a.lines, int32(i))
				}
			}
			if f != fieldName {
				a.lines = append(a.lines, -1)
			}
		}
		a.len[f] = float32(n)
	}
	return a
}

// add counts one occurrence of term in field f and returns the term's index in a.terms and
// whether it is new.
func (a *analysed) add(pos map[string]int, term string, f int) (int, bool) {
	i, ok := pos[term]
	if !ok {
		i = len(a.terms)
		pos[term] = i
		a.terms = append(a.terms, term)
		a.tf = append(a.tf, [numFields]uint16{})
	}
	if a.tf[i][f] < math.MaxUint16 {
		a.tf[i][f]++
	}
	return i, !ok
}

// Put adds m to the index, replacing the memory with the same File.
func (ix *Index) Put(m memdir.Memory) {
	a := analyse(m)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.link(a)
}

// putAll adds many memories, analysing them in parallel on up to workers goroutines.
func (ix *Index) putAll(mems []memdir.Memory, workers int) {
	out := make([]analysed, len(mems))
	var wg sync.WaitGroup
	if workers < 1 {
		workers = 1
	}
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(mems); i += workers {
				out[i] = analyse(mems[i])
			}
		})
	}
	wg.Wait()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, a := range out {
		ix.link(a)
	}
}

func (ix *Index) link(a analysed) {
	ix.unlink(a.mem.File)
	tids := make([]uint32, len(a.terms))
	for i, term := range a.terms {
		tid, ok := ix.dict[term]
		if !ok {
			tid = uint32(len(ix.terms))
			ix.dict[term] = tid
			ix.terms = append(ix.terms, termInfo{})
		}
		tids[i] = tid
	}
	ix.linkIDs(a, tids)
}

// linkIDs links an analysed memory whose terms already have ids. Caller holds ix.mu and has
// removed any memory with the same file.
func (ix *Index) linkIDs(a analysed, tids []uint32) {
	var id uint32
	if n := len(ix.free); n > 0 {
		id = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		id = uint32(len(ix.docs))
		ix.docs = append(ix.docs, docInfo{})
	}
	d := docInfo{mem: a.mem, len: a.len, alive: true, terms: tids, tfs: make([]uint16, len(a.terms)), named: make([]bool, len(a.terms))}
	for i, tid := range tids {
		ti := &ix.terms[tid]
		ti.post = append(ti.post, posting{doc: id, tf: a.tf[i]})
		ti.df++
		if a.tf[i][fieldName] > 0 {
			ti.dfName++
			d.named[i] = true
		}
		ix.postings++
		total := 0
		for _, n := range a.tf[i] {
			total += int(n)
		}
		d.tfs[i] = uint16(min(total, math.MaxUint16))
	}
	for i := 0; i+1 < len(a.words); i += 2 {
		if _, ok := ix.words[a.words[i]]; !ok {
			ix.words[strings.Clone(a.words[i])] = ix.dict[a.words[i+1]]
		}
	}
	d.lines = make([]uint32, len(a.lines))
	for i, local := range a.lines {
		if local < 0 {
			d.lines[i] = lineBreak
		} else {
			d.lines[i] = d.terms[local]
		}
	}
	ix.docs[id] = d
	ix.byFile[a.mem.File] = id
	ix.live++
	for f := range numFields {
		ix.sumLen[f] += float64(a.len[f])
	}
}

// bulkLink links many memories into an empty index. It does what link does for each, but
// allocates every posting list from one array sized in a first pass, which makes a cold
// build several times faster than linking one memory at a time. Later appends move a list
// out of the shared array as needed. Caller holds ix.mu; the index must be empty.
func (ix *Index) bulkLink(as []analysed) {
	byFile := make(map[string]int, len(as))
	for i, a := range as {
		byFile[a.mem.File] = i // the last one of a duplicated file wins, as with link
	}
	ix.docs = make([]docInfo, 0, len(byFile))
	var counts []int32
	tids := make([][]uint32, len(as))
	for i, a := range as {
		if byFile[a.mem.File] != i {
			continue
		}
		ts := make([]uint32, len(a.terms))
		for j, term := range a.terms {
			tid, ok := ix.dict[term]
			if !ok {
				tid = uint32(len(ix.terms))
				ix.dict[term] = tid
				ix.terms = append(ix.terms, termInfo{})
				counts = append(counts, 0)
			}
			counts[tid]++
			ts[j] = tid
		}
		tids[i] = ts
	}
	total := 0
	for _, c := range counts {
		total += int(c)
	}
	all := make([]posting, total)
	off := 0
	for tid, c := range counts {
		ix.terms[tid].post = all[off : off : off+int(c)]
		off += int(c)
	}
	for i, a := range as {
		if tids[i] != nil {
			ix.linkIDs(a, tids[i])
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
	id, ok := ix.byFile[file]
	if !ok {
		return false
	}
	delete(ix.byFile, file)
	d := &ix.docs[id]
	for i, tid := range d.terms {
		ix.terms[tid].df--
		if d.named[i] {
			ix.terms[tid].dfName--
		}
	}
	for f := range numFields {
		ix.sumLen[f] -= float64(d.len[f])
	}
	*d = docInfo{}
	ix.live--
	ix.dead++
	if ix.dead > 64 && ix.dead*4 > ix.live {
		ix.compact()
	}
	return true
}

// compact removes the postings of dead documents and makes their ids reusable.
func (ix *Index) compact() {
	ix.postings = 0
	for t := range ix.terms {
		ti := &ix.terms[t]
		ti.post = slices.DeleteFunc(ti.post, func(p posting) bool { return !ix.docs[p.doc].alive })
		ix.postings += len(ti.post)
	}
	ix.free = ix.free[:0]
	for id := range ix.docs {
		if !ix.docs[id].alive {
			ix.free = append(ix.free, uint32(id))
		}
	}
	ix.dead = 0
}

// Get returns the memory stored under file.
func (ix *Index) Get(file string) (memdir.Memory, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	id, ok := ix.byFile[file]
	if !ok {
		return memdir.Memory{}, false
	}
	return ix.docs[id].mem, true
}

// Memories returns every memory in the index, in no particular order.
func (ix *Index) Memories() []memdir.Memory {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]memdir.Memory, 0, ix.live)
	for _, d := range ix.docs {
		if d.alive {
			out = append(out, d.mem)
		}
	}
	return out
}
