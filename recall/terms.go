package recall

import (
	"encoding/binary"
	"sync/atomic"
)

// termTable holds each term's termInfo by id, in chunks of termChunk. An index opened from a
// saved base has hundreds of thousands of terms and a search reads a few hundred: a chunk of
// base terms is filled in from the base's records (key, df, dfName; postings decoded later by
// Index.postingsOf) the first time one of its terms is read, so opening costs nothing per term.
// Chunks are filled under the read lock by concurrent searches, hence the atomic pointers;
// the table grows and its infos change only under the write lock.
type termTable struct {
	chunks []atomic.Pointer[termChunkArr]
	n      int
	keys   []uint64 // the base's keys, term i having id i
	recs   []byte   // the base's term records (see encodeBase)
}

const termChunk = 64

type termChunkArr [termChunk]termInfo

// baseTerms is the table of a base's nterms terms, none filled in yet.
func baseTerms(keys []uint64, recs []byte) termTable {
	t := termTable{keys: keys, recs: recs}
	t.grow(len(keys))
	return t
}

// len is the number of term ids the table covers.
func (t *termTable) len() int { return t.n }

// at returns term tid's info, which stays where it is for the table's life.
func (t *termTable) at(tid uint32) *termInfo {
	c := &t.chunks[tid/termChunk]
	a := c.Load()
	if a == nil {
		a = t.fill(c, tid/termChunk)
	}
	return &a[tid%termChunk]
}

// df and key return term tid's document frequency and key without filling its chunk in: a
// search weighs every term of the memories it looks at and uses few of them. A chunk not
// filled in was never changed, so its base records are current.
func (t *termTable) df(tid uint32) int32 {
	if int(tid) >= len(t.keys) || t.chunks[tid/termChunk].Load() != nil {
		return t.at(tid).df
	}
	return int32(binary.LittleEndian.Uint32(t.recs[termRecLen*int(tid):]))
}

func (t *termTable) key(tid uint32) uint64 {
	if int(tid) >= len(t.keys) || t.chunks[tid/termChunk].Load() != nil {
		return t.at(tid).key
	}
	return t.keys[tid]
}

// fill makes chunk k from the base's records, unless a concurrent search made it first.
func (t *termTable) fill(c *atomic.Pointer[termChunkArr], k uint32) *termChunkArr {
	a := new(termChunkArr)
	for i := range a {
		id := int(k)*termChunk + i
		if id >= len(t.keys) {
			break
		}
		r := t.recs[termRecLen*id:]
		a[i] = termInfo{key: t.keys[id], df: int32(binary.LittleEndian.Uint32(r)), dfName: int32(binary.LittleEndian.Uint32(r[4:]))}
	}
	if c.CompareAndSwap(nil, a) {
		return a
	}
	return c.Load()
}

// grow extends the table to n ids; the new ids past the base are empty terms.
func (t *termTable) grow(n int) {
	if n <= t.n {
		return
	}
	need := (n + termChunk - 1) / termChunk
	if need <= cap(t.chunks) {
		t.chunks = t.chunks[:need]
	} else if need > len(t.chunks) {
		chunks := make([]atomic.Pointer[termChunkArr], need, roomy(need))
		for i := range t.chunks {
			chunks[i].Store(t.chunks[i].Load())
		}
		t.chunks = chunks
	}
	// Chunks wholly past the base are allocated together; base chunks wait for their first read.
	first := (len(t.keys) + termChunk - 1) / termChunk
	var fresh []termChunkArr
	for k := max(first, (t.n+termChunk-1)/termChunk); k < need; k++ {
		if t.chunks[k].Load() != nil {
			continue
		}
		if fresh == nil {
			fresh = make([]termChunkArr, need-k)
		}
		t.chunks[k].Store(&fresh[0])
		fresh = fresh[1:]
	}
	t.n = n
}
