package recall

import "sync"

// docNorm is a document's BM25 length normalisation per field (see lengthNorm), for the
// average lengths it was computed at.
type docNorm struct {
	norm  [numFields]float64
	alive bool
}

// lengthNorm is BM25's length normalisation of a field of n terms, where the field's average
// length is avg and b its B: 1 − b + b·n/avg. Every table entry is computed by it, so a table
// kept up to date change by change holds the very bits a table computed afresh would.
func lengthNorm(b float64, n float32, avg float64) float64 {
	return 1 - b + b*float64(n)/avg
}

// normTable is every document's length normalisation for the index's current average field
// lengths (see Index.norms), kept up to date change by change: a change moves the averages,
// and so every document's normalisation, but the memories of a store have only a few hundred
// distinct lengths, so a memo by length (byLen) turns one division per document and field
// into one per distinct length; a field whose average did not move is left as it is, and
// only the documents linked or unlinked since (dirty) are computed again.
type normTable struct {
	mu    sync.Mutex           // guards the table, brought up to date under the index's read lock
	docs  []docNorm            // by doc id
	of    uint64               // Index.changes+1 when docs was brought up to date; 0: never
	avg   [numFields]float64   // the average lengths docs holds
	byLen [numFields][]float64 // by length, lengthNorm at avg; 0: not computed yet
	dirty []uint32             // doc ids linked or unlinked since, unless all
	all   bool                 // every document must be computed again
}

// normMemoMax bounds a normTable's memo: longer fields are computed directly.
const normMemoMax = 1 << 12

// touch notes that document id changed. Writers call it under the index's write lock, so no
// reader is bringing the table up to date meanwhile. docs is the number of documents.
func (t *normTable) touch(id uint32, docs int) {
	if t.all {
		return
	}
	if len(t.dirty) > docs/4+64 { // computing them all is as cheap by now
		t.all, t.dirty = true, t.dirty[:0]
		return
	}
	t.dirty = append(t.dirty, id)
}

// reset marks every document changed (a bulk build).
func (t *normTable) reset() { t.all, t.dirty = true, t.dirty[:0] }

// norms returns every document's length normalisation for the index's current average field
// lengths (the scoring loop then divides once per field instead of working the normalisation
// out for each posting), bringing the table up to date first when a memory was linked or
// unlinked since the last search (see normTable). Caller holds ix.mu (read or write); while it
// does, nothing is linked, so the slice stays valid.
func (ix *Index) norms() []docNorm {
	n := float64(ix.live)
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = ix.sumLen[f] / n
		if avg[f] <= 0 {
			avg[f] = 1
		}
	}
	t := &ix.norm
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.of == ix.changes+1 {
		return t.docs
	}
	p := ix.params
	all := t.of == 0 || t.all
	if cap(t.docs) < len(ix.lens) {
		docs := make([]docNorm, len(ix.lens), len(ix.lens)+len(ix.lens)/4)
		copy(docs, t.docs)
		t.docs = docs
	}
	// Documents added since are dirty (or all is set): nothing stale shows through.
	t.docs = t.docs[:len(ix.lens)]
	var moved [numFields]bool // fields to compute for every document
	anyMoved := false
	for f := range numFields {
		moved[f] = all || avg[f] != t.avg[f]
		if moved[f] {
			t.memoFor(f, avg[f])
			anyMoved = true
		}
	}
	if anyMoved {
		for i := range ix.lens {
			d, nd := &ix.lens[i], &t.docs[i]
			nd.alive = d.alive
			for f := range numFields {
				if moved[f] {
					nd.norm[f] = t.normOf(f, p.B[f], d.len[f], avg[f])
				}
			}
		}
	}
	if !all {
		for _, id := range t.dirty {
			d, nd := &ix.lens[id], &t.docs[id]
			nd.alive = d.alive
			for f := range numFields {
				nd.norm[f] = t.normOf(f, p.B[f], d.len[f], avg[f])
			}
		}
	}
	t.avg, t.all, t.dirty = avg, false, t.dirty[:0]
	t.of = ix.changes + 1
	return t.docs
}

// memoFor empties field f's memo if it was for another average.
func (t *normTable) memoFor(f int, avg float64) {
	if avg != t.avg[f] || t.of == 0 {
		clear(t.byLen[f])
	}
}

// normOf returns lengthNorm for field f of n terms, from the memo when it can.
func (t *normTable) normOf(f int, b float64, n float32, avg float64) float64 {
	i := int(n)
	if i >= normMemoMax {
		return lengthNorm(b, n, avg)
	}
	m := t.byLen[f]
	if i >= len(m) {
		m = append(m, make([]float64, i+1-len(m))...)
		t.byLen[f] = m
	}
	if v := m[i]; v != 0 {
		return v
	}
	v := lengthNorm(b, n, avg)
	m[i] = v
	return v
}
