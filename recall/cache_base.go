package recall

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/strata-mem/strata/memdir"
)

// The base file is laid out so that opening it is a map of the file (or one read) and a pass
// over its small tables: keys and texts are used where they lie, and a posting list is decoded
// the first time a search needs it (Index.postingsOf). Every section starts at a multiple of 8.
// Its first part, up to the end of the files and words in the string table, is checked by one
// CRC at open; the rest (the memories' texts and the posting lists, three quarters of it) by a
// CRC per block of blockLen, each block checked the first time a part of it is used (blockSums).
//
//	header   magic, version, fingerprint, the counts below, CRC-32C of the first part (baseSum)
//	keys     nterms × u64: the terms' keys (termKey), ascending; term i has id i
//	terms    nterms × {df, dfName, first posting, postings} u32
//	docs     ndocs × docRecLen, ascending by file: lengths, stamp, times, size, its texts in
//	         the string table, its analysis in analyses
//	words    nwords × {offset, length, term} u32, ascending by word: spelling correction's
//	sums     a u32 CRC-32C per block of the second part
//	strings  the files, the words (nfix bytes: the end of the first part), then the other texts
//	postings each term's list, ascending by document: uvarints of the document's distance
//	         from the one before, then its count in each field (decoded on first use)
//	analyses each document's terms as its analysis gave them (see encodeAnalysis), so a search
//	         that reranks it does not analyse its text again
const (
	baseHeaderLen = 96
	baseSumAt     = 88 // where the header holds the first part's CRC
	termRecLen    = 16
	wordRecLen    = 12
	docStrings    = 8 // name, description, type, author, body, file, path, hash
	docRecLen     = 16 + 6*8 + docStrings*8 + 8
	docTextsAt    = 16 + 6*8         // where a document record's texts are
	docFileAt     = docTextsAt + 5*8 // where its file is
	docAnalysisAt = docTextsAt + docStrings*8
	blockLen      = 4096
)

// canMap reports whether keys can be used where they lie in a base: the platform is
// little-endian, as the file is. Else no saved index is used.
var canMap = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func align8(n int) int { return (n + 7) &^ 7 }

// baseLayout gives each section's offset for the counts in a header.
type baseLayout struct {
	nterms, ndocs, nwords, npost, nstr, nfix, nana           int // npost, nana: bytes
	keys, terms, docs, words, sums, str, fix, post, ana, end int // fix: the end of the first part
	nsums                                                    int
}

func newLayout(nterms, ndocs, nwords, npost, nstr, nfix, nana int) baseLayout {
	l := baseLayout{nterms: nterms, ndocs: ndocs, nwords: nwords, npost: npost, nstr: nstr, nfix: nfix, nana: nana}
	l.keys = baseHeaderLen
	l.terms = l.keys + 8*nterms
	l.docs = l.terms + termRecLen*nterms
	l.words = l.docs + docRecLen*ndocs
	l.sums = align8(l.words + wordRecLen*nwords)
	// The second part's length does not depend on where it starts (str is a multiple of 8).
	second := align8(nstr) - nfix + align8(npost) + align8(nana)
	l.nsums = (second + blockLen - 1) / blockLen
	l.str = align8(l.sums + 4*l.nsums)
	l.fix = l.str + nfix
	l.post = l.str + align8(nstr)
	l.ana = l.post + align8(npost)
	l.end = l.ana + align8(nana)
	return l
}

