package recall

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/memdir"
)

// storeRanker opens a store ranker over dir, saving its index at cache ("" for none), and
// refreshes it once.
func storeRanker(t testing.TB, dir, cache string) *Ranker {
	t.Helper()
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewStoreRanker(s, RankerOptions{Cache: cache})
	if _, _, err := r.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	return r
}

// ranked is every query's top ten as "file score" lines.
func ranked(r *Ranker, queries []string) []string {
	var out []string
	for _, q := range queries {
		var b strings.Builder
		fmt.Fprintf(&b, "%s:", q)
		for _, h := range r.Search(q, 10) {
			fmt.Fprintf(&b, " %s %.12g", h.Memory.File, h.Score)
		}
		out = append(out, b.String())
	}
	return out
}

// cacheQueries are synthetic queries (English and Chinese), their words misspelt, cut to a
// prefix and run together, so spelling correction and compounds read the saved word list.
func cacheQueries() []string {
	qs := synth.Queries(60, 7)
	for _, q := range qs[:20] {
		if w := strings.Fields(q); len(w) > 1 && len(w[0]) > 6 {
			qs = append(qs, w[0][:len(w[0])-1]+"x "+w[1], w[0][:5], w[0]+w[1])
		}
	}
	return append(qs, "deploy friday", "数据库 部署")
}

// fresh is the ranking of the memories in dir by an index built from the files.
func fresh(t *testing.T, dir string, queries []string) []string {
	t.Helper()
	return ranked(storeRanker(t, dir, ""), queries)
}

func TestCacheRanksAsFreshBuild(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 300, 3); err != nil {
		t.Fatal(err)
	}
	qs := cacheQueries()
	want := fresh(t, dir, qs)
	if diff := cmp.Diff(want, ranked(storeRanker(t, dir, cache), qs)); diff != "" {
		t.Fatalf("index that saved itself ranks differently (-fresh +saving):\n%s", diff)
	}
	r := storeRanker(t, dir, cache)
	if !r.cache.base || r.Len() != 300 {
		t.Fatalf("second ranker: base %v, %d memories; want the saved index of 300", r.cache.base, r.Len())
	}
	if diff := cmp.Diff(want, ranked(r, qs)); diff != "" {
		t.Fatalf("index opened from the cache ranks differently (-fresh +cached):\n%s", diff)
	}
}

// change edits, adds and removes memories in dir, as another process or a hand would.
func change(t *testing.T, dir string, round int) {
	t.Helper()
	writeMem(t, dir, synth.MemoryFile(round), "edited", "project", fmt.Sprintf("edited in round %d", round), strings.Repeat("rollback staging database ", round+1))
	writeMem(t, dir, fmt.Sprintf("new-%d.md", round), "new", "project", "a new memory", "deploy on friday to 数据库 staging")
	if err := os.Remove(filepath.Join(dir, synth.MemoryFile(100+round))); err != nil {
		t.Fatal(err)
	}
}

func TestCacheFollowsChanges(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 200, 5); err != nil {
		t.Fatal(err)
	}
	qs := cacheQueries()
	storeRanker(t, dir, cache)
	// A warm ranker sees changes and writes them to the journal; a new one replays it. Both
	// rank as a warm ranker without a cache that saw the same changes (plain), which differs
	// from a fresh build only in keeping the written forms of words no memory uses any more
	// for spelling correction.
	warm, plain := storeRanker(t, dir, cache), storeRanker(t, dir, "")
	for round := range 3 {
		change(t, dir, round)
		for _, r := range []*Ranker{warm, plain} {
			if _, _, err := r.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		want := ranked(plain, qs)
		if diff := cmp.Diff(want, ranked(warm, qs)); diff != "" {
			t.Fatalf("round %d: warm ranker (-fresh +warm):\n%s", round, diff)
		}
		cold := storeRanker(t, dir, cache)
		if diff := cmp.Diff(want, ranked(cold, qs)); diff != "" {
			t.Fatalf("round %d: ranker from base and journal (-fresh +cached):\n%s", round, diff)
		}
	}
	if fi, err := os.Stat(journalPath(cache)); err != nil || fi.Size() <= 16 {
		t.Fatalf("journal after three rounds of changes: %v, %v; want records", fi, err)
	}
	// Changes made while no strata ran are found by their stamps.
	change(t, dir, 3)
	if _, _, err := plain.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ranked(plain, qs), ranked(storeRanker(t, dir, cache), qs)); diff != "" {
		t.Fatalf("after changes outside strata (-fresh +cached):\n%s", diff)
	}
}

