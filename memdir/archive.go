package memdir

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// ArchiveLogFile is the log of everything moved into (and back out of) the archive, relative to
// the memory dir: one JSON object a line (ArchiveRecord). Older strata wrote tab-separated text
// lines (time, action, file, archived to, survivor, reason); ReadArchiveLog still reads them.
const ArchiveLogFile = ArchiveDir + "/ARCHIVE.log"

// ErrExists is wrapped by the error Restore returns when a memory file already exists where the
// archived one would go back: restoring never overwrites.
var ErrExists = errors.New("a memory file already exists there")

// ActionRestore is the ArchiveRecord action of a restore.
const ActionRestore = "restore"

// RunID is the run id of the records logged by one run (a dream, an archiving forget) at now.
func RunID(now time.Time) string { return now.UTC().Format("20060102T150405.000000000Z") }

// ActionArchive is the ArchiveRecord action of a memory archived by a person or an agent
// (`strata memory forget --archive`, the memory_forget tools), not by a dream.
const ActionArchive = "archive"

// LogArchived appends the archive-log record of a Forget that archived (res.ArchivedTo set), with
// the index lines it removed, so that Restore puts the memory back; why says who asked. A Forget
// that deleted the file or removed only index lines logs nothing (there is nothing to restore).
func (s *Store) LogArchived(res ForgetResult, now time.Time, why string) error {
	if res.ArchivedTo == "" || res.File == "" {
		return nil
	}
	return AppendArchiveLog(s.dir, ArchiveRecord{Time: now, Run: RunID(now), Action: ActionArchive,
		File: res.File, ArchivedTo: res.ArchivedTo, Reason: why, IndexLines: res.Removed})
}

// RemovedLine is one MEMORY.md line that a Forget removed: its 1-based line number in the index
// as it was just before, and its bytes (without the newline).
type RemovedLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ArchiveRecord is one line of the archive log: what happened to one file, when, in which run,
// why, and the index lines that went with it, so that Restore can put back exactly what was there.
type ArchiveRecord struct {
	Time       time.Time     `json:"time"`
	Run        string        `json:"run,omitempty"`         // the run (dream, inbox review …) it belongs to
	Action     string        `json:"action"`                // merge, supersede, forget, dangling, distil, reject, restore …
	File       string        `json:"file"`                  // the file acted on, relative to the memory dir
	ArchivedTo string        `json:"archived_to,omitempty"` // where it went ("" when only index lines went)
	Survivor   string        `json:"survivor,omitempty"`    // what was kept instead
	Reason     string        `json:"reason,omitempty"`
	IndexLines []RemovedLine `json:"index_lines,omitempty"` // the MEMORY.md lines removed
}