// encodeBase lays out every live memory of ix that has a stamp in snap, with its postings and
// the words of its terms. Caller holds ix.mu (read).
func (ix *Index) encodeBase(snap memdir.Snapshot) []byte {
	// New dense ids: live documents by file, live terms by key.
	var docs []uint32
	for id := range ix.docs {
		if ix.lens[id].alive {
			if _, ok := snap.Stamp(ix.fileOf(uint32(id))); ok {
				docs = append(docs, uint32(id))
			}
		}
	}
	slices.SortFunc(docs, func(a, b uint32) int { return strings.Compare(ix.fileOf(a), ix.fileOf(b)) })
	docID := make([]uint32, len(ix.docs))
	for id := range docID {
		docID[id] = math.MaxUint32
	}
	for i, id := range docs {
		docID[id] = uint32(i)
	}
	var terms []uint32
	for tid := range ix.terms.len() {
		if ix.terms.at(uint32(tid)).df > 0 {
			terms = append(terms, uint32(tid))
		}
	}
	slices.SortFunc(terms, func(a, b uint32) int { return cmp.Compare(ix.terms.at(a).key, ix.terms.at(b).key) })
	// termID: each live term's new id + 1 by old id (0: not saved).
	termID := make([]uint32, ix.terms.len())
	var post []byte // every list, encoded
	postOff := make([]uint32, len(terms))
	postN := make([]uint32, len(terms))
	var ps []posting
	for i, tid := range terms {
		termID[tid] = uint32(i) + 1
		ps = ps[:0]
		for _, p := range ix.postingsOf(tid) {
			if p.doc < uint32(len(docID)) && ix.lens[p.doc].alive && docID[p.doc] != math.MaxUint32 {
				p.doc = docID[p.doc]
				ps = append(ps, p)
			}
		}
		for _, p := range ix.tails[tid] {
			if p.doc < uint32(len(docID)) && ix.lens[p.doc].alive && docID[p.doc] != math.MaxUint32 {
				p.doc = docID[p.doc]
				ps = append(ps, p)
			}
		}
		slices.SortFunc(ps, func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
		postOff[i], postN[i] = uint32(len(post)), uint32(len(ps))
		last := uint32(0)
		for _, p := range ps {
			post = binary.AppendUvarint(post, uint64(p.doc-last))
			last = p.doc
			for _, n := range p.tf {
				post = binary.AppendUvarint(post, uint64(n))
			}
		}
	}
	type word struct {
		w   string
		tid uint32
	}
	var words []word
	ix.words.each(func(w string, tid uint32) {
		if int(tid) < len(termID) && termID[tid] > 0 {
			words = append(words, word{w, termID[tid] - 1})
		}
	})
	slices.SortFunc(words, func(a, b word) int { return cmp.Compare(a.w, b.w) })
	var str []byte
	addStr := func(b []byte, s string) {
		binary.LittleEndian.PutUint32(b, uint32(len(str)))
		binary.LittleEndian.PutUint32(b[4:], uint32(len(s)))
		str = append(str, s...)
	}
	// The files and words first: an open reads every file, and both are in the first part.
	docRecs := make([]byte, docRecLen*len(docs))
	for i, id := range docs {
		addStr(docRecs[i*docRecLen+docFileAt:], ix.fileOf(id))
	}
	wordRecs := make([]byte, wordRecLen*len(words))
	for i, w := range words {
		r := wordRecs[i*wordRecLen:]
		addStr(r, w.w)
		binary.LittleEndian.PutUint32(r[8:], w.tid)
	}
	nfix := len(str)
	room := 0 // the most the analyses can take (see encodeAnalysis): written once, not grown
	for _, id := range docs {
		d := ix.detail(id)
		room += 2*binary.MaxVarintLen64 + 9*len(d.terms) + 3*len(d.lines)
	}
	ana := make([]byte, 0, room)
	local := make([]uint32, len(termID))
	for i, id := range docs {
		d := ix.doc(id)
		r := docRecs[i*docRecLen:]
		for f := range numFields {
			binary.LittleEndian.PutUint32(r[4*f:], math.Float32bits(d.len[f]))
		}
		st, _ := snap.Stamp(d.mem.File)
		m := d.mem
		for j, v := range []uint64{uint64(st.Size), uint64(st.MTime), st.Ino, uint64(m.Size), timeBits(m.ModTime), timeBits(m.Modified)} {
			binary.LittleEndian.PutUint64(r[16+8*j:], v)
		}
		for j, s := range [docStrings]string{m.Name, m.Description, string(m.Type), m.Author, m.Body, "", m.Path, m.Hash} {
			if docTextsAt+8*j != docFileAt {
				addStr(r[docTextsAt+8*j:], s)
			}
		}
		d = ix.detail(id)
		o := len(ana)
		ana = encodeAnalysis(ana, d, termID, local)
		binary.LittleEndian.PutUint32(r[docAnalysisAt:], uint32(o))
		binary.LittleEndian.PutUint32(r[docAnalysisAt+4:], uint32(len(ana)-o))
	}

	l := newLayout(len(terms), len(docs), len(words), len(post), len(str), nfix, len(ana))
	b := make([]byte, l.end)
	copy(b, cacheMagic[:])
	binary.LittleEndian.PutUint32(b[8:], cacheVersion)
	binary.LittleEndian.PutUint64(b[16:], cacheFingerprint())
	total := 0
	for _, n := range postN {
		total += int(n)
	}
	for i, n := range []int{l.nterms, l.ndocs, l.nwords, l.npost, l.nstr, total, l.nfix, l.nana} {
		binary.LittleEndian.PutUint64(b[24+8*i:], uint64(n))
	}
	for i, tid := range terms {
		ti := ix.terms.at(tid)
		binary.LittleEndian.PutUint64(b[l.keys+8*i:], ti.key)
		r := b[l.terms+termRecLen*i:]
		binary.LittleEndian.PutUint32(r, uint32(ti.df))
		binary.LittleEndian.PutUint32(r[4:], uint32(ti.dfName))
		binary.LittleEndian.PutUint32(r[8:], postOff[i])
		binary.LittleEndian.PutUint32(r[12:], postN[i])
	}
	copy(b[l.docs:], docRecs)
	copy(b[l.words:], wordRecs)
	copy(b[l.str:], str)
	copy(b[l.post:], post)
	copy(b[l.ana:], ana)
	seal(b, l)
	return b
}

// seal writes the checksums of base b laid out as l: a CRC per block of the second part, then
// the first part's.
func seal(b []byte, l baseLayout) {
	for i := range l.nsums {
		lo := l.fix + i*blockLen
		binary.LittleEndian.PutUint32(b[l.sums+4*i:], crc32.Checksum(b[lo:min(lo+blockLen, l.end)], crcTable))
	}
	binary.LittleEndian.PutUint32(b[baseSumAt:], baseSum(b, l))
}

// encodeAnalysis appends document d's analysis, its term ids mapped by termID (new id + 1 by
// old id, see encodeBase): uvarints of the number of distinct terms, then each one's id, total
// count and whether it is in the name; then of the number of line entries, then each one: 0 a
// line break, else 1 + the term's place among the distinct terms (local: one or two bytes,
// where an id takes three). local is scratch space by term id, all 0 on return.
func encodeAnalysis(b []byte, d *docInfo, termID, local []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(d.terms)))
	for i, tid := range d.terms {
		named := uint64(0)
		if d.named[i] {
			named = 1
		}
		b = binary.AppendUvarint(b, uint64(termID[tid]-1))
		b = binary.AppendUvarint(b, uint64(d.tfs[i]))
		b = binary.AppendUvarint(b, named)
		local[tid] = uint32(i) + 1
	}
	b = binary.AppendUvarint(b, uint64(len(d.lines)))
	for _, tid := range d.lines {
		if tid == lineBreak {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(local[tid]))
		}
	}
	for _, tid := range d.terms {
		local[tid] = 0
	}
	return b
}

