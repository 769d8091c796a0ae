package recall

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// A saved index is two files: the base (Cache; its layout is in cache_base.go), every live
// memory's stamp, lengths and texts with each term's key, frequencies and posting list and the
// word list, checked by CRCs; and a journal beside it (Cache + ".log") of the memories strata
// changed since, each as its text and stamp in a record of its own CRC. Opening maps the base,
// reads its tables and checks the CRC of its first part while the store is scanned for files
// changed since the stamps (memdir.Store.Changes), links it, replays the journal by analysing
// its few memories, and reads only the changed files; texts and posting lists are checked by
// block as they are first used, and a block that fails has the ranker rebuild the index from
// the files before a search's hits are given (Ranker.Search). Nothing in the cache is trusted
// over the files: a memory is kept only while its file's stamp is the one saved with it, so a
// torn, stale or foreign record costs a re-read, never a wrong result.

// cacheVersion names the layout of the files; cacheFingerprint adds what the analysis gives,
// so a cache written by a strata that tokenized differently is not used.
const cacheVersion = 4

var (
	cacheMagic   = [8]byte{'S', 'T', 'R', 'A', 'T', 'A', 'R', 'X'}
	journalMagic = [8]byte{'S', 'T', 'R', 'A', 'T', 'A', 'R', 'J'}
	crcTable     = crc32.MakeTable(crc32.Castagnoli)
)

// cacheFingerprint is a hash of the terms Tokenize gives for a probe text touching its every
// rule (stopwords, stems, irregular forms, CJK bigrams, NFKC, apostrophes).
var cacheFingerprint = sync.OnceValue(func() uint64 {
	const probe = "Deploying the grandmother's résumé: ran, went, children; ﬁle run-time " +
		"部署到生产环境 東京タワーへ行った 2024-05-01 v1.2"
	h := uint64(cacheVersion)
	for _, t := range Tokenize(probe, nil) {
		h = h*31 + termKey(t.Term)
	}
	return h
})

// journalMax bounds the journal: past it the next change rewrites the base and starts an empty
// journal, so replaying it (analysing its memories again) stays a few milliseconds.
const journalMax = 256 << 10

// errCache is wrapped by every reason a saved index is not used.
var errCache = errors.New("recall: saved index unusable")

// encoder appends little-endian values to a buffer (a journal record).
type encoder struct{ b []byte }

func (e *encoder) u8(v byte)        { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32)     { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) str(s string)     { e.u32(uint32(len(s))); e.b = append(e.b, s...) }
func (e *encoder) time(t time.Time) { e.u64(timeBits(t)) }

// decoder reads what encoder wrote; the first read past the end sets err and every later read
// returns zero values.
type decoder struct {
	b   []byte
	off int
	err error
}

func newDecoder(b []byte) *decoder { return &decoder{b: b} }

func (d *decoder) take(n int) int {
	if d.err != nil || n < 0 || len(d.b)-d.off < n {
		if d.err == nil {
			d.err = fmt.Errorf("%w: truncated at byte %d", errCache, d.off)
		}
		return -1
	}
	o := d.off
	d.off += n
	return o
}

