package transcript

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// listIndex is what listing remembers between runs: the Info of each transcript with the size
// and modification time it had. An entry is used only while both are unchanged, so the index
// can never show stale data; it only saves reading files that did not change.
type listIndex struct {
	Version int
	Entries map[string]indexEntry
}

type indexEntry struct {
	Size  int64
	MTime int64 // UnixNano
	Info  Info
}

const indexVersion = 1

// loadIndex reads the index at path; a missing file is an empty index, and an unreadable or
// corrupt one is reported and treated as empty (it is rebuilt).
func loadIndex(path string) (*listIndex, error) {
	idx := &listIndex{Version: indexVersion, Entries: map[string]indexEntry{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return idx, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	var got listIndex
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&got); err != nil || got.Version != indexVersion || got.Entries == nil {
		if err == nil {
			err = errors.New("unknown version")
		}
		return idx, fmt.Errorf("transcript: list index %s: %w (rebuilding it)", path, err)
	}
	return &got, nil
}

func (idx *listIndex) save(path string) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(idx); err != nil {
		return fmt.Errorf("transcript: list index %s: %w", path, err)
	}
	if err := fsutil.WriteFile(path, b.Bytes(), fsutil.FileMode); err != nil {
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