// analysis sets the terms, counts and lines of document i (lazy, filled in from the base) from
// its saved analysis, and reports whether there was a sound one: a block that fails its check
// (the index is then damaged) or a malformed analysis (a bug: the CRC matched) gives false.
func (sd *savedDocs) analysis(i int, d *docInfo) bool {
	r := sd.rec(i)[docAnalysisAt:]
	o, n := int(binary.LittleEndian.Uint32(r)), int(binary.LittleEndian.Uint32(r[4:]))
	if o > len(sd.ana) || n > len(sd.ana)-o || !sd.sums.check(sd.anaAt+o, sd.anaAt+o+n) {
		return false
	}
	b := sd.ana[o : o+n]
	bad := false
	next := func(limit uint64) uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 || v >= limit {
			bad = true
			return 0
		}
		b = b[k:]
		return v
	}
	nt := int(next(uint64(n) + 1))
	terms, tfs, named := make([]uint32, 0, nt), make([]uint16, 0, nt), make([]bool, 0, nt)
	for range nt {
		terms = append(terms, uint32(next(uint64(sd.nterms))))
		tfs = append(tfs, uint16(next(math.MaxUint16+1)))
		named = append(named, next(2) == 1)
	}
	nl := int(next(uint64(n) + 1))
	lines := make([]uint32, 0, nl)
	for range nl {
		if v := next(uint64(len(terms)) + 1); v == 0 {
			lines = append(lines, lineBreak)
		} else {
			lines = append(lines, terms[v-1])
		}
	}
	if bad || len(b) != 0 {
		return false
	}
	d.terms, d.tfs, d.named, d.lines, d.lazy = terms, tfs, named, lines, false
	return true
}