// TestCacheSurvivesDamage cuts the journal at every record and inside records, as a crash in
// the middle of an append leaves it, and damages the base, as a crash before its data reached
// the disk or a bad sector would: every search still ranks as the index of the files does.
func TestCacheSurvivesDamage(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 120, 9); err != nil {
		t.Fatal(err)
	}
	qs := cacheQueries()
	storeRanker(t, dir, cache)
	warm, plain := storeRanker(t, dir, cache), storeRanker(t, dir, "")
	for round := range 3 {
		change(t, dir, round)
		for _, r := range []*Ranker{warm, plain} {
			if _, _, err := r.Refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A damaged cache is rebuilt from the files, which forgets the written forms of words no
	// memory uses any more (see TestCacheFollowsChanges): either ranking is right.
	want, rebuilt := ranked(plain, qs), fresh(t, dir, qs)
	check := func(what string, r *Ranker) {
		t.Helper()
		got := ranked(r, qs)
		if cmp.Equal(got, want) || cmp.Equal(got, rebuilt) {
			return
		}
		t.Fatalf("%s (-warm +cached):\n%s", what, cmp.Diff(want, got))
	}
	base, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(journalPath(cache))
	if err != nil {
		t.Fatal(err)
	}
	restore := func(b, j []byte) {
		t.Helper()
		if err := os.WriteFile(cache, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(journalPath(cache), j, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, torn := decodeJournal(journal)
	if torn || len(entries) < 6 {
		t.Fatalf("journal: %d records, torn %v; want at least 6 whole ones", len(entries), torn)
	}
	for cut := 0; cut < len(journal); cut += max(1, len(journal)/40) {
		restore(base, journal[:cut])
		check(fmt.Sprintf("journal cut at %d of %d", cut, len(journal)), storeRanker(t, dir, cache))
	}
	flipped := append([]byte(nil), journal...)
	flipped[len(flipped)/2] ^= 0x40
	restore(base, flipped)
	check("journal with a flipped byte", storeRanker(t, dir, cache))
	pb, err := parseBase(base)
	if err != nil || !<-pb.sum {
		t.Fatalf("saved base: %v", err)
	}
	l := newLayout(pb.terms.len(), len(pb.lens), pb.words.len(), len(pb.packed.data), len(pb.docs.str), int(binary.LittleEndian.Uint64(base[72:])), len(pb.docs.ana))
	// In the first part (checked at open), then in the texts and posting lists (checked by
	// block as they are used).
	for _, at := range []int{0, 9, 30, 66, baseSumAt, baseHeaderLen + 3, l.docs + 5, l.fix - 1, l.fix, (l.fix + l.post) / 2, l.post + 1, l.ana + 2, len(base) - 1} {
		bad := append([]byte(nil), base...)
		bad[at] ^= 0x01
		restore(bad, journal)
		r := storeRanker(t, dir, cache)
		check(fmt.Sprintf("base with byte %d flipped", at), r)
		// Every part used: a damaged block is found, and the next refresh rebuilds.
		r.ix.mu.RLock()
		for tid := range r.ix.terms.len() {
			r.ix.postingsOf(uint32(tid))
		}
		r.ix.mu.RUnlock()
		r.ix.Memories()
		if _, _, err := r.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("base with byte %d flipped, refreshed", at), r)
		// The damaged base was not used: the ranker built the index and saved it again.
		if got, err := os.ReadFile(cache); err != nil || string(got) == string(bad) {
			t.Fatalf("base with byte %d flipped was kept (%v)", at, err)
		}
		si, err := readSaved(cache)
		if err == nil {
			err = NewIndex(DefaultParams()).open(si)
		}
		if err != nil {
			t.Fatalf("base saved after the damaged one: %v", err)
		}
	}
	for _, n := range []int{0, 10, len(base) / 2} {
		restore(base[:n], journal)
		check(fmt.Sprintf("base cut at %d", n), storeRanker(t, dir, cache))
	}
}

func TestCachePath(t *testing.T) {
	a, b := CachePath("/c", "/m/one"), CachePath("/c", "/m/two")
	if a == b || !strings.HasPrefix(a, filepath.Join("/c", "strata", "recall")+string(filepath.Separator)) {
		t.Errorf("CachePath: %q and %q; want two files under /c/strata/recall", a, b)
	}
	if CachePath("/c", "/m/one/") != a {
		t.Errorf("CachePath depends on a trailing slash")
	}
}

// Searches at the same time on an index opened from its cache decode its posting lists and
// analyse its memories' lines on first use: each must still see whole ones (run with -race).
func TestCacheConcurrentSearch(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 150, 11); err != nil {
		t.Fatal(err)
	}
	qs := cacheQueries()
	want := fresh(t, dir, qs)
	storeRanker(t, dir, cache)
	r := storeRanker(t, dir, cache)
	got := make([][]string, 4)
	done := make(chan int)
	for g := range got {
		go func() {
			// Each goroutine starts at another query.
			out := make([]string, len(qs))
			for i := range qs {
				j := (i + g*len(qs)/4) % len(qs)
				out[j] = ranked(r, qs[j:j+1])[0]
			}
			got[g] = out
			done <- g
		}()
	}
	for range got {
		<-done
	}
	for g := range got {
		if diff := cmp.Diff(want, got[g]); diff != "" {
			t.Fatalf("goroutine %d (-fresh +cached):\n%s", g, diff)
		}
	}
}

// A cache that cannot be written costs one try, then the ranker works from the files alone.
func TestCacheUnwritable(t *testing.T) {
	dir, parent := t.TempDir(), t.TempDir()
	if err := synth.Memories(dir, 110, 13); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(blocker, "x.idx") // under a file: never writable
	qs := cacheQueries()
	r := storeRanker(t, dir, cache)
	if !r.cache.failed || r.cache.base {
		t.Fatalf("after a failed save: %+v, want failed", *r.cache)
	}
	change(t, dir, 0)
	if _, _, err := r.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh(t, dir, qs), ranked(r, qs)); diff != "" {
		t.Fatalf("ranker whose cache cannot be written (-fresh +got):\n%s", diff)
	}
}

// An empty store saves an empty index; its first memory goes to the journal.
func TestCacheEmptyStore(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if r := storeRanker(t, dir, cache); r.Len() != 0 || !r.cache.base {
		t.Fatalf("empty store: %d memories, base %v", r.Len(), r.cache.base)
	}
	r := storeRanker(t, dir, cache)
	if !r.cache.base || r.Len() != 0 {
		t.Fatalf("reopened empty store: %d memories, base %v", r.Len(), r.cache.base)
	}
	writeMem(t, dir, "deploy.md", "deploy", "project", "how we deploy", "deploy on friday")
	if _, _, err := r.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := files(storeRanker(t, dir, cache).Search("deploy friday", 5)); !slices.Equal(got, []string{"deploy.md"}) {
		t.Fatalf("after the first memory: %v", got)
	}
}

// TestCacheOpensLazily checks that an index opened from a saved base fills in only the
// documents a search uses, and that every way to read its memories gives what a fresh build
// holds.
func TestCacheOpensLazily(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 300, 4); err != nil {
		t.Fatal(err)
	}
	storeRanker(t, dir, cache)
	r, plain := storeRanker(t, dir, cache), storeRanker(t, dir, "")
	filled := func() int {
		n := 0
		for i := range r.ix.filled {
			if r.ix.filled[i].Load() {
				n++
			}
		}
		return n
	}
	if !r.cache.base || len(r.ix.filled) != 300 || filled() != 0 {
		t.Fatalf("opened: base %v, %d saved documents, %d filled in; want 300, none filled in", r.cache.base, len(r.ix.filled), filled())
	}
	// Each saved analysis is what analysing the memory again gives.
	z := r.ix.newAnalyser()
	z.again = true
	for i := range r.ix.saved.len() {
		saved := r.ix.saved.doc(i)
		if !r.ix.saved.analysis(i, &saved) {
			t.Fatalf("document %d: no saved analysis", i)
		}
		var again docInfo
		again.setDetail(z.analyse(saved.mem))
		if !slices.Equal(saved.terms, again.terms) || !slices.Equal(saved.tfs, again.tfs) ||
			!slices.Equal(saved.named, again.named) || !slices.Equal(saved.lines, again.lines) {
			t.Fatalf("document %d (%s): saved analysis differs from analysing it again", i, saved.mem.File)
		}
	}
	r.Search(synth.Queries(1, 9)[0], 5)
	if n := filled(); n == 0 || n > 100 {
		t.Fatalf("one search filled in %d of 300 documents; want a few", n)
	}
	files := r.ix.Files()
	slices.Sort(files)
	want := plain.ix.Files()
	slices.Sort(want)
	if diff := cmp.Diff(want, files); diff != "" {
		t.Fatalf("Files (-fresh +opened):\n%s", diff)
	}
	for _, f := range want {
		got, ok := r.ix.Get(f)
		m, _ := plain.ix.Get(f)
		if !ok || got != m {
			t.Fatalf("Get(%s) = %+v, %v; want %+v", f, got, ok, m)
		}
		if got, ok := r.ix.Find(m.Name); !ok || got.File != f {
			t.Fatalf("Find(%q) = %s, %v; want %s", m.Name, got.File, ok, f)
		}
	}
	if _, ok := r.ix.Get("missing.md"); ok {
		t.Fatal("Get of a file never saved found one")
	}
	if !r.ix.Remove(synth.MemoryFile(7)) || r.ix.Remove(synth.MemoryFile(7)) {
		t.Fatal("Remove of a saved memory: want true once, then false")
	}
	if _, ok := r.ix.Get(synth.MemoryFile(7)); ok || len(r.ix.Memories()) != 299 {
		t.Fatalf("after Remove: still found, or %d memories; want 299", len(r.ix.Memories()))
	}
}

