package recall

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/memdir"
)

// coldTestMemories mixes the synthetic English and Chinese memories with hand-made ones: a
// repeated file (the last one wins), an empty memory, Japanese, full-width and mixed text.
func coldTestMemories(t *testing.T) []memdir.Memory {
	t.Helper()
	dir := t.TempDir()
	if err := synth.Memories(dir, 300, 7); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	infos, err := DirSource{Dir: dir}.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ms []memdir.Memory
	for _, fi := range infos {
		m, _, err := DirSource{Dir: dir}.Load(ctx, fi.File)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return append(ms,
		mem("dup.md", "first", "the first version", "replaced later"),
		mem("empty.md", "", "", ""),
		mem("jp.md", "デプロイ", "金曜日にはデプロイしない", "本番環境が壊れたことがある。\nＴＡＢＳ and Straße"),
		mem("dup.md", "second", "the second version", "项目使用PostgreSQL数据库\n\ndon't deploy on Fridays"),
		mem("long.md", "long", strings.Repeat("deploy ", 5000), strings.Repeat("数据", 3000)),
	)
}

// indexState is what an index holds, without the dictionaries' hashes (seeded per index).
func indexState(ix *Index) map[string]any {
	words := map[string]uint32{}
	ix.words.each(func(s string, id uint32) { words[s] = id })
	docs := make([]docInfo, len(ix.docs))
	for i, d := range ix.docs {
		d.mem.Path = ""        // not part of the comparison
		if len(d.terms) == 0 { // nil or empty alike
			d.terms, d.tfs, d.named = nil, nil, nil
		}
		docs[i] = d
	}
	// A term's postings are its array then its tail, wherever the index keeps them.
	terms := make([]termInfo, len(ix.terms))
	for id, ti := range ix.terms {
		ti.post = append(slices.Clip(ti.post), ix.tails[uint32(id)]...)
		terms[id] = ti
	}
	return map[string]any{
		"terms": terms, "docs": docs, "lens": ix.lens, "byFile": ix.byFile, "live": ix.live,
		"dead": ix.dead, "sumLen": ix.sumLen, "postings": ix.postings, "next": ix.dict.next.Load(),
		"dictLen": ix.dict.len(), "words": words,
	}
}

// TestColdBuildMatchesPut checks that a cold build, with any number of goroutines, builds the
// very index that putting the memories one by one in order builds (same term ids, postings,
// lengths, lines and words), and that the fallback for an index no longer empty does too.
func TestColdBuildMatchesPut(t *testing.T) {
	ms := coldTestMemories(t)
	want := NewIndex(DefaultParams())
	for _, m := range ms {
		want.Put(m)
	}
	for _, workers := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			ix := NewIndex(DefaultParams())
			if !ix.coldReady() {
				t.Fatal("a new index is not ready for a cold build")
			}
			ix.bulkLinkCold(coldShards(ix, ms, workers))
			// Put leaves the replaced dup.md behind as a dead document (and its terms in
			// the dictionary), which a cold build never links: compare what searches see.
			compareSearches(t, want, ix)
			if ix.coldReady() {
				t.Error("a built index is still ready for a cold build")
			}
		})
	}
	t.Run("fallback", func(t *testing.T) {
		ix := NewIndex(DefaultParams())
		ix.mu.Lock()
		ix.linkWarm(coldShards(ix, ms, 3))
		ix.mu.Unlock()
		if diff := diffState(indexState(want), indexState(ix)); diff != "" {
			t.Error(diff)
		}
	})
}

// coldShards analyses ms for a cold build in n shards of consecutive memories, as many
// goroutines would (the last shards may be empty when n > len(ms)).
func coldShards(ix *Index, ms []memdir.Memory, n int) []*coldShard {
	shards := make([]*coldShard, n)
	for w := range n {
		shards[w] = ix.newColdShard()
		for _, m := range ms[len(ms)*w/n : len(ms)*(w+1)/n] {
			shards[w].add(m)
		}
	}
	return shards
}

// compareSearches checks two indexes give the same hits with the same scores.
func compareSearches(t *testing.T, want, got *Index) {
	t.Helper()
	qs := append(synth.Queries(200, 3), "deploy on friday", "数据库", "デプロイ", "straße tabs", "second version")
	for _, q := range qs {
		w, g := want.Search(q, 10), got.Search(q, 10)
		if !reflect.DeepEqual(w, g) {
			t.Errorf("Search(%q) = %v, want %v", q, hitsString(g), hitsString(w))
		}
	}
}

func hitsString(hs []Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s=%g ", h.Memory.File, h.Score)
	}
	return b.String()
}

func diffState(want, got map[string]any) string {
	var out []string
	for k, w := range want {
		if !reflect.DeepEqual(w, got[k]) {
			out = append(out, fmt.Sprintf("%s differs", k))
		}
	}
	return strings.Join(out, ", ")
}

// TestColdBuildState compares the whole state of a cold-built index with one built by Put,
// for a store without repeated files (where Put leaves no dead documents behind).
func TestColdBuildState(t *testing.T) {
	ms := coldTestMemories(t)
	ms = slicesDeleteFile(ms, "dup.md", 1)
	want := NewIndex(DefaultParams())
	for _, m := range ms {
		want.Put(m)
	}
	for _, workers := range []int{1, 2, 5} {
		ix := NewIndex(DefaultParams())
		ix.bulkLinkCold(coldShards(ix, ms, workers))
		if diff := diffState(indexState(want), indexState(ix)); diff != "" {
			t.Errorf("workers=%d: %s", workers, diff)
		}
		compareSearches(t, want, ix)
	}
}

// slicesDeleteFile drops the first n memories stored under file.
func slicesDeleteFile(ms []memdir.Memory, file string, n int) []memdir.Memory {
	out := ms[:0:0]
	for _, m := range ms {
		if m.File == file && n > 0 {
			n--
			continue
		}
		out = append(out, m)
	}
	return out
}