// baseSum is the CRC-32C of a base's first part but for the four bytes that hold it and four
// of padding.
func baseSum(b []byte, l baseLayout) uint32 {
	return crc32.Update(crc32.Checksum(b[:baseSumAt], crcTable), crcTable, b[baseHeaderLen:l.fix])
}

// blockSums checks the second part of a base (see the layout above) a block at a time, the
// first time a part of the block is used; a block that fails marks the index damaged (its
// owner then rebuilds it from the files: see Ranker.refreshFeed).
type blockSums struct {
	data    []byte
	start   int    // where the first block starts in data
	sums    []byte // a u32 per block
	state   []atomic.Uint32
	damaged *atomic.Bool
}

// Block states.
const (
	blockUnchecked = iota
	blockGood
	blockBad
)

// check reports whether data[off:end] is as saved, checking the blocks it spans that were not
// checked yet. Bytes of the first part (checked at open) are taken as they are.
func (bs *blockSums) check(off, end int) bool {
	off = max(off, bs.start)
	if end <= off {
		return true
	}
	if end > len(bs.data) {
		return false // a bug, not damage: the CRC of the first part matched
	}
	for i := (off - bs.start) / blockLen; i <= (end-1-bs.start)/blockLen; i++ {
		switch bs.state[i].Load() {
		case blockGood:
			continue
		case blockBad:
			return false
		}
		lo := bs.start + i*blockLen
		if crc32.Checksum(bs.data[lo:min(lo+blockLen, len(bs.data))], crcTable) != binary.LittleEndian.Uint32(bs.sums[4*i:]) {
			bs.state[i].Store(blockBad)
			bs.damaged.Store(true)
			return false
		}
		bs.state[i].Store(blockGood)
	}
	return true
}

func timeBits(t time.Time) uint64 {
	if t.IsZero() {
		return 1 << 63 // math.MinInt64: no time
	}
	return uint64(t.UnixNano())
}

func bitsTime(v uint64) time.Time {
	if v == 1<<63 {
		return time.Time{}
	}
	return time.Unix(0, int64(v))
}

// parsedBase is a base read from its file, checked but for its CRC, which is computed
// meanwhile (sum): the stamps are what the store's change scan needs, and the scan and the
// CRC then run at the same time.
type parsedBase struct {
	data   []byte
	sum    chan bool // receives whether the CRC matched
	keys   []uint64
	terms  termTable
	packed *packed
	words  savedWords
	docs   *savedDocs
	lens   []docLens
	sums   *blockSums
	sumLen [numFields]float64
	npost  int
}

