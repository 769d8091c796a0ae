package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// StatsLogFile is the recall log beside the sidecar: one JSON line per recorded recall, after a
// header line that names the log's generation. Stats.Load adds what it holds to the sidecar's
// counts; a fold writes it into the sidecar and removes it.
const StatsLogFile = ".recall-stats.log"

// StatsLogFold is the size in bytes from which Stats.Record folds the recall log into the
// sidecar: a few thousand recalls, so the sidecar (one entry per memory) is rewritten that
// much less often than once per recall.
const StatsLogFold = 256 << 10

// logMark, kept in the sidecar, says that the first Folded bytes of the log of generation Gen
// are counted in it: a crash between writing the sidecar and removing the log counts nothing
// twice.
type logMark struct {
	Gen    uint64 `json:"gen"`
	Folded int64  `json:"folded"`
}

type logHeader struct {
	Gen uint64 `json:"gen"`
}

type logRecord struct {
	At    time.Time `json:"at"`
	Files []string  `json:"files"`
}

// statsLog is the recall log as read.
type statsLog struct {
	path string
	gen  uint64 // 0: no header (a torn first write)
	data []byte
	size int64
}

func (s *Stats) logPath() string { return filepath.Join(s.dir, StatsLogFile) }

// readLog reads the recall log; a missing one is empty.
func (s *Stats) readLog() (statsLog, error) {
	l := statsLog{path: s.logPath()}
	data, err := fsutil.ReadRegular(l.path, memdir.MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("recall: read %s: %w", l.path, err)
	}
	l.data, l.size = data, int64(len(data))
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		var h logHeader
		if json.Unmarshal(data[:i], &h) == nil && h.Gen != 0 {
			l.gen = h.Gen
		}
	}
	return l, nil
}

// logGen returns the generation of the recall log now on disk: 0 when there is none or its
// header is torn.
func (s *Stats) logGen() uint64 {
	f, _, err := fsutil.OpenRegular(s.logPath(), math.MaxInt64)
	if err != nil {
		return 0
	}
	defer f.Close()
	var buf [64]byte
	n, _ := io.ReadFull(f, buf[:])
	i := bytes.IndexByte(buf[:n], '\n')
	var h logHeader
	if i < 0 || json.Unmarshal(buf[:i], &h) != nil {
		return 0
	}
	return h.Gen
}

// replay counts the logged recalls that the sidecar (its mark) does not hold yet. A line
// without its newline (the last, torn by a crash) is skipped; a bad complete line is skipped
// and reported, wrapping ErrCorruptStats.
func (l statsLog) replay(stats map[string]StatEntry, mark *logMark) error {
	start := int64(0)
	if l.gen != 0 {
		start = int64(bytes.IndexByte(l.data, '\n') + 1) // after the header
		if mark != nil && mark.Gen == l.gen {
			start = max(start, mark.Folded)
		}
	}
	var bad []int
	line := 1 + bytes.Count(l.data[:min(start, l.size)], []byte{'\n'})
	for rest := l.data[min(start, l.size):]; len(rest) > 0; line++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break // torn by a crash while appending: that recall is lost, nothing else
		}
		var r logRecord
		if err := json.Unmarshal(rest[:i], &r); err != nil || r.Files == nil {
			if line != 1 { // line 1 is the header (or what a crash left of it)
				bad = append(bad, line)
			}
		} else {
			countRecall(stats, r.Files, r.At)
		}
		rest = rest[i+1:]
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s: lines %v are not recall records (skipped)", ErrCorruptStats, l.path, bad)
	}
	return nil
}

// complete is the length of the log's complete lines: a torn tail is not part of it (the next
// append cuts it off).
func (l statsLog) complete() int64 { return int64(bytes.LastIndexByte(l.data, '\n') + 1) }

// unfolded reports whether the log holds recalls the sidecar marked by mark does not.
func (l statsLog) unfolded(mark *logMark) bool {
	return l.complete() > 0 && !(mark != nil && l.gen != 0 && mark.Gen == l.gen && mark.Folded >= l.complete())
}

// mark is what a sidecar that folds this whole log records.
func (l statsLog) mark() *logMark {
	if l.complete() == 0 || l.gen == 0 {
		return nil
	}
	return &logMark{Gen: l.gen, Folded: l.complete()}
}

// appendRecall is Record: under the lock, one line appended to the log and synced (a header
// first when the log is new; a line a crash left torn is cut off first), then a fold when the
// log has grown past foldAt.
func (s *Stats) appendRecall(ctx context.Context, files []string, now time.Time) error {
	unlock, err := fsutil.Lock(ctx, s.lockPath())
	if err != nil {
		return fmt.Errorf("recall: stats: %w", err)
	}
	defer unlock()
	size, err := s.appendLine(logRecord{At: now.UTC(), Files: files})
	if err != nil {
		return err
	}
	if size < s.foldAt {
		return nil
	}
	if err := s.updateLocked(ctx, true, func(map[string]StatEntry) (bool, error) { return false, nil }); err != nil {
		return fmt.Errorf("recall: stats: folding the recall log: %w", err)
	}
	return nil
}

// appendLine appends r to the log and returns the log's size after it.
func (s *Stats) appendLine(r logRecord) (int64, error) {
	path := s.logPath()
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("recall: stats: %s: %w", path, fsutil.ErrNotRegular)
	}
	if err := s.fs.MkdirAll(s.dir, fsutil.DirMode); err != nil {
		return 0, fmt.Errorf("recall: stats: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, fsutil.FileMode)
	if err != nil {
		return 0, fmt.Errorf("recall: stats: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("recall: stats: %w", err)
	}
	size := fi.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return 0, fmt.Errorf("recall: stats: %s: %w", path, err)
		}
		if last[0] != '\n' {
			// A crash tore the last line: cut it off (that recall is lost), so this
			// record stands on its own line and the marks of folds stay on line ends.
			if size, err = cutTorn(f, size); err != nil {
				return 0, fmt.Errorf("recall: stats: %s: %w", path, err)
			}
		}
	}
	var buf []byte
	if size == 0 {
		buf, _ = json.Marshal(logHeader{Gen: rand.Uint64() | 1})
		buf = append(buf, '\n')
	}
	rec, err := json.Marshal(r)
	if err != nil {
		return 0, fmt.Errorf("recall: stats: %w", err)
	}
	buf = append(append(buf, rec...), '\n')
	if _, err := f.Write(buf); err != nil {
		return 0, fmt.Errorf("recall: stats: append %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("recall: stats: sync %s: %w", path, err)
	}
	return size + int64(len(buf)), nil
}

// cutTorn truncates f, of size bytes, after its last newline and returns the new size.
func cutTorn(f *os.File, size int64) (int64, error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return 0, err
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	return keep, f.Truncate(keep)
}
