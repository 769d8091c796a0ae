package recall

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
)

// FuzzSavedBase opens a saved index whose bytes were flipped at the places the input names,
// then searches it. With reseal the checksums are computed again over the flipped bytes, as a
// bug in the writer or a hostile file would leave them: the open trusts what it reads, and a
// malformed record must still give an error or a wrong answer, never a panic or a hang.
func FuzzSavedBase(f *testing.F) {
	dir, cache := f.TempDir(), filepath.Join(f.TempDir(), "x.idx")
	if err := synth.Memories(dir, 40, 5); err != nil {
		f.Fatal(err)
	}
	storeRanker(f, dir, cache)
	good, err := os.ReadFile(cache)
	if err != nil {
		f.Fatal(err)
	}
	l := headerLayout(good)
	for _, at := range []int{30, 60, l.docs + 20, l.words + 3, l.fix + 1, l.post + 2, l.ana + 1, len(good) - 2} {
		for _, reseal := range []bool{false, true} {
			f.Add(binary.LittleEndian.AppendUint32(nil, uint32(at)<<8|0x41), reseal)
		}
	}
	f.Fuzz(func(t *testing.T, edits []byte, reseal bool) {
		path := filepath.Join(t.TempDir(), "base.idx") // a new file: the last one may still be mapped
		b := slices.Clone(good)
		for i := 0; i+4 <= len(edits); i += 4 {
			e := binary.LittleEndian.Uint32(edits[i:])
			b[int(e>>8)%len(b)] ^= byte(e) | 1
		}
		if l := headerLayout(b); reseal && l.end == len(b) && l.fix <= l.end && l.sums+4*l.nsums <= l.str {
			seal(b, l)
		}
		searchSaved(t, path, b)
	})
}

// searchSaved writes base b at path, opens it and, if it opens, runs every query of
// cacheQueries on it; it reports whether it opened.
func searchSaved(t *testing.T, path string, b []byte) bool {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	si, err := readSaved(path)
	if err != nil {
		return false
	}
	ix := NewIndex(DefaultParams())
	if ix.open(si) != nil {
		return false
	}
	for _, q := range cacheQueries() {
		ix.Search(q, 5)
	}
	ix.Memories()
	return true
}

// TestSavedBaseMalformed: a base whose checksums match but whose records do not hold what the
// writer writes is refused or searched without harm: a document length that is no count, a
// term whose posting count is past anything its list could hold, every saved analysis
// garbled (the memories are analysed again).
func TestSavedBaseMalformed(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 40, 5); err != nil {
		t.Fatal(err)
	}
	storeRanker(t, dir, cache)
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	l := headerLayout(good)
	edit := func(f func(b []byte)) []byte {
		b := slices.Clone(good)
		f(b)
		seal(b, l)
		return b
	}
	for _, bits := range []uint32{math.Float32bits(-1), math.Float32bits(float32(math.NaN())), math.Float32bits(float32(math.Inf(1)))} {
		b := edit(func(b []byte) { binary.LittleEndian.PutUint32(b[l.docs:], bits) })
		if searchSaved(t, filepath.Join(t.TempDir(), "b.idx"), b) {
			t.Errorf("a base with a document length of %v opened", math.Float32frombits(bits))
		}
	}
	if !searchSaved(t, filepath.Join(t.TempDir(), "ok.idx"), good) {
		t.Fatal("the base as saved does not open")
	}
	b := edit(func(b []byte) {
		for tid := range l.nterms { // a term's record: df, df in names, offset and count of its postings
			binary.LittleEndian.PutUint32(b[l.terms+termRecLen*tid+12:], 0x7fffff00)
		}
	})
	searchSaved(t, filepath.Join(t.TempDir(), "p.idx"), b)
	b = edit(func(b []byte) {
		for i := l.ana; i < l.end; i++ {
			b[i] = 0xff
		}
	})
	if !searchSaved(t, filepath.Join(t.TempDir(), "a.idx"), b) {
		t.Error("a base with garbled analyses does not open")
	}
}

func TestDecodePostingsRoom(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if got := decodePostings(b, 1<<40, 100); cap(got) > len(b) {
		t.Errorf("room for %d postings made from %d bytes", cap(got), len(b))
	}
}

// TestKeepKnown: a memory analysed during a search keeps only the terms the table has.
func TestKeepKnown(t *testing.T) {
	a := analysed{tids: []uint32{4, 9, 2}, tf: [][numFields]uint16{{1}, {2}, {3}}, lines: []uint32{4, 9, lineBreak, 2, 9}}
	a.keepKnown(5)
	want := analysed{tids: []uint32{4, 2}, tf: [][numFields]uint16{{1}, {3}}, lines: []uint32{4, lineBreak, 2}}
	if !slices.Equal(a.tids, want.tids) || !slices.Equal(a.tf, want.tf) || !slices.Equal(a.lines, want.lines) {
		t.Errorf("keepKnown(5) = %v %v %v, want %v %v %v", a.tids, a.tf, a.lines, want.tids, want.tf, want.lines)
	}
}

// headerLayout is the layout a base's header gives, unchecked (zero when it is too short).
func headerLayout(b []byte) baseLayout {
	if len(b) < baseHeaderLen {
		return baseLayout{}
	}
	var n [8]int
	for i := range n {
		n[i] = int(min(binary.LittleEndian.Uint64(b[24+8*i:]), uint64(len(b))))
	}
	return newLayout(n[0], n[1], n[2], n[3], n[4], n[6], n[7])
}
