package memdir

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/strata-mem/strata/internal/fsutil"
)

// JournalFile holds the intent of the multi-file change in progress (an archiving, a restore,
// an index line removed with its record), relative to the memory dir. It is written whole
// before anything moves and removed once the change and its archive-log records are done; a
// command that takes the lock and finds it completes the change or undoes it (see recover).
const JournalFile = ArchiveDir + "/JOURNAL"

// Move is one rename of a journaled change: From to To, both relative to the memory dir.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// intent is what the journal holds: the renames in order, MEMORY.md before and after, and the
// archive-log records that complete the change.
type intent struct {
	Op       string          `json:"op"`
	Moves    []Move          `json:"moves,omitempty"`
	OldIndex string          `json:"old_index"`
	NewIndex string          `json:"new_index"`
	Records  []ArchiveRecord `json:"records,omitempty"`
}

// ErrChanged is wrapped by the error of a change refused because a file it was planned on
// changed since (see Archive's expect).
var ErrChanged = errors.New("changed since it was planned")

// ContentHash is the hash archive records and dream plans carry for a file's content: hex
// SHA-256.
func ContentHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// hashOf returns the ContentHash of the regular file rel, "" when nothing is there.
func hashOf(root *os.Root, rel string) (string, error) {
	data, err := readWhole(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("memdir: read %s: %w", rel, err)
	}
	return ContentHash(data), nil
}

// commit carries out in under the lock: journal, renames, index, records, journal removed. A
// failure undoes what was done (and leaves the journal only when even that fails, for the next
// command to settle).
func (s *Store) commit(root *os.Root, in intent) error {
	for i := range in.Records {
		in.Records[i].Time = in.Records[i].Time.UTC()
	}
	data, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("memdir: journal: %w", err)
	}
	if err := s.mkArchiveDir(root, JournalFile); err != nil {
		return err
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.abs(JournalFile), data, fsutil.FileMode); err != nil {
		// Nothing moved yet: a journal that reached the disk all the same only goes.
		return errors.Join(fmt.Errorf("memdir: journal %s: %w", s.abs(JournalFile), err), s.dropJournal())
	}
	fail := func(err error) error {
		if rerr := s.rollBack(root, in); rerr != nil {
			return errors.Join(err, fmt.Errorf("memdir: undo (the next write retries): %w", rerr))
		}
		return err
	}
	for _, m := range in.Moves {
		if err := s.move(root, m); err != nil {
			return fail(err)
		}
	}
	if in.NewIndex != in.OldIndex {
		if err := s.writeIndex(in.NewIndex); err != nil {
			return fail(fmt.Errorf("memdir: %s: update index: %w", in.Op, err))
		}
	}
	for _, r := range in.Records {
		if err := s.appendRecord(r); err != nil {
			return fail(err)
		}
	}
	return s.dropJournal()
}

// move renames m.From to m.To, creating To's directories, never through a symlink, and makes
// both directories durable.
func (s *Store) move(root *os.Root, m Move) error {
	if _, err := s.checkTarget(root, m.From); err != nil {
		return err
	}
	if err := s.mkArchiveDir(root, m.To); err != nil {
		return err
	}
	if taken, err := s.taken(root, m.To); err != nil {
		return err
	} else if taken {
		return fmt.Errorf("memdir: move %s to %s: %w", m.From, m.To, ErrExists)
	}
	if err := s.opts.FS.Rename(s.abs(m.From), s.abs(m.To)); err != nil {
		return fmt.Errorf("memdir: move %s to %s: %w", m.From, m.To, err)
	}
	for _, d := range []string{path.Dir(m.To), path.Dir(m.From)} {
		if err := s.opts.FS.SyncDir(s.abs(d)); err != nil {
			return fmt.Errorf("memdir: move %s to %s: sync dir: %w", m.From, m.To, err)
		}
	}
	return nil
}

