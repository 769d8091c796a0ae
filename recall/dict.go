package recall

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// dict interns strings as dense ids. It is sharded so that the goroutines analysing memories
// in parallel can intern terms at the same time; ids are never reused and entries never
// removed (a term whose memories are gone keeps its id with a document frequency of 0).
//
// A dict made by newHashDict keys its entries by a 64-bit seeded hash of the string instead of
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

// lookup returns the id of s, if s was interned.
func (d *dict) lookup(s string) (uint32, bool) {
	hs := maphash.String(d.seed, s)
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
	hs := maphash.String(d.seed, s)
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
	d.keyMu.Lock()
	if n := int(id) + 1; n > len(d.keys) {
		d.keys = append(d.keys, make([]uint64, max(n-len(d.keys), len(d.keys)/4))...)
	}
	d.keys[id] = termKey(s)
	d.keyMu.Unlock()
	return id
}

// putIfAbsent maps s to id unless s is mapped already (a dict made by newDict only).
func (d *dict) putIfAbsent(s string, id uint32) {
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
	n := 0
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
	for i := range d.shards {
		sh := &d.shards[i]
		sh.mu.RLock()
		for s, id := range sh.m {
			f(s, id)
		}
		sh.mu.RUnlock()
	}
}
