package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// listIndex is what listing remembers between runs: the Info of each transcript with the size
// and modification time it had. An entry is used only while both are unchanged, so the index
// can never show stale data; it only saves reading files that did not change.
type listIndex struct {
	Entries map[string]indexEntry
}

type indexEntry struct {
	Size  int64
	MTime int64 // UnixNano
	Info  Info
}

// indexMagic starts an index file; the format is a count, then per entry the path, size and
// mtime and the Info's fields, as varints and length-prefixed strings (compact and quick to
// read: listing a thousand unchanged sessions reads one small file).
const indexMagic = "strata-list-index 1\n"

// loadIndex reads the index at path; a missing file is an empty index, and an unreadable or
// corrupt one is reported and treated as empty (it is rebuilt).
func loadIndex(path string) (*listIndex, error) {
	empty := &listIndex{Entries: map[string]indexEntry{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	idx, err := decodeIndex(data)
	if err != nil {
		return empty, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	return idx, nil
}

var errIndexCorrupt = errors.New("corrupt")

func decodeIndex(data []byte) (*listIndex, error) {
	rest, ok := bytes.CutPrefix(data, []byte(indexMagic))
	if !ok {
		return nil, errors.New("not a list index of this version")
	}
	d := indexDecoder{b: rest}
	n := d.uint()
	if d.err != nil || n > uint64(len(rest)) {
		return nil, errIndexCorrupt
	}
	idx := &listIndex{Entries: make(map[string]indexEntry, n)}
	for range n {
		p := d.str()
		e := indexEntry{Size: d.int(), MTime: d.int()}
		e.Info = Info{ID: SessionIDOf(p), Path: p, Project: filepath.Base(filepath.Dir(p)), Size: e.Size,
			CWD: d.str(), Title: d.str(), FirstPrompt: d.str(), LastPrompt: d.str(), Tag: d.str(), Branch: d.str()}
		e.Info.Created = d.time()
		e.Info.LastActivity = d.time()
		if d.err != nil {
			return nil, d.err
		}
		idx.Entries[p] = e
	}
	if len(d.b) != 0 {
		return nil, errIndexCorrupt
	}
	return idx, nil
}

type indexDecoder struct {
	b   []byte
	err error
}

func (d *indexDecoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errIndexCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *indexDecoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errIndexCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *indexDecoder) str() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errIndexCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *indexDecoder) time() time.Time {
	v := d.int()
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

func (idx *listIndex) encode() []byte {
	b := []byte(indexMagic)
	b = binary.AppendUvarint(b, uint64(len(idx.Entries)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	tm := func(t time.Time) {
		if t.IsZero() {
			b = binary.AppendVarint(b, 0)
			return
		}
		b = binary.AppendVarint(b, t.UnixNano())
	}
	for p, e := range idx.Entries {
		str(p)
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.MTime)
		i := e.Info
		for _, s := range []string{i.CWD, i.Title, i.FirstPrompt, i.LastPrompt, i.Tag, i.Branch} {
			str(s)
		}
		tm(i.Created)
		tm(i.LastActivity)
	}
	return b
}

func (idx *listIndex) save(path string) error {
	if err := fsutil.WriteFile(path, idx.encode(), fsutil.FileMode); err != nil {
		return fmt.Errorf("transcript: list index: %w", err)
	}
	return nil
}

// lookup returns the remembered Info of path when the file still has size and mtime.
func (idx *listIndex) lookup(path string, size int64, mtime time.Time) (Info, bool) {
	e, ok := idx.Entries[path]
	if !ok || e.Size != size || e.MTime != mtime.UnixNano() {
		return Info{}, false
	}
	return e.Info, true
}
