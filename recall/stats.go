package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// StatsFile is the name of the recall statistics sidecar in a memory dir. It starts with a
// dot so it is never taken for a memory.
const StatsFile = ".recall-stats.json"

// ErrCorruptStats is wrapped by the error Stats.Load returns when the sidecar is not valid
// JSON of the expected shape. The statistics are then empty; the next Record replaces the
// file.
var ErrCorruptStats = errors.New("recall: stats sidecar is corrupt")

// StatEntry is what recall knows about one memory: how often it was surfaced and when last,
// and the evidence that it is unused.
type StatEntry struct {
	Recalled     int       `json:"recalled"`
	LastRecalled time.Time `json:"lastRecalled"`
	// IdleSessions counts the sessions, since strata began watching the store (memdir's
	// WatchFile) or since the memory was last surfaced, in which it was eligible for recall
	// (it existed when the session's recall began). A recall sets it back to 0.
	IdleSessions int `json:"idleSessions,omitempty"`
}

type statsFile struct {
	Version  int                  `json:"version"`
	Memories map[string]StatEntry `json:"memories"`
}

// Stats reads and updates the recall statistics sidecar of one memory dir. Updates take a
// cross-process lock and replace the file atomically, so concurrent sessions lose no count.
// The memory files themselves are never touched.
type Stats struct {
	dir string
	fs  fsutil.FS
}

// NewStats returns the statistics of the memory dir dir.
func NewStats(dir string) *Stats { return &Stats{dir: dir, fs: fsutil.OS} }

// NewStatsFS is NewStats writing through fsys (tests inject failures with it).
func NewStatsFS(dir string, fsys fsutil.FS) *Stats { return &Stats{dir: dir, fs: fsys} }

// Path returns the sidecar's path.
func (s *Stats) Path() string { return filepath.Join(s.dir, StatsFile) }

func (s *Stats) lockPath() string { return filepath.Join(s.dir, ".recall-stats.lock") }

// Load returns the statistics per memory file. A missing sidecar means no statistics; a
// corrupt one returns the empty map and an error wrapping ErrCorruptStats.
func (s *Stats) Load(ctx context.Context) (map[string]StatEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := fsutil.ReadRegular(s.Path(), memdir.MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]StatEntry{}, nil
	}
	if err != nil {
		return map[string]StatEntry{}, fmt.Errorf("recall: read %s: %w", s.Path(), err)
	}
	var f statsFile
	if err := json.Unmarshal(data, &f); err != nil || f.Memories == nil && len(data) > 0 && f.Version == 0 {
		if err == nil {
			err = errors.New("no version or memories field")
		}
		return map[string]StatEntry{}, fmt.Errorf("%w: %s: %v", ErrCorruptStats, s.Path(), err)
	}
	if f.Memories == nil {
		f.Memories = map[string]StatEntry{}
	}
	return f.Memories, nil
}

// Record counts one recall of each file at now. A corrupt sidecar is replaced by fresh
// statistics, and the returned error (wrapping ErrCorruptStats) says so after the write
// succeeded; any other failure leaves the old sidecar as it was.
func (s *Stats) Record(ctx context.Context, files []string, now time.Time) error {
	if len(files) == 0 {
		return nil
	}
	return s.update(ctx, true, func(stats map[string]StatEntry) (bool, error) {
		for _, f := range files {
			e := stats[f]
			e.Recalled++
			e.LastRecalled = now.UTC()
			e.IdleSessions = 0
			stats[f] = e
		}
		return true, nil
	})
}

// RecordSession counts one session that began at now with the memory files eligible for
// recall: the store's watch state (memdir.RecordWatchSession) counts the session, and each
// file's IdleSessions goes up by one; a recall later in the session sets it back to 0. It is
// the evidence a dream needs before it calls a memory unused. Call it once per session.
func (s *Stats) RecordSession(ctx context.Context, eligible []string, now time.Time) error {
	return s.update(ctx, true, func(stats map[string]StatEntry) (bool, error) {
		if _, err := memdir.RecordWatchSession(s.dir, now); err != nil {
			return false, fmt.Errorf("recall: stats: %w", err)
		}
		for _, f := range eligible {
			e := stats[f]
			e.IdleSessions++
			stats[f] = e
		}
		return len(eligible) > 0, nil
	})
}

// Forget drops the statistics of files that no longer exist (after a forget or an archive).
func (s *Stats) Forget(ctx context.Context, files []string) error {
	if len(files) == 0 {
		return nil
	}
	return s.update(ctx, false, func(stats map[string]StatEntry) (bool, error) {
		n := len(stats)
		for _, f := range files {
			delete(stats, f)
		}
		return len(stats) != n, nil
	})
}

// update is every change to the sidecar: under its lock, load it, let change edit the map, and
// write it back atomically when change says it changed something. With freshOnCorrupt a corrupt
// sidecar is replaced by fresh statistics and the error wrapping ErrCorruptStats is returned
// after the write succeeded; without, it stops the change. Any other failure leaves the old
// sidecar as it was.
func (s *Stats) update(ctx context.Context, freshOnCorrupt bool, change func(map[string]StatEntry) (bool, error)) error {
	unlock, err := fsutil.Lock(ctx, s.lockPath())
	if err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	defer unlock()
	stats, loadErr := s.Load(ctx)
	if loadErr != nil && !(freshOnCorrupt && errors.Is(loadErr, ErrCorruptStats)) {
		return loadErr
	}
	changed, err := change(stats)
	if err != nil {
		return err
	}
	if !changed {
		return loadErr
	}
	data, err := json.MarshalIndent(statsFile{Version: 1, Memories: stats}, "", "  ")
	if err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	if err := fsutil.WriteFileFS(s.fs, s.Path(), append(data, '\n'), fsutil.FileMode); err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	return loadErr
}
