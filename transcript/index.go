package transcript

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
)

// listIndex is what listing remembers between runs: each transcript's Info with the key (size,
// mtime, ctime, inode) its file had, used only while the key holds, so it is never stale.
// Entries keep the last listing's order with the position it met each file, so an unchanged
// directory needs no lookup by path; loading decodes only path, key and last activity, the rest
// straight into the result, whose strings share the file's bytes.
type listIndex struct {
	data    string // the file; entries' strings are substrings of it
	entries []indexEntry
	// byPath is built on the first entry not found at its position; once, since a cached
	// index is shared by the listings of the process.
	byPath     map[string]int
	byPathOnce sync.Once
}

type indexEntry struct {
	Path         string
	Pos          int // where the listing that wrote the entry met the file
	Key          fileKey
	LastActivity int64 // UnixNano, 0 for none
	info, end    int   // where in data the rest of the Info is
}

// fileKey is what a stat of a transcript says about its content: the file changed when any
// of these did. An append changes the size and mtime; a rewrite in place or by rename changes
// the change time or the inode even when size and mtime are made to look the same.
type fileKey struct {
	Size  int64
	MTime int64 // UnixNano
	CTime int64 // UnixNano; 0 where the platform's stat does not give it
	Ino   uint64
}

// indexMagic starts an index file. Then comes a count and per entry: the path, the position,
// the key (size, mtime, ctime, inode) and the last activity, then the length of the rest and
// the rest (cwd, title, first prompt, last prompt, tag, branch, created), all varints and
// length-prefixed strings, except that the title and the last prompt are written as a 0 when
// they are the first prompt (most sessions: a title taken from the first prompt, a last
// prompt that is the only one), and as their length plus one otherwise.
const (
	indexMagicPrefix = "strata-list-index "
	indexMagic       = indexMagicPrefix + "5\n" // 5: a title or last prompt equal to the first prompt is not repeated
)

// indexCache keeps the indexes this process decoded, by path, each with the key its file had
// when it was read: a listing whose index file still has that key uses the decoded index, so
// a process that lists again (the chat's /resume picker, a program using this package) pays
// one stat for the index rather than reading and decoding it, and allocates about a third of
// the bytes. A
// decoded index is never changed (byPath aside, built once), so listings share it. Its key is
// taken before the read, so a file replaced meanwhile is only a miss next time; and an index
// is a cache whose every entry is checked against its transcript's own key, so even a wrong
// one could cost reads, never show stale data.
var indexCache struct {
	sync.Mutex
	m map[string]cachedIndex
}

type cachedIndex struct {
	key fileKey
	idx *listIndex
}

// maxCachedIndexes bounds indexCache: a process lists one or two project directories.
const maxCachedIndexes = 8

// cachedIndexFor returns the index cached for path under key, or nil.
func cachedIndexFor(path string, key fileKey) *listIndex {
	indexCache.Lock()
	defer indexCache.Unlock()
	if c, ok := indexCache.m[path]; ok && c.key == key {
		return c.idx
	}
	return nil
}

// cacheIndex remembers idx, read from path when its file had key.
func cacheIndex(path string, key fileKey, idx *listIndex) {
	indexCache.Lock()
	defer indexCache.Unlock()
	if indexCache.m == nil {
		indexCache.m = make(map[string]cachedIndex)
	}
	if _, ok := indexCache.m[path]; !ok && len(indexCache.m) >= maxCachedIndexes {
		for p := range indexCache.m { // any one: the bound is for a process with many
			delete(indexCache.m, p)
			break
		}
	}
	indexCache.m[path] = cachedIndex{key, idx}
}

