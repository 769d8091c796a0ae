package recall

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// dict interns strings as dense ids. It is sharded so that the goroutines analysing memories
// in parallel can intern terms at the same time; ids are never reused and entries never
// removed (a term whose memories are gone keeps its id with a document frequency of 0).
//
// A dict made by newHashDict keys its entries by a 64-bit hash of the string (termKey) instead of
// the string itself: one cache line per lookup instead of two, and no string kept. Two terms
// collide (and would share a posting list) with a probability of about n²/2⁶⁵ — under one in
// a million for a million distinct terms — so the term dictionary uses it; the word list,
// which must give its strings back, does not.
type dict struct {
	seed   maphash.Seed
	next   atomic.Uint32
	hashed bool
	shards [dictShards]dictShard

	keyMu sync.RWMutex
	keys  []uint64 // by id: the termKey of each interned string (0 until intern stores it)

	// The frozen layer of an index opened from a saved one (see freeze): looked up by binary
	// search where it lies, never copied into the shards. A hashed dict's baseKeys are the
	// saved terms' keys in order, term i having id i; a word dict's baseWords are the saved
	// words in order, with their term ids.
	baseKeys  []uint64
	baseWords savedWords
}

const dictShards = 64

type dictShard struct {
	mu sync.RWMutex
	m  map[string]uint32
	h  map[uint64]uint32 // instead of m in a hashed dict
	_  [24]byte          // keep shards on separate cache lines
}

func newDict() *dict {
	d := &dict{seed: maphash.MakeSeed()}
	for i := range d.shards {
		d.shards[i].m = map[string]uint32{}
	}
	return d
}

func newHashDict() *dict {
	d := &dict{seed: maphash.MakeSeed(), hashed: true}
	for i := range d.shards {
		d.shards[i].h = map[uint64]uint32{}
	}
	return d
}

// hash is the key of s in d's shards: a hashed dict uses the string's termKey, which is the
// same in every process, so an index saved to disk can be interned again by key alone
// (internKey) without its terms' text.
func (d *dict) hash(s string) uint64 {
	if d.hashed {
		return termKey(s)
	}
	return maphash.String(d.seed, s)
}

// base returns the id of s (of key, in a hashed dict) in the frozen layer.
func (d *dict) base(s string, key uint64) (uint32, bool) {
	if d.hashed {
		i, ok := slices.BinarySearch(d.baseKeys, key)
		return uint32(i), ok
	}
	return d.baseWords.find(s)
}

// lookup returns the id of s, if s was interned.
func (d *dict) lookup(s string) (uint32, bool) {
	hs := d.hash(s)
	if id, ok := d.base(s, hs); ok {
		return id, true
	}
	sh := &d.shards[hs%dictShards]
	sh.mu.RLock()
	var id uint32
	var ok bool
	if d.hashed {
		id, ok = sh.h[hs]
	} else {
		id, ok = sh.m[s]
	}
	sh.mu.RUnlock()
	return id, ok
}

// intern returns the id of s, assigning the next free one (and recording s's termKey) when
// s is new.
func (d *dict) intern(s string) uint32 {
	if id, ok := d.lookup(s); ok {
		return id
	}
	hs := d.hash(s)
	sh := &d.shards[hs%dictShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if d.hashed {
		if id, ok := sh.h[hs]; ok {
			return id
		}
	} else if id, ok := sh.m[s]; ok {
		return id
	}
	id := d.next.Add(1) - 1
	if d.hashed {
		sh.h[hs] = id
	} else {
		sh.m[strings.Clone(s)] = id // never pin the text s was cut from
	}
	d.setKey(id, termKey(s))
	return id
}

// internKey is intern for a hashed dict given the term's termKey instead of its text.
func (d *dict) internKey(key uint64) uint32 {
	if id, ok := d.base("", key); ok {
		return id
	}
	sh := &d.shards[key%dictShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.h[key]; ok {
		return id
	}
	id := d.next.Add(1) - 1
	sh.h[key] = id
	d.setKey(id, key)
	return id
}

// setKey records the termKey of id.
func (d *dict) setKey(id uint32, key uint64) {
	d.keyMu.Lock()
	if n := int(id) + 1; n > len(d.keys) {
		d.keys = append(d.keys, make([]uint64, max(n-len(d.keys), len(d.keys)/4))...)
	}
	d.keys[id] = key
	d.keyMu.Unlock()
}

// putIfAbsent maps s to id unless s is mapped already (a dict made by newDict only).
func (d *dict) putIfAbsent(s string, id uint32) {
	if _, ok := d.base(s, 0); ok {
		return
	}
	sh := &d.shards[maphash.String(d.seed, s)%dictShards]
	sh.mu.RLock()
	_, ok := sh.m[s]
	sh.mu.RUnlock()
	if ok {
		return
	}
	sh.mu.Lock()
	if _, ok := sh.m[s]; !ok {
		sh.m[strings.Clone(s)] = id
	}
	sh.mu.Unlock()
}

// len returns the number of entries.
func (d *dict) len() int {
	n := len(d.baseKeys) + d.baseWords.len()
	for i := range d.shards {
		sh := &d.shards[i]
		sh.mu.RLock()
		n += len(sh.m) + len(sh.h)
		sh.mu.RUnlock()
	}
	return n
}

// each calls f for every entry, one shard at a time (under that shard's read lock). A hashed
// dict has no strings to give.
func (d *dict) each(f func(s string, id uint32)) {
	for i := range d.baseWords.len() {
		f(d.baseWords.at(i))
	}
	for i := range d.shards {
		sh := &d.shards[i]
		sh.mu.RLock()
		for s, id := range sh.m {
			f(s, id)
		}
		sh.mu.RUnlock()
	}
}

// freezeKeys makes keys, sorted, the frozen layer of an empty hashed dict: term i has id i.
func (d *dict) freezeKeys(keys []uint64) {
	d.baseKeys, d.keys = keys, keys // keys grows by copying, never written in place
	d.next.Store(uint32(len(keys)))
}

// freezeWords makes words the frozen layer of an empty word dict.
func (d *dict) freezeWords(words savedWords) {
	d.baseWords = words
}
