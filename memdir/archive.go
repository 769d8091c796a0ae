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

// ActionConflict is the ArchiveRecord action of another version of an archived file that a sync
// kept beside it (both replicas edited the archived copy).
const ActionConflict = "conflict"

// RunID is the run id of the records logged by one run (a dream, an archiving forget) at now.
func RunID(now time.Time) string { return now.UTC().Format("20060102T150405.000000000Z") }

// ActionArchive is the ArchiveRecord action of a memory archived by a person or an agent
// (`strata memory forget --archive`, the memory_forget tools), not by a dream.
const ActionArchive = "archive"

// ActionReplace is the ArchiveRecord action of a memory file replaced by another version of it
// (an inbox proposal accepted over it): the old version is in the archive, and Restore swaps it
// back, moving the version in its place to the archive with a replace record of its own, so
// that either version can come back and neither is lost.
const ActionReplace = "replace"

// archiveDest is where file goes in the archive: .archive/file, or with a timestamp before
// ".md" when that is taken.
func (s *Store) archiveDest(root *os.Root, file string, now time.Time) (string, error) {
	dest := path.Join(ArchiveDir, file)
	stem := strings.TrimSuffix(dest, ".md") + "." + now.UTC().Format("20060102T150405.000000000Z")
	for i := 1; ; i++ {
		if taken, err := s.taken(root, dest); err != nil || !taken {
			return dest, err
		}
		dest = stem + ".md"
		if i > 1 {
			dest = fmt.Sprintf("%s-%d.md", stem, i)
		}
	}
}

// KeepVersion copies the topic file rel, as it is now, into the archive (see Forget for the
// name it gets there) before the caller replaces it, and returns the record to append to the
// archive log once the replacement is done (ActionReplace, with rel's index lines and why), so
// that Restore can put this version back. drop removes the copy, for a replacement that
// failed. ok is false, and nothing is copied, when rel does not exist.
func (t *Tx) KeepVersion(rel string, now time.Time, why string) (rec ArchiveRecord, drop func() error, ok bool, err error) {
	s, root := t.s, t.root
	if rel, err = cleanRel(rel); err != nil {
		return ArchiveRecord{}, nil, false, err
	}
	if exists, err := s.checkTarget(root, rel); err != nil || !exists {
		return ArchiveRecord{}, nil, false, err
	}
	old, err := readWhole(root, rel)
	if err != nil {
		return ArchiveRecord{}, nil, false, fmt.Errorf("memdir: keep %s: %w", s.abs(rel), err)
	}
	dest, err := s.archiveDest(root, rel, now)
	if err != nil {
		return ArchiveRecord{}, nil, false, err
	}
	if err := s.mkArchiveDir(root, dest); err != nil {
		return ArchiveRecord{}, nil, false, err
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.abs(dest), old, fsutil.FileMode); err != nil {
		root.Remove(filepath.FromSlash(dest)) // a failed directory sync comes after the rename
		return ArchiveRecord{}, nil, false, fmt.Errorf("memdir: keep %s in %s: %w", rel, dest, err)
	}
	idx, _, err := s.readIndexRaw()
	if err != nil {
		root.Remove(filepath.FromSlash(dest))
		return ArchiveRecord{}, nil, false, err
	}
	rec = ArchiveRecord{Time: now, Run: RunID(now), Action: ActionReplace, File: rel, ArchivedTo: dest, Reason: why,
		IndexLines: removedLines(idx, rel)}
	drop = func() error {
		if err := root.Remove(filepath.FromSlash(dest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memdir: remove %s: %w", s.abs(dest), err)
		}
		return nil
	}
	return rec, drop, true, nil
}

// mkArchiveDir creates the directories of the archive path dest (0700), refusing a way
// through a symlink.
func (s *Store) mkArchiveDir(root *os.Root, dest string) error {
	if _, err := s.checkTarget(root, dest); err != nil {
		return err
	}
	if err := root.MkdirAll(filepath.FromSlash(path.Dir(dest)), fsutil.DirMode); err != nil {
		return fmt.Errorf("memdir: create %s: %w", s.abs(path.Dir(dest)), err)
	}
	_, err := s.checkTarget(root, dest) // the parents again, now that they exist
	return err
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
	// SHA256 is the ContentHash of the file archived: a restore that finds the archived file
	// gone and this content in its place was already done.
	SHA256 string `json:"sha256,omitempty"`
}

// AppendArchiveLog appends rec to the archive log of the memory dir dir (created 0600, its
// directory 0700) as one JSON line, and syncs it; a log that is a symlink, FIFO or device is
// refused (fsutil.AppendFileIn).
func AppendArchiveLog(dir string, rec ArchiveRecord) error {
	rec.Time = rec.Time.UTC()
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("memdir: archive log: %w", err)
	}
	if err := fsutil.AppendFileIn(dir, filepath.FromSlash(ArchiveLogFile), append(data, '\n')); err != nil {
		return fmt.Errorf("memdir: archive log: %w", err)
	}
	return nil
}

// ReadArchiveLog returns the records of the archive log of dir, oldest first; a missing log has
// none. JSON lines and the older tab-separated lines are both read (an old line's run is its
// time, since one run stamped all its lines alike); a line that is neither (a torn last line) is
// skipped.
func ReadArchiveLog(dir string) ([]ArchiveRecord, error) {
	p := filepath.Join(dir, filepath.FromSlash(ArchiveLogFile))
	data, err := fsutil.ReadFileIn(dir, filepath.FromSlash(ArchiveLogFile), MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memdir: archive log: %w", err)
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
		if _, _, ok := restorePaths(r); !ok {
			continue // not a topic file (a rejected inbox proposal, a distilled log), or forged
		}
		restored[key] = true // an older record of the same path is not restorable twice
		out = append(out, r)
	}
	slices.Reverse(out) // log order: the order the steps were done in
	return out
}