// writeIndex replaces MEMORY.md with text ("" removes it).
func (s *Store) writeIndex(text string) error {
	if text == "" {
		if err := s.opts.FS.Remove(s.IndexPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(text), fsutil.FileMode)
}

// appendRecord appends r to the archive log (through the FS seam first, so that a test can stop
// the run just before).
func (s *Store) appendRecord(r ArchiveRecord) error {
	if err := s.opts.FS.MkdirAll(s.abs(ArchiveDir), fsutil.DirMode); err != nil {
		return fmt.Errorf("memdir: archive log: %w", err)
	}
	return AppendArchiveLog(s.dir, r)
}

func (s *Store) dropJournal() error {
	if err := s.opts.FS.Remove(s.abs(JournalFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memdir: remove %s: %w", s.abs(JournalFile), err)
	}
	return nil
}

// moveDone reports whether m has happened: To exists and From does not.
func (s *Store) moveDone(root *os.Root, m Move) (bool, error) {
	to, err := s.taken(root, m.To)
	if err != nil || !to {
		return false, err
	}
	from, err := s.taken(root, m.From)
	return !from, err
}

// rollBack undoes the renames of in that happened, newest first, and puts the old index back
// when the new one is in place; then removes the journal.
func (s *Store) rollBack(root *os.Root, in intent) error {
	for i := len(in.Moves) - 1; i >= 0; i-- {
		m := in.Moves[i]
		done, err := s.moveDone(root, m)
		if err != nil {
			return err
		}
		if done {
			if err := s.move(root, Move{From: m.To, To: m.From}); err != nil {
				return err
			}
		}
	}
	if in.NewIndex != in.OldIndex {
		cur, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		if cur == in.NewIndex {
			if err := s.writeIndex(in.OldIndex); err != nil {
				return fmt.Errorf("memdir: put back %s: %w", s.IndexPath(), err)
			}
		}
	}
	return s.dropJournal()
}

// rollForward finishes in: the renames not done, the new index when the old one is still in
// place, the records the log does not hold yet; then removes the journal.
func (s *Store) rollForward(root *os.Root, in intent) error {
	for _, m := range in.Moves {
		from, err := s.taken(root, m.From)
		if err != nil {
			return err
		}
		to, err := s.taken(root, m.To)
		if err != nil {
			return err
		}
		if from && !to {
			if err := s.move(root, m); err != nil {
				return err
			}
		}
	}
	if in.NewIndex != in.OldIndex {
		cur, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		if cur == in.OldIndex {
			if err := s.writeIndex(in.NewIndex); err != nil {
				return fmt.Errorf("memdir: %s: update index: %w", in.Op, err)
			}
		} else if cur != in.NewIndex {
			s.log.Warn("memdir: MEMORY.md changed during an interrupted change; left as it is (strata memory lint)", "op", in.Op)
		}
	}
	logged, err := s.loggedLines()
	if err != nil {
		return err
	}
	for _, r := range in.Records {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if logged[string(line)] {
			continue
		}
		if err := s.appendRecord(r); err != nil {
			return err
		}
	}
	return s.dropJournal()
}

// loggedLines returns the set of lines of the archive log.
func (s *Store) loggedLines() (map[string]bool, error) {
	data, err := fsutil.ReadFileIn(s.Dir(), filepath.FromSlash(ArchiveLogFile), MaxWholeRead)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memdir: archive log: %w", err)
	}
	out := map[string]bool{}
	for _, l := range bytes.Split(data, []byte("\n")) {
		out[string(bytes.TrimSpace(l))] = true
	}
	return out, nil
}

// recover settles the change a killed command left in the journal, under the lock: rolled
// forward when any of it happened (a rename, or the new index in place), so nothing is left
// half-done and every record is written; undone (nothing to undo but the journal) otherwise.
func (s *Store) recover(root *os.Root) error {
	if fi, err := root.Lstat(ArchiveDir); err != nil || !fi.IsDir() {
		return nil // no archive, or not one strata made (a symlink is refused by any write to it)
	}
	data, err := readWhole(root, JournalFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("memdir: journal %s: %w", s.abs(JournalFile), err)
	}
	var in intent
	if err := json.Unmarshal(data, &in); err != nil {
		// A journal is written whole (temp file, rename) or not at all: this one was not written
		// by strata. Keep it for a person to look at, out of the way.
		bad := JournalFile + ".bad"
		s.log.Warn("memdir: journal not readable; moved aside", "path", s.abs(JournalFile), "to", bad, "err", err)
		return s.opts.FS.Rename(s.abs(JournalFile), s.abs(bad))
	}
	progressed := false
	for _, m := range in.Moves {
		done, err := s.moveDone(root, m)
		if err != nil {
			return err
		}
		progressed = progressed || done
	}
	if !progressed && in.NewIndex != in.OldIndex {
		cur, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		progressed = cur == in.NewIndex
	}
	if progressed {
		s.log.Info("memdir: completing an interrupted change", "op", in.Op)
		err = s.rollForward(root, in)
	} else {
		s.log.Info("memdir: undoing an interrupted change", "op", in.Op)
		err = s.rollBack(root, in)
	}
	if err != nil {
		return fmt.Errorf("memdir: settle the interrupted %s in %s: %w", in.Op, s.abs(JournalFile), err)
	}
	return nil
}

// Recover takes the lock and settles a change a killed command left half-done (see JournalFile);
// every write does so when it takes the lock, and a reader of the archive log calls it first.
func (s *Store) Recover(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(JournalFile))); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return s.Locked(ctx, func(*Tx) error { return nil })
}
