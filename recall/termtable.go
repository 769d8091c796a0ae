package recall

// termTable maps term hashes (seeded maphash values, so uniformly spread already) to numbers:
// an open-addressing table with linear probing, indexed by the hash's low bits. A cold build
// asks one for every term of every memory; Go's map would hash the hash again, grow in many
// small tables and be cleared slot by slot for each memory, where reset here is one
// increment.
type termTable struct {
	slots []termSlot
	n     int    // entries of the current generation
	gen   uint32 // slots of another generation are empty
}

type termSlot struct {
	hash uint64
	gen  uint32
	val  uint32
}

// termTableMin is the least number of slots a termTable has.
const termTableMin = 1 << 10

// reset empties the table, keeping its slots.
func (t *termTable) reset() {
	t.n = 0
	t.gen++
	if t.gen == 0 { // wrapped: old generations would look current again
		clear(t.slots)
		t.gen = 1
	}
}

// get returns the value stored under hash; if there is none, it stores next and returns it
// with false.
func (t *termTable) get(hash uint64, next uint32) (uint32, bool) {
	if t.gen == 0 {
		t.gen = 1
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := int(hash) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			*s = termSlot{hash: hash, gen: t.gen, val: next}
			t.n++
			return next, false
		}
		if s.hash == hash {
			return s.val, true
		}
	}
}

// find returns the value stored under hash, if any.
func (t *termTable) find(hash uint64) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := int(hash) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			return 0, false
		}
		if s.hash == hash {
			return s.val, true
		}
	}
}

// touch reads the first slot of each hash and returns a value that depends on them all, so
// that a caller can load many slots at once (without waiting for each) before get or find.
func (t *termTable) touch(hashes []uint64) uint32 {
	if len(t.slots) == 0 {
		return 0
	}
	mask := len(t.slots) - 1
	var x uint32
	for _, h := range hashes {
		x += t.slots[int(h)&mask].gen
	}
	return x
}

// grow doubles the table (or makes its first slots), keeping the current entries.
func (t *termTable) grow() {
	old := t.slots
	t.slots = make([]termSlot, max(termTableMin, 2*len(old)))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.gen != t.gen {
			continue
		}
		i := int(s.hash) & mask
		for t.slots[i].gen == t.gen {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