// AppendArchiveLog appends rec to the archive log of the memory dir dir (created 0600, its
// directory 0700) as one JSON line, and syncs it.
func AppendArchiveLog(dir string, rec ArchiveRecord) error {
	p := filepath.Join(dir, filepath.FromSlash(ArchiveLogFile))
	if err := os.MkdirAll(filepath.Dir(p), fsutil.DirMode); err != nil {
		return fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	rec.Time = rec.Time.UTC()
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fsutil.FileMode)
	if err != nil {
		return fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	_, werr := f.Write(append(data, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	return nil
}

// ReadArchiveLog returns the records of the archive log of dir, oldest first; a missing log has
// none. JSON lines and the older tab-separated lines are both read (an old line's run is its
// time, since one run stamped all its lines alike); a line that is neither (a torn last line) is
// skipped.
func ReadArchiveLog(dir string) ([]ArchiveRecord, error) {
	p := filepath.Join(dir, filepath.FromSlash(ArchiveLogFile))
	data, err := fsutil.ReadRegular(p, MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	var out []ArchiveRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if rec, ok := parseArchiveLine(line); ok {
			out = append(out, rec)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("memdir: archive log %s: %w", p, err)
	}
	return out, nil
}

func parseArchiveLine(line string) (ArchiveRecord, bool) {
	var rec ArchiveRecord
	if strings.HasPrefix(line, "{") {
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Action == "" {
			return ArchiveRecord{}, false
		}
		return rec, true
	}
	f := strings.SplitN(line, "\t", 6)
	if len(f) < 5 {
		return ArchiveRecord{}, false
	}
	t, err := time.Parse(time.RFC3339, f[0])
	if err != nil {
		return ArchiveRecord{}, false
	}
	rec = ArchiveRecord{Time: t, Run: f[0], Action: f[1], File: f[2], ArchivedTo: f[3], Survivor: f[4]}
	if len(f) == 6 {
		rec.Reason = f[5]
	}
	if rec.ArchivedTo == "-" {
		rec.ArchivedTo = ""
	}
	if rec.Survivor == "-" {
		rec.Survivor = ""
	}
	return rec, true
}

// Restorable returns the records whose file is still in the archive: archived (or, for a
// dangling line, removed from the index) and not restored since, oldest first. A later restore
// record of the same archived path (or, for index-only records, of the same file and run) undoes
// an earlier record.
func Restorable(recs []ArchiveRecord) []ArchiveRecord {
	restored := map[string]bool{}
	var out []ArchiveRecord
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		key := restoreKey(r)
		if r.Action == ActionRestore {
			restored[key] = true
			continue
		}
		if r.ArchivedTo == "" && len(r.IndexLines) == 0 || restored[key] {
			continue
		}
		if r.ArchivedTo != "" && !strings.HasPrefix(r.ArchivedTo, ArchiveDir+"/") {
			continue
		}
		if r.ArchivedTo != "" && path.Ext(r.File) != ".md" || strings.HasPrefix(r.File, ".") {
			continue // not a topic file (a rejected inbox proposal, a distilled log)
		}
		restored[key] = true // an older record of the same path is not restorable twice
		out = append(out, r)
	}
	slices.Reverse(out) // log order: the order the steps were done in
	return out
}

func restoreKey(r ArchiveRecord) string {
	if r.ArchivedTo != "" {
		return "a:" + r.ArchivedTo
	}
	return "i:" + r.Run + "\x00" + r.File
}

// LastRun returns the restorable records of the newest run among recs whose action is one of
// actions (all actions when none are given), and the run's id.
func LastRun(recs []ArchiveRecord, actions ...string) (run string, out []ArchiveRecord) {
	want := func(a string) bool {
		if len(actions) == 0 {
			return true
		}
		for _, x := range actions {
			if x == a {
				return true
			}
		}
		return false
	}
	var last time.Time
	for _, r := range recs {
		if want(r.Action) && r.Action != ActionRestore && (run == "" || !r.Time.Before(last)) {
			run, last = r.Run, r.Time
		}
	}
	if run == "" {
		return "", nil
	}
	for _, r := range Restorable(recs) {
		if r.Run == run {
			out = append(out, r)
		}
	}
	return run, out
}

// Restore undoes one archive record under the directory's lock: the archived file moves back to
// its place (never over an existing file: ErrExists) and its index lines are put back at the
// line numbers they had. Records restored newest first therefore give back MEMORY.md byte for
// byte when nothing else changed it. A record without index lines (an old text log line) gets
// the line strata writes for the file. A restore record is appended to the archive log.
func (s *Store) Restore(ctx context.Context, rec ArchiveRecord, now time.Time) error {
	file, err := cleanRel(rec.File)
	if err != nil {
		return err
	}
	err = s.Locked(ctx, func(tx *Tx) error {
		root := tx.root
		if _, err := s.checkTarget(root, IndexFile); err != nil {
			return err
		}
		moved := false
		if rec.ArchivedTo != "" {
			from, err := cleanRel(rec.ArchivedTo)
			if err != nil {
				return err
			}
			if taken, err := s.taken(root, file); err != nil {
				return err
			} else if taken {
				return fmt.Errorf("memdir: restore %s: %w", s.abs(file), ErrExists)
			}
			if _, err := s.checkTarget(root, from); err != nil {
				return err
			}
			if err := root.MkdirAll(filepath.FromSlash(path.Dir(file)), fsutil.DirMode); err != nil {
				return fmt.Errorf("memdir: restore %s: %w", file, err)
			}
			if _, err := s.checkTarget(root, file); err != nil {
				return err
			}
			if err := s.opts.FS.Rename(s.abs(from), s.abs(file)); err != nil {
				return fmt.Errorf("memdir: restore %s from %s: %w", file, from, err)
			}
			moved = true
		}
		back := func(err error) error {
			if moved {
				if rerr := s.opts.FS.Rename(s.abs(file), s.abs(rec.ArchivedTo)); rerr != nil {
					err = errors.Join(err, fmt.Errorf("memdir: move %s back: %w", file, rerr))
				}
			}
			return err
		}
		if len(rec.IndexLines) == 0 {
			if _, err := s.reindex(root, file); err != nil {
				return back(err)
			}
			return nil
		}
		oldIdx, _, err := s.readIndexRaw()
		if err != nil {
			return back(err)
		}
		newIdx := InsertIndexLines(oldIdx, rec.IndexLines)
		if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(newIdx), fsutil.FileMode); err != nil {
			err = fmt.Errorf("memdir: restore %s: update index: %w", file, err)
			return back(errors.Join(err, s.restoreIndex(root, oldIdx)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return AppendArchiveLog(s.dir, ArchiveRecord{Time: now, Run: rec.Run, Action: ActionRestore, File: file,
		ArchivedTo: rec.ArchivedTo, Reason: "restored from " + orDash(rec.ArchivedTo) + " (" + rec.Action + ")"})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// InsertIndexLines returns the index with lines put back at their line numbers, in ascending
// order (each number is where the line was before the lines after it were removed); a number
// past the end appends. It is the inverse of WithoutIndexLines given the lines that removed.
func InsertIndexLines(text string, lines []RemovedLine) string {
	if len(lines) == 0 {
		return text
	}
	ls := append([]RemovedLine(nil), lines...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Line < ls[j].Line })
	cur := splitLines(text)
	for _, l := range ls {
		i := min(max(l.Line-1, 0), len(cur))
		cur = append(cur[:i], append([]string{l.Text}, cur[i:]...)...)
	}
	return strings.Join(cur, "\n") + "\n"
}

// removedLines returns the entry lines of text that link file, as RemovedLine records.
func removedLines(text, file string) []RemovedLine {
	lines := splitLines(text)
	var out []RemovedLine
	for _, e := range scanIndex(lines) {
		if e.File == file {
			out = append(out, RemovedLine{Line: e.Line, Text: lines[e.Line-1]})
		}
	}
	return out
}

// DropIndexLines removes, under the lock, the index lines linking file when no file is there (a
// dangling line), and returns them; it never touches a memory. A file that exists keeps its
// lines (nil is returned).
func (s *Store) DropIndexLines(ctx context.Context, file string) ([]RemovedLine, error) {
	file, err := cleanRel(file)
	if err != nil {
		return nil, err
	}
	var out []RemovedLine
	err = s.Locked(ctx, func(tx *Tx) error {
		if taken, err := s.taken(tx.root, file); err != nil || taken {
			return err
		}
		if _, err := s.checkTarget(tx.root, IndexFile); err != nil {
			return err
		}
		oldIdx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		newIdx, n := removeIndexLines(oldIdx, file)
		if n == 0 {
			return nil
		}
		if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(newIdx), fsutil.FileMode); err != nil {
			err = fmt.Errorf("memdir: remove the index lines of %s: %w", file, err)
			return errors.Join(err, s.restoreIndex(tx.root, oldIdx))
		}
		out = removedLines(oldIdx, file)
		return nil
	})
	return out, err
}