// parseBase reads a base whose postings, keys and texts are used where they lie in data
// (which must stay unchanged for the life of the index they go into), and starts checking its
// first part's CRC. Before it matched, only the header's counts (checked), the lengths and
// the files and stamps (every text's bounds checked) are read, so a damaged base fails here
// or by its CRC, never by a panic.
func parseBase(data []byte) (*parsedBase, error) {
	if !canMap {
		return nil, fmt.Errorf("%w: this platform's layout differs", errCache)
	}
	if len(data) < baseHeaderLen || [8]byte(data[:8]) != cacheMagic {
		return nil, fmt.Errorf("%w: not a saved index", errCache)
	}
	if binary.LittleEndian.Uint32(data[8:]) != cacheVersion || binary.LittleEndian.Uint64(data[16:]) != cacheFingerprint() {
		return nil, fmt.Errorf("%w: written by another version", errCache)
	}
	var n [8]int
	for i := range n {
		v := binary.LittleEndian.Uint64(data[24+8*i:])
		if v > uint64(len(data)) {
			return nil, fmt.Errorf("%w: bad header", errCache)
		}
		n[i] = int(v)
	}
	if n[6] > n[4] {
		return nil, fmt.Errorf("%w: bad header", errCache)
	}
	l := newLayout(n[0], n[1], n[2], n[3], n[4], n[6], n[7])
	if l.end != len(data) {
		return nil, fmt.Errorf("%w: %d bytes, want %d", errCache, len(data), l.end)
	}
	pb := &parsedBase{data: data, sum: make(chan bool, 1), npost: n[5]}
	go func() { pb.sum <- baseSum(data, l) == binary.LittleEndian.Uint32(data[baseSumAt:]) }()
	if err := pb.parse(l); err != nil {
		<-pb.sum
		return nil, err
	}
	return pb, nil
}

// parse reads the sections of pb.data laid out as l: the documents' lengths; their files and
// stamps are read by the store's scan (savedIndex.stamps), the rest when a document is first
// used (savedDocs.doc).
func (pb *parsedBase) parse(l baseLayout) error {
	data := pb.data
	str := unsafe.String(unsafe.SliceData(data[l.str:]), l.nstr)
	if l.nterms > 0 {
		pb.keys = unsafe.Slice((*uint64)(unsafe.Pointer(&data[l.keys])), l.nterms)
	}
	pb.keys = pb.keys[:l.nterms:l.nterms]
	recs := data[l.terms : l.terms+termRecLen*l.nterms]
	pb.terms = baseTerms(pb.keys, recs)
	pb.sums = &blockSums{data: data, start: l.fix, sums: data[l.sums : l.sums+4*l.nsums]}
	pb.packed = &packed{data: data[l.post : l.post+l.npost], at: l.post, recs: recs, sums: pb.sums}
	pb.words = savedWords{recs: data[l.words : l.words+wordRecLen*l.nwords], str: str, nterms: uint32(l.nterms)}
	pb.docs = &savedDocs{recs: data[l.docs : l.docs+docRecLen*l.ndocs], str: str, at: l.str,
		ana: data[l.ana : l.ana+l.nana], anaAt: l.ana, nterms: l.nterms, sums: pb.sums}
	pb.lens = make([]docLens, l.ndocs, roomy(l.ndocs))
	for i := range pb.lens {
		r := pb.docs.rec(i)
		d := &pb.lens[i]
		for f := range numFields {
			d.len[f] = math.Float32frombits(binary.LittleEndian.Uint32(r[4*f:]))
			if !(d.len[f] >= 0 && d.len[f] <= math.MaxUint32) { // a count of terms; not NaN
				return fmt.Errorf("%w: document %d has a length of %v", errCache, i, d.len[f])
			}
			pb.sumLen[f] += float64(d.len[f])
		}
		d.alive = true
	}
	return nil
}