func (d *decoder) u8() byte {
	if o := d.take(1); o >= 0 {
		return d.b[o]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if o := d.take(4); o >= 0 {
		return binary.LittleEndian.Uint32(d.b[o:])
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if o := d.take(8); o >= 0 {
		return binary.LittleEndian.Uint64(d.b[o:])
	}
	return 0
}

func (d *decoder) str() string {
	n := int(d.u32())
	if o := d.take(n); o >= 0 {
		return string(d.b[o : o+n])
	}
	return ""
}

func (d *decoder) time() time.Time { return bitsTime(d.u64()) }

func encodeMemory(e *encoder, m memdir.Memory, st memdir.Stamp) {
	e.u64(uint64(st.Size))
	e.u64(uint64(st.MTime))
	e.u64(st.Ino)
	for _, s := range []string{m.Name, m.Description, string(m.Type), m.Author, m.Body, m.File, m.Path, m.Hash} {
		e.str(s)
	}
	e.time(m.Modified)
	e.time(m.ModTime)
	e.u64(uint64(m.Size))
}

func decodeMemory(d *decoder) (memdir.Memory, memdir.Stamp) {
	var st memdir.Stamp
	st.Size, st.MTime, st.Ino = int64(d.u64()), int64(d.u64()), d.u64()
	var m memdir.Memory
	m.Name, m.Description, m.Type, m.Author = d.str(), d.str(), memdir.Type(d.str()), d.str()
	m.Body, m.File, m.Path, m.Hash = d.str(), d.str(), d.str(), d.str()
	m.Modified, m.ModTime, m.Size = d.time(), d.time(), int64(d.u64())
	return m, st
}

// Journal records.
const (
	recPut    = 1 // a memory's text and stamp
	recRemove = 2 // a file gone
)

// encodeRecord frames one journal record: its length, its CRC, then the payload.
func encodeRecord(e *encoder, payload []byte) {
	e.u32(uint32(len(payload)))
	e.u32(crc32.Checksum(payload, crcTable))
	e.b = append(e.b, payload...)
}

// journalEntry is one decoded journal record.
type journalEntry struct {
	put   bool
	mem   memdir.Memory
	stamp memdir.Stamp
	file  string // of a removal
}

// decodeJournal returns the journal's records up to the first one that is torn or corrupt
// (what follows it is not trusted either), and whether it stopped there.
func decodeJournal(data []byte) (out []journalEntry, torn bool) {
	if len(data) < 16 || [8]byte(data[:8]) != journalMagic ||
		binary.LittleEndian.Uint64(data[8:16]) != cacheFingerprint() {
		return nil, len(data) > 0
	}
	d := newDecoder(data)
	d.off = 16
	for d.off < len(data) {
		n, sum := int(d.u32()), d.u32()
		o := d.take(n)
		if o < 0 || crc32.Checksum(data[o:o+n], crcTable) != sum {
			return out, true
		}
		r := newDecoder(data[o : o+n])
		var je journalEntry
		switch r.u8() {
		case recPut:
			je.put = true
			je.mem, je.stamp = decodeMemory(r)
		case recRemove:
			je.file = r.str()
		default:
			return out, true
		}
		if r.err != nil {
			return out, true
		}
		out = append(out, je)
	}
	return out, false
}

// journalPath is the journal beside the base at path.
func journalPath(path string) string { return path + ".log" }

// savedIndex is a saved index read from disk and not linked yet: the base (its CRC still
// being checked) and the journal's records.
type savedIndex struct {
	base    *parsedBase
	journal []journalEntry
	jsize   int64
}

// stamps yields the file and stamp of every memory the base and journal give, in order of
// file: the base's, sorted, with the journal's puts merged in and what it changed or removed
// left out.
func (si *savedIndex) stamps(yield func(string, memdir.Stamp) bool) {
	last := map[string]int{} // file → its last journal entry
	for i, je := range si.journal {
		f := je.file
		if je.put {
			f = je.mem.File
		}
		last[f] = i
	}
	var puts []int
	for _, i := range last {
		if si.journal[i].put {
			puts = append(puts, i)
		}
	}
	slices.SortFunc(puts, func(a, b int) int { return strings.Compare(si.journal[a].mem.File, si.journal[b].mem.File) })
	sd := si.base.docs
	for i := range sd.len() {
		f := sd.file(i)
		for len(puts) > 0 && si.journal[puts[0]].mem.File < f {
			if je := &si.journal[puts[0]]; !yield(je.mem.File, je.stamp) {
				return
			}
			puts = puts[1:]
		}
		if _, changed := last[f]; changed {
			continue
		}
		if !yield(f, sd.stamp(i)) {
			return
		}
	}
	for _, i := range puts {
		if je := &si.journal[i]; !yield(je.mem.File, je.stamp) {
			return
		}
	}
}

// readSaved reads the base and journal at path. A base that is missing or unusable is an error.
func readSaved(path string) (*savedIndex, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	pb, err := parseBase(data)
	if err != nil {
		unmapFile(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	si := &savedIndex{base: pb}
	if jdata, err := os.ReadFile(journalPath(path)); err == nil {
		// A journal that cannot be read leaves the base alone, a valid older state.
		si.journal, _ = decodeJournal(jdata)
		si.jsize = int64(len(jdata))
	}
	return si, nil
}

// open makes si the content of the empty index ix, once the base's CRC has matched, and
// replays the journal. On an error ix is left empty (and si's mapping released if nothing
// points into it).
func (ix *Index) open(si *savedIndex) error {
	if err := ix.linkBase(si.base); err != nil {
		unmapFile(si.base.data)
		return err
	}
	z := ix.newAnalyser()
	ix.mu.Lock()
	for _, je := range si.journal {
		if je.put {
			ix.link(z.analyse(je.mem))
		} else {
			ix.unlink(je.file)
		}
	}
	ix.mu.Unlock()
	if ix.damaged.Load() {
		ix.reset()
		return fmt.Errorf("%w: a block of the base failed its check", errCache)
	}
	return nil
}

// writeBase replaces the base at path with ix's memories stamped in snap and starts an empty
// journal. The base is renamed into place whole, so a reader sees the old one or the new one;
// the journal of the old base is then replaced, and a record another process appends to it
// meanwhile is lost, which costs that memory a re-read.
func (ix *Index) writeBase(path string, snap memdir.Snapshot) error {
	ix.mu.RLock()
	data := ix.encodeBase(snap)
	ix.mu.RUnlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := fsutil.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	j := append(journalMagic[:], binary.LittleEndian.AppendUint64(nil, cacheFingerprint())...)
	return fsutil.WriteFile(journalPath(path), j, 0o600)
}

// appendJournal appends one record per changed and removed memory to the journal at path, in
// one write. It returns the journal's size after the write.
func appendJournal(path string, changed []memdir.Memory, removed []string, snap memdir.Snapshot) (int64, error) {
	e := &encoder{}
	p := &encoder{}
	for _, f := range removed {
		p.b = p.b[:0]
		p.u8(recRemove)
		p.str(f)
		encodeRecord(e, p.b)
	}
	for _, m := range changed {
		st, ok := snap.Stamp(m.File)
		if !ok {
			continue
		}
		p.b = p.b[:0]
		p.u8(recPut)
		encodeMemory(p, m, st)
		encodeRecord(e, p.b)
	}
	f, err := os.OpenFile(journalPath(path), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err // no journal: the caller writes a base instead
	}
	defer f.Close()
	if _, err := f.Write(e.b); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// cacheState is a Ranker's saved index: where it lives and what the process knows of it.
type cacheState struct {
	path    string
	tried   bool  // the saved index was read (or found missing) on the first refresh
	base    bool  // a base matching the index is on disk, so changes go to the journal
	journal int64 // the journal's size after the last append
	failed  bool  // a base could not be written: this process saves nothing more
}

// readCache reads the ranker's saved index, if one is usable: its stamps (snapshot) are what
// the store's files were when it was saved, and the caller links it (linkCache) once the
// store has been scanned. It touches nothing of r but the cache's path and the logger.
func (r *Ranker) readCache() *savedIndex {
	si, err := readSaved(r.cache.path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			r.log.Debug("recall: saved index not used; rebuilding it", "err", err)
		}
		return nil
	}
	return si
}

// snapshot is what the saved index has seen: the stamps of its memories.
func (si *savedIndex) snapshot() memdir.Snapshot {
	return memdir.SnapshotOf(si.base.docs.len()+len(si.journal), si.stamps)
}

// linkCache makes si the ranker's index, or reports that it failed its CRC: the snapshot is
// then reset and the caller scans the store again from nothing. Caller holds r.mu.
func (r *Ranker) linkCache(si *savedIndex) bool {
	if err := r.ix.open(si); err != nil {
		r.log.Debug("recall: saved index not used; rebuilding it", "path", r.cache.path, "err", err)
		r.snap = memdir.Snapshot{}
		return false
	}
	r.cache.base, r.cache.journal = true, si.jsize
	return true
}

// saveCache records a refresh's changes in the saved index: in the journal when a base is on
// disk and the journal is small, else as a new base. A failure is logged: the index in memory
// is right, and the next process reads the files the cache misses.
func (r *Ranker) saveCache(changed []memdir.Memory, removed []string) {
	c := r.cache
	if c.failed || len(changed)+len(removed) == 0 && c.base {
		return
	}
	if c.base && c.journal < journalMax {
		n, err := appendJournal(c.path, changed, removed, r.snap)
		if err == nil {
			c.journal = n
			return
		}
		r.log.Debug("recall: appending to the saved index's journal", "err", err)
	}
	if err := r.ix.writeBase(c.path, r.snap); err != nil {
		// Not tried again by this process: each try would lay out the whole index.
		r.log.Warn("recall: saving the index failed; the next process reads the files", "path", c.path, "err", err)
		c.base, c.failed = false, true
		return
	}
	c.base, c.journal = true, 16
}

// CachePath returns where the saved index of the memory store in dir lives under the cache
// directory cacheDir: one file per store, named by a hash of its directory, so it is never
// among the store's own files nor synced with them.
func CachePath(cacheDir, dir string) string {
	return filepath.Join(cacheDir, "strata", "recall", fmt.Sprintf("%016x.idx", termKey(filepath.Clean(dir))))
}
