package recall

import (
	"cmp"
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
	// Log says how much of the recall log (StatsLogFile) the memories already hold.
	Log *logMark `json:"log,omitempty"`
}

// Stats reads and updates the recall statistics sidecar of one memory dir. Updates take a
// cross-process lock, so concurrent sessions lose no count. A recall (Record) appends one line
// to the recall log (StatsLogFile) instead of rewriting the sidecar; the log is folded into
// the sidecar, which is replaced atomically, once it passes StatsLogFold bytes and by every
// other update. The memory files themselves are never touched.
type Stats struct {
	dir    string
	fs     fsutil.FS
	foldAt int64 // log size from which Record folds the log (StatsLogFold)
}

// NewStats returns the statistics of the memory dir dir.
func NewStats(dir string) *Stats { return &Stats{dir: dir, fs: fsutil.OS, foldAt: StatsLogFold} }

// NewStatsFS is NewStats writing through fsys (tests inject failures with it).
func NewStatsFS(dir string, fsys fsutil.FS) *Stats {
	return &Stats{dir: dir, fs: fsys, foldAt: StatsLogFold}
}

// Path returns the sidecar's path.
func (s *Stats) Path() string { return filepath.Join(s.dir, StatsFile) }

func (s *Stats) lockPath() string { return filepath.Join(s.dir, ".recall-stats.lock") }

// Load returns the statistics per memory file: the sidecar's, plus the recalls logged since it
// was written. A missing sidecar means no statistics; a corrupt one returns the empty map
// (plus the logged recalls) and an error wrapping ErrCorruptStats. A torn last line of the log
// (a crash while appending) is skipped; a bad line before it is skipped and reported with an
// error wrapping ErrCorruptStats, the other counts returned.
func (s *Stats) Load(ctx context.Context) (map[string]StatEntry, error) {
	for try := 0; ; try++ {
		// The log first: a fold that runs meanwhile writes a sidecar that says how much of
		// this log it holds, so nothing is counted twice and nothing is missed. But a reader
		// slow enough to see the sidecar of a later fold too (one that folded this log and
		// then another) would count this log twice: when the log read has gone by the time
		// the sidecar is read, read both again.
		log, logErr := s.readLog()
		stats, mark, err := s.loadSidecar(ctx)
		if err != nil && !errors.Is(err, ErrCorruptStats) {
			return stats, err
		}
		if log.gen != 0 && !(mark != nil && mark.Gen == log.gen) && s.logGen() != log.gen && try < loadTries {
			continue
		}
		replayErr := log.replay(stats, mark)
		return stats, cmp.Or(err, logErr, replayErr)
	}
}

// loadTries bounds how many times Load reads the log and the sidecar again while folds
// replace them (each fold takes the log of thousands of recalls).
const loadTries = 100

// loadSidecar reads the sidecar alone.
func (s *Stats) loadSidecar(ctx context.Context) (map[string]StatEntry, *logMark, error) {
	if err := ctx.Err(); err != nil {
		return map[string]StatEntry{}, nil, err
	}
	data, err := fsutil.ReadRegular(s.Path(), memdir.MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]StatEntry{}, nil, nil
	}
	if err != nil {
		return map[string]StatEntry{}, nil, fmt.Errorf("recall: read %s: %w", s.Path(), err)
	}
	var f statsFile
	if err := json.Unmarshal(data, &f); err != nil || f.Memories == nil && len(data) > 0 && f.Version == 0 {
		if err == nil {
			err = errors.New("no version or memories field")
		}
		return map[string]StatEntry{}, nil, fmt.Errorf("%w: %s: %v", ErrCorruptStats, s.Path(), err)
	}
	if f.Memories == nil {
		f.Memories = map[string]StatEntry{}
	}
	return f.Memories, f.Log, nil
}

// Record counts one recall of each file at now: one line appended to the recall log (and
// synced), so a recall costs the same however many memories the sidecar holds. When the log
// has grown past the fold size it is folded into the sidecar; a corrupt sidecar is then
// replaced by fresh statistics (and the logged recalls), and the returned error (wrapping
// ErrCorruptStats) says so after the write succeeded. A failed fold leaves the old sidecar and
// the log as they were, the recall counted.
func (s *Stats) Record(ctx context.Context, files []string, now time.Time) error {
	if len(files) == 0 {
		return nil
	}
	return s.appendRecall(ctx, files, now)
}

// countRecall is what a recall of files at now does to the statistics: Record's rule, applied
// when the log is replayed.
func countRecall(stats map[string]StatEntry, files []string, now time.Time) {
	for _, f := range files {
		e := stats[f]
		e.Recalled++
		e.LastRecalled = now.UTC()
		e.IdleSessions = 0
		stats[f] = e
	}
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

// update is every change to the sidecar: under its lock, load it with the log, let change edit
// the map, and write it back atomically (the log folded in) when change says it changed
// something. With freshOnCorrupt a corrupt sidecar is replaced by fresh statistics and the
// error wrapping ErrCorruptStats is returned after the write succeeded; without, it stops the
// change. Any other failure leaves the old sidecar and the log as they were.
func (s *Stats) update(ctx context.Context, freshOnCorrupt bool, change func(map[string]StatEntry) (bool, error)) error {
	unlock, err := fsutil.Lock(ctx, s.lockPath())
	if err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	defer unlock()
	return s.updateLocked(ctx, freshOnCorrupt, change)
}

// updateLocked is update for a caller that holds the lock.
func (s *Stats) updateLocked(ctx context.Context, freshOnCorrupt bool, change func(map[string]StatEntry) (bool, error)) error {
	log, err := s.readLog()
	if err != nil {
		return err
	}
	stats, mark, loadErr := s.loadSidecar(ctx)
	if loadErr != nil && !(freshOnCorrupt && errors.Is(loadErr, ErrCorruptStats)) {
		return loadErr
	}
	loadErr = cmp.Or(loadErr, log.replay(stats, mark))
	changed, err := change(stats)
	if err != nil {
		return err
	}
	if !changed && !log.unfolded(mark) {
		return loadErr
	}
	data, err := json.MarshalIndent(statsFile{Version: 1, Memories: stats, Log: log.mark()}, "", "  ")
	if err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	if err := fsutil.WriteFileFS(s.fs, s.Path(), append(data, '\n'), fsutil.FileMode); err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	// The sidecar now says it holds this log; removing it only saves the next reader the
	// skip. A failure here is harmless and not reported.
	if log.size > 0 {
		s.fs.Remove(s.logPath())
	}
	return loadErr
}