// restorePaths returns, cleaned, the file a record gives back and the archived copy it comes
// from: a topic file and a file under .archive/, or for an index-only record a file that is
// not hidden. ok is false for any other record: the log travels with the store (sync), so a
// record is data, never a path to trust (".archive/../.git/config").
func restorePaths(r ArchiveRecord) (file, from string, ok bool) {
	file, err := cleanRel(r.File)
	if err != nil || strings.HasPrefix(file, ".") || strings.Contains(file, "/.") {
		return "", "", false
	}
	if r.ArchivedTo == "" {
		return file, "", true
	}
	from, err = cleanRel(r.ArchivedTo)
	if err != nil || !isTopicPath(file) || !strings.HasPrefix(from, ArchiveDir+"/") ||
		slices.ContainsFunc(strings.Split(from, "/"), fsutil.IsGitName) {
		return "", "", false
	}
	return file, from, true
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

// Restore undoes one archive record, as one journaled change under the lock: the file moves
// back (never over another: ErrExists), its index lines return at their line numbers (so
// records restored newest first give MEMORY.md back byte for byte), and a restore record is
// logged. It is idempotent: a file already back with the recorded content only gets its
// missing lines and record. A replace record (ActionReplace) swaps, archiving the file in its
// place with a replace record of its own; nothing is overwritten.
func (s *Store) Restore(ctx context.Context, rec ArchiveRecord, now time.Time) error {
	file, from, ok := restorePaths(rec)
	if !ok {
		return fmt.Errorf("memdir: restore: the record names %q and %q, not a memory and its copy in %s", rec.File, rec.ArchivedTo, ArchiveDir)
	}
	return s.Locked(ctx, func(tx *Tx) error {
		root := tx.root
		if _, err := s.checkTarget(root, IndexFile); err != nil {
			return err
		}
		oldIdx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		in := intent{Op: "restore " + file, OldIndex: oldIdx}
		idx := oldIdx
		restored := ArchiveRecord{Time: now, Run: rec.Run, Action: ActionRestore, File: file,
			ArchivedTo: rec.ArchivedTo, Reason: "restored from " + orDash(rec.ArchivedTo) + " (" + rec.Action + ")"}
		reindex := false
		if rec.ArchivedTo != "" {
			if _, err := s.checkTarget(root, from); err != nil {
				return err
			}
			inArchive, err := s.taken(root, from)
			if err != nil {
				return err
			}
			taken, err := s.taken(root, file)
			if err != nil {
				return err
			}
			switch {
			case !inArchive && taken && rec.SHA256 != "":
				h, err := hashOf(root, file)
				if err != nil {
					return err
				}
				if h != rec.SHA256 {
					return fmt.Errorf("memdir: restore %s: %s is gone from the archive and the file in its place is another version: %w", s.abs(file), from, ErrExists)
				}
				// Restored already: only what the index and the log may still lack.
				in.NewIndex, in.Records = idx, []ArchiveRecord{restored}
				if len(removedLines(idx, file)) == 0 {
					in.NewIndex = InsertIndexLines(idx, rec.IndexLines)
				}
				return s.commit(root, in)
			case !inArchive:
				return fmt.Errorf("memdir: restore %s: %s is not in the archive any more: %w", s.abs(file), from, fs.ErrNotExist)
			case taken && rec.Action != ActionReplace:
				return fmt.Errorf("memdir: restore %s: %w", s.abs(file), ErrExists)
			case taken:
				if _, err := s.checkTarget(root, file); err != nil {
					return err
				}
				aside, err := s.archiveDest(root, file, now)
				if err != nil {
					return err
				}
				if aside == from {
					aside = strings.TrimSuffix(aside, ".md") + "." + now.UTC().Format("20060102T150405.000000000Z") + ".md"
				}
				h, err := hashOf(root, file)
				if err != nil {
					return err
				}
				in.Moves = append(in.Moves, Move{From: file, To: aside})
				in.Records = append(in.Records, ArchiveRecord{Time: now, Run: RunID(now), Action: ActionReplace, File: file, ArchivedTo: aside,
					Reason: "replaced by restoring " + rec.ArchivedTo, IndexLines: removedLines(oldIdx, file), SHA256: h})
				if len(rec.IndexLines) > 0 {
					idx, _ = removeIndexLines(oldIdx, file)
				}
			}
			if inArchive {
				in.Moves = append(in.Moves, Move{From: from, To: file})
			}
		}
		if len(rec.IndexLines) == 0 {
			reindex = true
			in.NewIndex = oldIdx
		} else {
			in.NewIndex = InsertIndexLines(idx, rec.IndexLines)
		}
		in.Records = append(in.Records, restored)
		if err := s.commit(root, in); err != nil {
			return err
		}
		if reindex {
			_, err := s.reindex(root, file)
			return err
		}
		return nil
	})
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
// lines (nil is returned). When lines go, rec, completed with the file and the lines (its time
// and run default to now), is logged in the same journaled change, so Restore puts them back.
func (s *Store) DropIndexLines(ctx context.Context, file string, rec ArchiveRecord) ([]RemovedLine, error) {
	file, err := cleanRel(file)
	if err != nil {
		return nil, err
	}
	return s.takeLines(ctx, file, rec, "remove the index lines of "+file, func(tx *Tx, idx string) ([]int, error) {
		if taken, err := s.taken(tx.root, file); err != nil || taken {
			return nil, err
		}
		return linesOf(idx, file), nil
	})
}