// TestCacheDamagedTextSearch damages the body of the memory a query ranks first: reading it
// finds the damage and gives nothing for it, and a search gives the ranking of the files and
// saves a sound base.
func TestCacheDamagedTextSearch(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "x.idx")
	if err := synth.Memories(dir, 120, 11); err != nil {
		t.Fatal(err)
	}
	q := synth.Queries(1, 3)[0]
	want := fresh(t, dir, []string{q})
	top := storeRanker(t, dir, "").Search(q, 1)
	if len(top) == 0 {
		t.Fatalf("query %q finds nothing", q)
	}
	storeRanker(t, dir, cache)
	base, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := parseBase(base)
	if err != nil || !<-pb.sum {
		t.Fatalf("saved base: %v", err)
	}
	i, ok := pb.docs.find(top[0].Memory.File)
	if !ok {
		t.Fatalf("%s not in the saved base", top[0].Memory.File)
	}
	body := int(binary.LittleEndian.Uint32(pb.docs.rec(int(i))[docTextsAt+4*8:]))
	bad := append([]byte(nil), base...)
	bad[pb.docs.at+body+3] ^= 0x20
	if err := os.WriteFile(cache, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	r := storeRanker(t, dir, cache)
	if r.ix.damaged.Load() || !r.cache.base {
		t.Fatal("damage in a body found at open; want it found when the body is read")
	}
	// Read by file, the memory is found damaged and not given; nor is it (or any other whose
	// texts share the damaged block) among the memories.
	if m, ok := r.ix.Get(top[0].Memory.File); ok || m.File != "" || !r.ix.damaged.Load() {
		t.Fatalf("Get of the damaged memory = %q, %v; want nothing, the index damaged", m.File, ok)
	}
	ms := r.ix.Memories()
	if len(ms) >= 120 || slices.ContainsFunc(ms, func(m memdir.Memory) bool { return m.File == top[0].Memory.File }) {
		t.Fatalf("Memories with one damaged block: %d, the damaged one among them; want fewer than 120, not it", len(ms))
	}
	if diff := cmp.Diff(want, ranked(r, []string{q})); diff != "" {
		t.Fatalf("search over a damaged body (-files +cached):\n%s", diff)
	}
	if m, ok := r.ix.Get(top[0].Memory.File); !ok || m.Body != top[0].Memory.Body || r.ix.damaged.Load() {
		t.Fatalf("after the search rebuilt the index: Get = %v; want the memory", ok)
	}
	if got, err := os.ReadFile(cache); err != nil || string(got) == string(bad) {
		t.Fatalf("damaged base kept after the search that read it (%v)", err)
	}
}
