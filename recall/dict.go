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
type dict struct {
	seed   maphash.Seed
	next   atomic.Uint32
	shards [dictShards]dictShard
}

const dictShards = 64

type dictShard struct {
	mu sync.RWMutex
	m  map[string]uint32
	_  [32]byte // keep shards on separate cache lines
}

func newDict() *dict {
	d := &dict{seed: maphash.MakeSeed()}
	for i := range d.shards {
		d.shards[i].m = map[string]uint32{}
	}
	return d
}

func (d *dict) shard(s string) *dictShard {
	return &d.shards[maphash.String(d.seed, s)%dictShards]
}

// lookup returns the id of s, if s was interned.
func (d *dict) lookup(s string) (uint32, bool) {
	sh := d.shard(s)
	sh.mu.RLock()
	id, ok := sh.m[s]
	sh.mu.RUnlock()
	return id, ok
}

// intern returns the id of s, assigning the next free one when s is new.
func (d *dict) intern(s string) uint32 {
	sh := d.shard(s)
	sh.mu.RLock()
	id, ok := sh.m[s]
	sh.mu.RUnlock()
	if ok {
		return id
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.m[s]; ok {
		return id
	}
	id = d.next.Add(1) - 1
	sh.m[strings.Clone(s)] = id // never pin the text s was cut from
	return id
}

// putIfAbsent maps s to id unless s is mapped already.
func (d *dict) putIfAbsent(s string, id uint32) {
	sh := d.shard(s)
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
		n += len(sh.m)
		sh.mu.RUnlock()
	}
	return n
}

// each calls f for every entry, one shard at a time (under that shard's read lock).
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
