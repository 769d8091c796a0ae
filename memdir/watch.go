package memdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// WatchFile is the state file in a memory dir that records since when strata watches the store
// and how many sessions it has seen there. A store strata never ran a session in has none, so
// nothing in it counts as unused: forgetting needs evidence strata observed.
const WatchFile = ".strata-watch.json"

// Watch is the content of WatchFile.
type Watch struct {
	Version int `json:"version"`
	// Since is when strata's first session in this store began watching it.
	Since time.Time `json:"since"`
	// Sessions counts the sessions strata has run with this store since then.
	Sessions int `json:"sessions"`
}

// ReadWatch returns the watch state of the memory dir dir; ok is false when strata has not
// watched it yet (no file). A corrupt file is an error (and counts as no evidence).
func ReadWatch(dir string) (w Watch, ok bool, err error) {
	p := filepath.Join(dir, WatchFile)
	data, err := fsutil.ReadRegular(p, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return Watch{}, false, nil
	}
	if err != nil {
		return Watch{}, false, fmt.Errorf("memdir: read %s: %w", p, err)
	}
	if err := json.Unmarshal(data, &w); err != nil || w.Since.IsZero() {
		if err == nil {
			err = errors.New("no since field")
		}
		return Watch{}, false, fmt.Errorf("memdir: %s is corrupt: %w", p, err)
	}
	return w, true, nil
}

// RecordWatchSession counts one session in the memory dir dir at now, creating WatchFile (with
// Since = now) on the first; the caller holds whatever lock orders it with other writers of
// the state it keeps beside it (recall's statistics). A corrupt file is started over.
func RecordWatchSession(dir string, now time.Time) (Watch, error) {
	w, ok, _ := ReadWatch(dir) // a corrupt file is started over
	if !ok {
		w = Watch{Version: 1, Since: now.UTC()}
	}
	w.Sessions++
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return w, fmt.Errorf("memdir: %s: %w", WatchFile, err)
	}
	if err := os.MkdirAll(dir, fsutil.DirMode); err != nil {
		return w, fmt.Errorf("memdir: create %s: %w", dir, err)
	}
	if err := fsutil.WriteFile(filepath.Join(dir, WatchFile), append(data, '\n'), fsutil.FileMode); err != nil {
		return w, fmt.Errorf("memdir: write %s: %w", WatchFile, err)
	}
	return w, nil
}