// loadIndex reads the index at path (or takes it from indexCache); a missing file or one of
// another version is an empty index, and an unreadable or corrupt one is reported and treated
// as empty (it is rebuilt).
func loadIndex(path string) (*listIndex, error) {
	empty := &listIndex{}
	st, statErr := fastio.StatPath(path, false)
	key := fileKey{Size: st.Size, MTime: st.MTime, CTime: st.CTime, Ino: st.Ino}
	cacheable := statErr == nil && st.Mode.IsRegular()
	if cacheable {
		if idx := cachedIndexFor(path, key); idx != nil {
			return idx, nil
		}
	}
	data, err := readIndexFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	if !strings.HasPrefix(data, indexMagic) && strings.HasPrefix(data, indexMagicPrefix) {
		return empty, nil // written by another version: a cache, rebuilt silently
	}
	idx, err := decodeIndex(data)
	if err != nil {
		return empty, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	if cacheable {
		cacheIndex(path, key, idx)
	}
	return idx, nil
}

// maxIndexBytes caps the list index read: far above what thousands of sessions need, far
// below what a huge (sparse) file in its place would take to load.
const maxIndexBytes = 256 << 20

// readIndexFile returns the file's bytes as a string without copying them: nothing else holds
// the buffer, so the decoded Infos can share it. The index is a cache another process writes:
// a FIFO, a device or a file over maxIndexBytes in its place is an error (and the index is
// rebuilt), never a hang.
func readIndexFile(path string) (string, error) {
	f, fi, err := fsutil.OpenRegular(path, maxIndexBytes)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, fi.Size()+1) // one byte more, to see the end in one read
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", err
	}
	if n == len(buf) { // grew since the stat
		rest, err := io.ReadAll(io.LimitReader(f, maxIndexBytes-int64(n)))
		if err != nil {
			return "", err
		}
		buf = append(buf, rest...)
		n = len(buf)
	}
	if n == 0 {
		return "", nil
	}
	return unsafe.String(&buf[0], n), nil
}

var errIndexCorrupt = errors.New("corrupt")

// decodeIndex decodes the keys of data's entries and checks the rest of each.
func decodeIndex(data string) (*listIndex, error) {
	rest, ok := strings.CutPrefix(data, indexMagic)
	if !ok {
		return nil, errors.New("not a list index of this version")
	}
	d := indexDecoder{s: rest}
	n := d.uint()
	if d.err != nil || n > uint64(len(rest)) {
		return nil, errIndexCorrupt
	}
	idx := &listIndex{data: data, entries: make([]indexEntry, n)}
	var scratch Info
	for k := range idx.entries {
		e := &idx.entries[k]
		e.Path = d.str()
		e.Pos = int(min(d.uint(), math.MaxInt32))
		e.Key = fileKey{Size: d.int(), MTime: d.int(), CTime: d.int(), Ino: d.uint()}
		e.LastActivity = d.int()
		m := d.uint()
		if d.err != nil || m > uint64(len(d.s)) {
			return nil, errIndexCorrupt
		}
		e.info = len(data) - len(d.s)
		e.end = e.info + int(m)
		if !decodeInfoRest(d.s[:m], &scratch) {
			return nil, errIndexCorrupt
		}
		d.s = d.s[m:]
	}
	if len(d.s) != 0 {
		return nil, errIndexCorrupt
	}
	return idx, nil
}

// info fills *to with the Info of entry k.
func (idx *listIndex) info(k int, to *Info) {
	e := &idx.entries[k]
	*to = Info{ID: SessionIDOf(e.Path), Path: e.Path, Project: filepath.Base(filepath.Dir(e.Path)), Size: e.Key.Size,
		LastActivity: unixNano(e.LastActivity)}
	decodeInfoRest(idx.data[e.info:e.end], to) // checked by decodeIndex
}

// decodeInfoRest decodes the fields after an entry's key into to, reporting whether they
// were well formed.
func decodeInfoRest(s string, to *Info) bool {
	d := indexDecoder{s: s}
	to.CWD = d.str()
	title, titleIsFirst := d.strOrFirst()
	to.FirstPrompt = d.str()
	last, lastIsFirst := d.strOrFirst()
	to.Title, to.LastPrompt = title, last
	if titleIsFirst {
		to.Title = to.FirstPrompt
	}
	if lastIsFirst {
		to.LastPrompt = to.FirstPrompt
	}
	to.Tag, to.Branch = d.str(), d.str()
	to.Created = unixNano(d.int())
	return d.err == nil
}