// linkBase waits for pb's CRC and, if it matched, makes pb the content of the empty index ix.
// Its documents are filled in as they are first used (Index.doc).
func (ix *Index) linkBase(pb *parsedBase) error {
	if !<-pb.sum {
		return fmt.Errorf("%w: checksum mismatch", errCache)
	}
	ix.dict.freezeKeys(pb.keys)
	ix.words.freezeWords(pb.words)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// Memory fresh from the system: pages of documents never used are never touched.
	ix.docs = make([]docInfo, len(pb.lens), cap(pb.lens))
	ix.filled = make([]atomic.Bool, len(pb.lens))
	pb.sums.state = make([]atomic.Uint32, len(pb.sums.sums)/4)
	pb.sums.damaged = &ix.damaged
	ix.saved, ix.byFile.saved = pb.docs, pb.docs
	ix.terms, ix.lens, ix.packed = pb.terms, pb.lens, pb.packed
	ix.live, ix.sumLen, ix.postings = len(pb.lens), pb.sumLen, pb.npost
	ix.changes++
	ix.norm.reset()
	return nil
}

// savedDocs is a base's document table where it lies: records of docRecLen ascending by file
// (see encodeBase), their texts in str. Document i of an index opened from it is record i.
type savedDocs struct {
	recs   []byte
	str    string
	at     int // where str starts in the base
	ana    []byte
	anaAt  int // where ana starts in the base
	nterms int
	sums   *blockSums
}

func (sd *savedDocs) len() int { return len(sd.recs) / docRecLen }

func (sd *savedDocs) rec(i int) []byte { return sd.recs[docRecLen*i : docRecLen*(i+1)] }

// text returns the text a record's {offset, length} at r names, and whether it is in range.
func (sd *savedDocs) text(r []byte) (string, bool) {
	o, n := int(binary.LittleEndian.Uint32(r)), int(binary.LittleEndian.Uint32(r[4:]))
	if o > len(sd.str) || n > len(sd.str)-o {
		return "", false
	}
	return sd.str[o : o+n], true
}

// file returns document i's file.
func (sd *savedDocs) file(i int) string {
	f, _ := sd.text(sd.rec(i)[docFileAt:])
	return f
}

// stamp returns document i's file stamp.
func (sd *savedDocs) stamp(i int) memdir.Stamp {
	r := sd.rec(i)
	u := func(j int) uint64 { return binary.LittleEndian.Uint64(r[16+8*j:]) }
	return memdir.Stamp{Size: int64(u(0)), MTime: int64(u(1)), Ino: u(2)}
}

// find returns the document whose file is file, by binary search.
func (sd *savedDocs) find(file string) (uint32, bool) {
	i := sort.Search(sd.len(), func(m int) bool { return sd.file(m) >= file })
	if i < sd.len() && sd.file(i) == file {
		return uint32(i), true
	}
	return 0, false
}

// doc returns document i as an index holds it, its terms not analysed yet (lazy). A text out
// of range (the CRC matched, so that is a bug, not damage) reads as "", and so does every
// text but the file of a document whose texts fail their blocks' check (the index is then
// damaged and rebuilt before a search's results are given).
func (sd *savedDocs) doc(i int) docInfo {
	r := sd.rec(i)
	var d docInfo
	for f := range numFields {
		d.len[f] = math.Float32frombits(binary.LittleEndian.Uint32(r[4*f:]))
	}
	u := func(j int) uint64 { return binary.LittleEndian.Uint64(r[16+8*j:]) }
	var s [docStrings]string
	lo, hi := len(sd.str), 0
	for j := range s {
		s[j], _ = sd.text(r[docTextsAt+8*j:])
		if docTextsAt+8*j != docFileAt && s[j] != "" {
			o := int(binary.LittleEndian.Uint32(r[docTextsAt+8*j:]))
			lo, hi = min(lo, o), max(hi, o+len(s[j]))
		}
	}
	if lo < hi && !sd.sums.check(sd.at+lo, sd.at+hi) {
		s, d.damaged = [docStrings]string{5: s[5]}, true
	}
	d.mem = memdir.Memory{Name: s[0], Description: s[1], Type: memdir.Type(s[2]), Author: s[3], Body: s[4],
		File: s[5], Path: s[6], Hash: s[7], Size: int64(u(3)), ModTime: bitsTime(u(4)), Modified: bitsTime(u(5))}
	d.lazy = true
	return d
}

