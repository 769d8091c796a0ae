package memdir

import (
	"context"
	"slices"
	"strings"
)

// ActionIndex is the ArchiveRecord action of index lines taken out of MEMORY.md so that it fits
// its limits: the memory stays in the store and in recall, and Restore puts the lines back.
// A record of it on MEMORY.md itself holds the lines CondenseLines removed.
const ActionIndex = "index"

var (
	headingLine = lazyRegexp(`^ {0,3}(#{1,6})(?:[ \t]|$)`)
	listLine    = lazyRegexp(`^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)`)
)

// CondenseLines returns the numbers (1-based, ascending) of the index lines that carry nothing
// for the model: a memory line repeating an earlier one word for word, blank lines (one is kept
// where it parts prose), and a heading whose section is then empty. Comments and fenced blocks
// are kept whole. Taking them out changes no other line, and InsertIndexLines puts them back.
func CondenseLines(text string) []int {
	lines := splitLines(text)
	const (
		prose = iota
		blank
		entry
		list
		heading
	)
	kind := make([]int, len(lines))
	sk := skipper{lines: lines}
	for i := 0; i < len(lines); i++ {
		if end := sk.blockEnd(i); end >= 0 {
			i = end // prose, whole
			continue
		}
		switch l := strings.TrimSuffix(lines[i], "\r"); {
		case strings.TrimSpace(l) == "":
			kind[i] = blank
		case headingLine().MatchString(l):
			kind[i] = heading
		case listLine().MatchString(l):
			kind[i] = list
		}
	}
	drop := make([]bool, len(lines))
	seen := map[string]bool{}
	for _, e := range scanIndex(lines) {
		i := e.Line - 1
		kind[i] = entry
		key := strings.TrimSpace(lines[i])
		drop[i] = seen[key]
		seen[key] = true
	}
	// Blank lines: one stays in a run between two lines of prose (a paragraph break).
	for i := 0; i < len(lines); {
		if kind[i] != blank {
			i++
			continue
		}
		j := i
		for j < len(lines) && kind[j] == blank {
			j++
		}
		keep := i > 0 && j < len(lines) && kind[i-1] == prose && kind[j] == prose
		for k := i; k < j; k++ {
			drop[k] = !keep || k > i
		}
		i = j
	}
	// Headings left with nothing under them, innermost first.
	for i := len(lines) - 1; i >= 0; i-- {
		if kind[i] != heading {
			continue
		}
		level := len(headingLine().FindStringSubmatch(lines[i])[1])
		empty := true
		for j := i + 1; j < len(lines); j++ {
			if kind[j] == heading && len(headingLine().FindStringSubmatch(lines[j])[1]) <= level {
				break
			}
			if !drop[j] && kind[j] != blank {
				empty = false
				break
			}
		}
		drop[i] = empty
	}
	var out []int
	for i, d := range drop {
		if d {
			out = append(out, i+1)
		}
	}
	return out
}

// WithoutLines returns text without the lines numbered (1-based) in drop, with the lines it
// removed as RemovedLine records; the result ends in a newline unless empty.
func WithoutLines(text string, drop []int) (string, []RemovedLine) {
	lines := splitLines(text)
	var kept []string
	var gone []RemovedLine
	for i, l := range lines {
		if slices.Contains(drop, i+1) {
			gone = append(gone, RemovedLine{Line: i + 1, Text: l})
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) == 0 {
		return "", gone
	}
	return strings.Join(kept, "\n") + "\n", gone
}

// CondenseIndex takes out, under the lock, the lines CondenseLines finds in the index as it is
// then, and logs rec (completed with MEMORY.md and the lines) in the same journaled change, so
// Restore puts them back. It returns the lines taken out (none: nothing written).
func (s *Store) CondenseIndex(ctx context.Context, rec ArchiveRecord) ([]RemovedLine, error) {
	return s.takeLines(ctx, IndexFile, rec, "condense the index", func(_ *Tx, idx string) ([]int, error) {
		return CondenseLines(idx), nil
	})
}

// Unindex takes the index lines of the memory file out of MEMORY.md under the lock, leaving the
// file in the store (and in recall), and logs rec (completed with the file and the lines) in
// the same journaled change, so Restore puts them back. A file that is gone keeps its lines
// (nil is returned): it is the dangling rule's, not this one's.
func (s *Store) Unindex(ctx context.Context, file string, rec ArchiveRecord) ([]RemovedLine, error) {
	file, err := cleanRel(file)
	if err != nil {
		return nil, err
	}
	return s.takeLines(ctx, file, rec, "take the index lines of "+file+" out", func(tx *Tx, idx string) ([]int, error) {
		if taken, err := s.taken(tx.root, file); err != nil || !taken {
			return nil, err
		}
		return linesOf(idx, file), nil
	})
}

// linesOf returns the numbers of the entry lines of the index that link file.
func linesOf(idx, file string) []int {
	var out []int
	for _, e := range scanIndex(splitLines(idx)) {
		if e.File == file {
			out = append(out, e.Line)
		}
	}
	return out
}

// takeLines removes, under the lock, the index lines pick chooses and logs rec with them (its
// time and run default to now), as one journaled change; it never touches a memory file.
func (s *Store) takeLines(ctx context.Context, file string, rec ArchiveRecord, op string, pick func(tx *Tx, idx string) ([]int, error)) ([]RemovedLine, error) {
	var out []RemovedLine
	err := s.Locked(ctx, func(tx *Tx) error {
		if _, err := s.checkTarget(tx.root, IndexFile); err != nil {
			return err
		}
		oldIdx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		nums, err := pick(tx, oldIdx)
		if err != nil || len(nums) == 0 {
			return err
		}
		newIdx, gone := WithoutLines(oldIdx, nums)
		if rec.Time.IsZero() {
			rec.Time = s.opts.Now()
		}
		if rec.Run == "" {
			rec.Run = RunID(rec.Time)
		}
		rec.File, rec.ArchivedTo, rec.IndexLines = file, "", gone
		if err := s.commit(tx.root, intent{Op: op, OldIndex: oldIdx, NewIndex: newIdx, Records: []ArchiveRecord{rec}}); err != nil {
			return err
		}
		out = gone
		return nil
	})
	return out, err
}

// OutOfIndex returns the memory files whose index lines a logged step took out (Unindex) and
// that no restore has put back: they stay out of MEMORY.md on purpose, so Repair leaves them
// and Lint does not ask for their lines.
func OutOfIndex(recs []ArchiveRecord) map[string]bool {
	out := map[string]bool{}
	for _, r := range Restorable(recs) {
		if r.Action == ActionIndex && r.ArchivedTo == "" && r.File != IndexFile {
			out[r.File] = true
		}
	}
	return out
}