func unixNano(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

type indexDecoder struct {
	s   string
	err error
}

// uint decodes a varint as binary.Uvarint does, from a string.
func (d *indexDecoder) uint() uint64 {
	var v uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			d.s = d.s[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	d.err = errIndexCorrupt
	return 0
}

func (d *indexDecoder) int() int64 {
	u := d.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// strOrFirst decodes a string written by appendOrFirst: isFirst says it is the first prompt,
// decoded after it.
func (d *indexDecoder) strOrFirst() (s string, isFirst bool) {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.s))+1 {
		d.err = errIndexCorrupt
		return "", false
	}
	if n == 0 {
		return "", true
	}
	s = d.s[:n-1]
	d.s = d.s[n-1:]
	return s, false
}

func (d *indexDecoder) str() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errIndexCorrupt
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

// indexWriter encodes an index: entries are added in listing order, each either copied from
// the old index (its bytes as they were) or encoded from a fresh Info.
type indexWriter struct {
	b []byte
	n int
}

func (w *indexWriter) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *indexWriter) head(path string, pos int, key fileKey, lastActivity time.Time) {
	w.n++
	w.str(path)
	w.b = binary.AppendUvarint(w.b, uint64(pos))
	w.b = binary.AppendVarint(w.b, key.Size)
	w.b = binary.AppendVarint(w.b, key.MTime)
	w.b = binary.AppendVarint(w.b, key.CTime)
	w.b = binary.AppendUvarint(w.b, key.Ino)
	w.b = binary.AppendVarint(w.b, timeNano(lastActivity))
}

// add encodes a fresh Info of the file met at pos.
func (w *indexWriter) add(pos int, key fileKey, i *Info) {
	w.head(i.Path, pos, key, i.LastActivity)
	var rest []byte
	appendStr := func(s string) {
		rest = binary.AppendUvarint(rest, uint64(len(s)))
		rest = append(rest, s...)
	}
	appendOrFirst := func(s string) { // 0 for the first prompt, else the length plus one
		if s == i.FirstPrompt && s != "" {
			rest = append(rest, 0)
			return
		}
		rest = binary.AppendUvarint(rest, uint64(len(s))+1)
		rest = append(rest, s...)
	}
	appendStr(i.CWD)
	appendOrFirst(i.Title)
	appendStr(i.FirstPrompt)
	appendOrFirst(i.LastPrompt)
	appendStr(i.Tag)
	appendStr(i.Branch)
	rest = binary.AppendVarint(rest, timeNano(i.Created))
	w.str(string(rest))
}

// copy re-encodes entry k of idx, whose key is unchanged, for the file met at pos.
func (w *indexWriter) copy(pos int, idx *listIndex, k int) {
	e := &idx.entries[k]
	w.head(e.Path, pos, e.Key, unixNano(e.LastActivity))
	w.str(idx.data[e.info:e.end])
}

func (w *indexWriter) bytes() []byte {
	b := binary.AppendUvarint([]byte(indexMagic), uint64(w.n))
	return append(b, w.b...)
}

func timeNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func saveIndex(path string, w *indexWriter) error {
	if err := fsutil.WriteFile(path, w.bytes(), fsutil.FileMode); err != nil {
		return fmt.Errorf("transcript: list index: %w", err)
	}
	return nil
}

// positions returns, for each of the n files of a listing, the entry written for the file met
// at the same position, or -1.
func (idx *listIndex) positions(n int) []int32 {
	byPos := make([]int32, n)
	for k := range byPos {
		byPos[k] = -1
	}
	for e, x := range idx.entries {
		if x.Pos < n && byPos[x.Pos] < 0 {
			byPos[x.Pos] = int32(e)
		}
	}
	return byPos
}

// at returns entry e when it is the one for the file name in dir (as it is when the
// directory did not change since the index was written), otherwise -1.
func (idx *listIndex) at(e int32, dir, name string) int32 {
	if e < 0 || !isJoined(idx.entries[e].Path, dir, name) {
		return -1
	}
	return e
}

// find returns the entry for path wherever it is, or -1.
func (idx *listIndex) find(path string) int {
	idx.byPathOnce.Do(func() {
		idx.byPath = make(map[string]int, len(idx.entries))
		for k, e := range idx.entries {
			idx.byPath[e.Path] = k
		}
	})
	if k, ok := idx.byPath[path]; ok {
		return k
	}
	return -1
}

// isJoined reports whether p is filepath.Join(dir, name) for a clean dir and a plain name,
// without building the joined string.
func isJoined(p, dir, name string) bool {
	if len(p) < len(dir)+len(name) || !strings.HasPrefix(p, dir) || !strings.HasSuffix(p, name) {
		return false
	}
	sep := len(p) - len(dir) - len(name)
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return sep == 0
	}
	return sep == 1 && p[len(dir)] == filepath.Separator
}