// packed holds the posting lists of a saved base where they lie: term i's record in recs
// (see encodeBase) gives where its list starts in data and how many postings it has. A search
// decodes a list the first time it needs it; a term whose post is still nil is not decoded.
type packed struct {
	data []byte
	at   int // where data starts in the base
	recs []byte
	sums *blockSums
}

// list returns the encoded postings of term tid and their number: from its record's offset to
// the next term's (or the end), empty if the record is out of range (the CRC matched, so that
// is a bug, not damage) or fails its blocks' check (the index is then damaged).
func (pk *packed) list(tid uint32) ([]byte, int) {
	r := pk.recs[termRecLen*int(tid):]
	off, n := int(binary.LittleEndian.Uint32(r[8:])), int(binary.LittleEndian.Uint32(r[12:]))
	end := len(pk.data)
	if next := termRecLen * (int(tid) + 1); next < len(pk.recs) {
		end = int(binary.LittleEndian.Uint32(pk.recs[next+8:]))
	}
	if off > end || end > len(pk.data) || !pk.sums.check(pk.at+off, pk.at+end) {
		return nil, 0
	}
	return pk.data[off:end], n
}

// postingsOf returns the postings of term tid in its array (its tail aside), decoding them
// from the saved base first if need be. Searches call it under the read lock; lazyMu makes
// the decoding safe.
func (ix *Index) postingsOf(tid uint32) []posting {
	pk := ix.packed
	if pk == nil || int(tid) >= len(pk.recs)/termRecLen {
		return ix.terms.at(tid).post
	}
	ix.lazyMu.Lock()
	defer ix.lazyMu.Unlock()
	ti := ix.terms.at(tid)
	if ti.post == nil {
		b, n := pk.list(tid)
		ti.post = decodePostings(b, n, len(ix.docs))
	}
	return ti.post
}

// savedWords is a base's word list where it lies: records of {offset, length, term id} into
// str, ascending by word (see encodeBase).
type savedWords struct {
	recs   []byte
	str    string
	nterms uint32
}

func (w savedWords) len() int { return len(w.recs) / wordRecLen }

// at returns the i-th word and its term id; a record out of range (the CRC matched, so that is
// a bug, not damage) gives "" and term 0.
func (w savedWords) at(i int) (string, uint32) {
	r := w.recs[wordRecLen*i:]
	o, n, id := int(binary.LittleEndian.Uint32(r)), int(binary.LittleEndian.Uint32(r[4:])), binary.LittleEndian.Uint32(r[8:])
	if o > len(w.str) || n > len(w.str)-o || id >= w.nterms {
		return "", 0
	}
	return w.str[o : o+n], id
}

// find returns the term id of word s, by binary search.
func (w savedWords) find(s string) (uint32, bool) {
	i := sort.Search(w.len(), func(m int) bool { ws, _ := w.at(m); return ws >= s })
	if i < w.len() {
		if ws, id := w.at(i); ws == s {
			return id, true
		}
	}
	return 0, false
}

// decodePostings decodes n postings (see encodeBase), stopping at the first that is malformed
// or names no document (the base's CRC matched, so that is a bug, not damage). No more room is
// made than b can hold (a posting takes a byte per number at least), whatever n says.
func decodePostings(b []byte, n, docs int) []posting {
	out := make([]posting, 0, min(n, len(b)/(1+numFields)))
	doc := uint64(0)
	for range n {
		var v [1 + numFields]uint64
		for j := range v {
			x, k := binary.Uvarint(b)
			if k <= 0 {
				return out
			}
			v[j], b = x, b[k:]
		}
		doc += v[0]
		if doc >= uint64(docs) || v[1] > math.MaxUint16 || v[2] > math.MaxUint16 || v[3] > math.MaxUint16 {
			return out
		}
		out = append(out, posting{doc: uint32(doc), tf: [numFields]uint16{uint16(v[1]), uint16(v[2]), uint16(v[3])}})
	}
	return out
}
