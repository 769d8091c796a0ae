package memdir

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/tokens"
)

// ErrIndexFull is wrapped by the error returned when a write would push MEMORY.md over its line
// or character limit.
var ErrIndexFull = errors.New("index over its limit")

// checkIndexLimits fails when next is over a limit (lines, or characters as tokens.Chars
// counts them) that old was not already over by as much:
// a change may never grow the index past a limit, but shrinking an index that a hand edit
// pushed over is allowed.
func (s *Store) checkIndexLimits(root *os.Root, old, next string) error {
	maxL, maxB := s.opts.MaxIndexLines, s.opts.MaxIndexBytes
	if n := countLines(next); n > maxL && n > countLines(old) {
		return fmt.Errorf("memdir: %w: %s would have %d lines, over the %d-line limit; consolidate: merge related memories into one topic file and forget the merged ones (strata memory forget NAME), or shorten the index by hand%s",
			ErrIndexFull, IndexFile, n, maxL, danglingHint(root, old))
	}
	if n := tokens.Chars(next); n > maxB && n > tokens.Chars(old) {
		return fmt.Errorf("memdir: %w: %s would be %d characters, over the %d-character limit; consolidate: shorten the descriptions (each index line should be a short hook), or merge related memories and forget the merged ones%s",
			ErrIndexFull, IndexFile, n, maxB, danglingHint(root, old))
	}
	return nil
}

// danglingHint is what an over-limit error adds when the index has lines linking files that do
// not exist (the lines lint warns about and the dream proposes to remove): "" when it has none.
func danglingHint(root *os.Root, index string) string {
	n := 0
	for _, l := range indexLinks(root, index) {
		if l.State == LinkMissing {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	if n == 1 {
		return "; 1 index line links a file that does not exist: remove it with strata memory dream --accept dangling"
	}
	return fmt.Sprintf("; %d index lines link files that do not exist: remove them with strata memory dream --accept dangling", n)
}

// IndexText is MEMORY.md as loaded for the model (the automem instruction layer).
type IndexText struct {
	Path   string // absolute path of MEMORY.md
	Exists bool   // false when there is no index yet (Text is then empty, unless Built)
	// Built: there is no MEMORY.md, and LoadIndexes built the text from the topic files, as
	// Claude Code does (nothing is written).
	Built     bool
	Text      string // the index as the model sees it, cut to the limits; no warning appended
	Truncated bool   // a limit was hit and Text is shorter than the file
	Warning   string // names the limit hit and what to do; "" unless Truncated
	Lines     int    // lines in the whole file
	Bytes     int    // bytes in the whole file (after BOM and CRLF normalisation)
	Chars     int    // characters in the whole file, as the limit counts them (tokens.Chars)
}

// Content returns Text followed by the warning when the index was cut: the text to place in
// the model's context.
func (t IndexText) Content() string {
	if !t.Truncated {
		return t.Text
	}
	text := t.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + "\n> WARNING: " + t.Warning + "\n"
}

// TruncateIndex cuts an index for loading as Claude Code does: first to maxLines lines, then to
// maxChars characters — counted as JavaScript counts them, in UTF-16 code units (tokens.Chars),
// so a Korean or Chinese index is not cut for its UTF-8 bytes — at the last newline within them
// (at a character boundary when a single line is longer). warning names every limit that cut
// the text; it is "" when nothing was cut.
func TruncateIndex(text string, maxLines, maxChars int) (out string, truncated bool, warning string) {
	cut := cutIndex(text, maxLines, maxChars)
	var why []string
	if cut.lines {
		why = append(why, fmt.Sprintf("%d lines (limit: %d lines)", countLines(text), maxLines))
	}
	if cut.chars {
		why = append(why, fmt.Sprintf("%d characters (limit: %d characters)", tokens.Chars(text), maxChars))
	}
	if len(why) == 0 {
		return text, false, ""
	}
	first := countLines(cut.text) + 1
	line, _, _ := strings.Cut(text[len(cut.text):], "\n")
	if tokens.Chars(line) > 80 {
		line = line[:tokens.CharsPrefix(line, 80)] + "…"
	}
	warning = fmt.Sprintf("%s is %s, so only part of it was loaded: %d of %d lines are left out, from line %d (%q) on. Keep each index line short and move detail into topic files; consolidate or forget memories to bring the index under the limit.",
		IndexFile, strings.Join(why, " and "), countLines(text)-first+1, countLines(text), first, line)
	return cut.text, true, warning
}

// indexCut is what loading does to an index: the text kept and which limits cut it. The
// character limit counts only when it cuts what the line limit left: a long index whose first
// 200 lines fit is cut by lines alone.
type indexCut struct {
	text         string
	lines, chars bool
}

// cutIndex is the one place that decides what of an index the model sees (LoadIndex, Lint).
func cutIndex(text string, maxLines, maxChars int) indexCut {
	c := indexCut{text: text}
	if countLines(text) > maxLines {
		idx := 0
		for range maxLines {
			idx += strings.IndexByte(c.text[idx:], '\n') + 1
		}
		c.text, c.lines = c.text[:idx], true
	}
	if n := tokens.CharsPrefix(c.text, maxChars); n < len(c.text) {
		if nl := strings.LastIndexByte(c.text[:n], '\n'); nl >= 0 {
			n = nl + 1
		}
		c.text, c.chars = c.text[:n], true
	}
	return c
}

// LoadIndex reads MEMORY.md for the model: cut to the store's limits (200 lines, then 25,000
// characters at the last newline by default; see TruncateIndex) with a warning naming the limit hit. A missing index
// is not an error. The file is read without following a symlink out of the memory dir.
func (s *Store) LoadIndex(ctx context.Context) (IndexText, error) {
	t := IndexText{Path: s.IndexPath()}
	if err := ctx.Err(); err != nil {
		return t, err
	}
	data, ok, err := s.readIndexRaw()
	if err != nil || !ok {
		return t, err
	}
	raw := string(frontmatter.Normalize([]byte(data)))
	t.Exists = true
	t.Lines, t.Bytes, t.Chars = countLines(raw), len(raw), tokens.Chars(raw)
	t.Text, t.Truncated, t.Warning = TruncateIndex(raw, s.opts.MaxIndexLines, s.opts.MaxIndexBytes)
	return t, nil
}

// readIndexRaw returns MEMORY.md byte for byte (writers keep every line they do not change as
// it was); ok is false when it does not exist.
func (s *Store) readIndexRaw() (text string, ok bool, err error) {
	root, exists, err := s.openRoot()
	if err != nil || !exists {
		return "", false, err
	}
	defer root.Close()
	data, err := readWhole(root, IndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("memdir: read %s: %w", s.IndexPath(), err)
	}
	return string(data), true, nil
}

// LinkState is what the memory dir holds at the file an index entry links.
type LinkState int

// The states of an index link. Only LinkMissing makes a line dangle: Lint warns about it and
// the dream proposes removing the line; a directory or an unreadable target is reported, never
// removed.
const (
	LinkOK         LinkState = iota // a file (a symlink to one inside the dir included)
	LinkMissing                     // nothing there: the line dangles
	LinkDir                         // a directory
	LinkUnreadable                  // Stat failed for another reason (IndexLink.Err says why)
)

// IndexLink is an index entry and what its file is on disk.
type IndexLink struct {
	IndexEntry
	State LinkState
	Err   error // the Stat error when State is LinkUnreadable
}

// Index is MEMORY.md as it is on disk, with its entries (ParseIndex) and their targets.
type Index struct {
	Path   string      // absolute path of MEMORY.md
	Exists bool        // false when there is no index (Raw and Links are then empty)
	Raw    string      // the file byte for byte
	Links  []IndexLink // every entry in order, duplicates included
}

// ReadIndex reads MEMORY.md without following a symlink out of the memory dir, parses it and
// looks up what each entry links. A missing index is not an error. Lint and the dream both
// decide which lines dangle from it.
func (s *Store) ReadIndex(ctx context.Context) (Index, error) {
	ix := Index{Path: s.IndexPath()}
	if err := ctx.Err(); err != nil {
		return ix, err
	}
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return ix, err
	}
	defer root.Close()
	raw, ok, err := s.readIndexRaw()
	if err != nil || !ok {
		return ix, err
	}
	ix.Exists, ix.Raw, ix.Links = true, raw, indexLinks(root, raw)
	return ix, nil
}

// indexLinks parses raw and stats each entry's file through root.
func indexLinks(root *os.Root, raw string) []IndexLink {
	entries := ParseIndex([]byte(raw))
	out := make([]IndexLink, 0, len(entries))
	for _, e := range entries {
		l := IndexLink{IndexEntry: e}
		fi, err := root.Stat(filepath.FromSlash(e.File))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.State = LinkMissing
		case err != nil:
			l.State, l.Err = LinkUnreadable, err
		case fi.IsDir():
			l.State = LinkDir
		}
		out = append(out, l)
	}
	return out
}

// LoadIndexes reads the MEMORY.md of several stores for one context, the project's first: the
// index limits of the first store apply to the indexes' total, not to each. Every index gets an
// equal share of the lines, then of the characters; what an index needs less than its share
// goes to the others, and what does not divide evenly to the earlier ones, so an index that
// fits its share is never cut and the project's is cut last among equals. Each index is cut to
// its share as LoadIndex cuts one (cutIndex), with a warning that says the limits are shared.
// A store with topic files and no MEMORY.md gets an index built from the files (Built), as
// Claude Code builds one. view, when set, gives each index as the model reads it before the
// limits apply (Claude Code strips frontmatter and comments first, so they do not count).
// errs[i] is the error reading stores[i]'s index (that index then counts as missing).
func LoadIndexes(ctx context.Context, stores []*Store, view func(string) string) (idx []IndexText, errs []error) {
	idx = make([]IndexText, len(stores))
	errs = make([]error, len(stores))
	if len(stores) == 0 {
		return idx, errs
	}
	raws := make([]string, len(stores))
	for i, s := range stores {
		idx[i] = IndexText{Path: s.IndexPath()}
		if err := ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		data, ok, err := s.readIndexRaw()
		if err == nil && !ok {
			if data = s.builtIndex(ctx); data != "" {
				ok, idx[i].Built = true, true
			}
		}
		if err != nil || !ok {
			errs[i] = err
			continue
		}
		raw := string(frontmatter.Normalize([]byte(data)))
		idx[i].Exists = true
		idx[i].Lines, idx[i].Bytes, idx[i].Chars = countLines(raw), len(raw), tokens.Chars(raw)
		if view != nil {
			raw = view(raw)
		}
		raws[i] = raw
	}
	maxLines, maxChars := stores[0].opts.MaxIndexLines, stores[0].opts.MaxIndexBytes
	needLines := make([]int, len(stores))
	for i, raw := range raws {
		needLines[i] = countLines(raw)
	}
	lineShare := fairShares(needLines, maxLines)
	needChars := make([]int, len(stores))
	for i, raw := range raws {
		needChars[i] = tokens.Chars(cutIndex(raw, lineShare[i], math.MaxInt).text)
	}
	charShare := fairShares(needChars, maxChars)
	present := 0
	for _, t := range idx {
		if t.Exists {
			present++
		}
	}
	for i, raw := range raws {
		if !idx[i].Exists {
			continue
		}
		idx[i].Text, idx[i].Truncated, idx[i].Warning = TruncateIndex(raw, lineShare[i], charShare[i])
		if idx[i].Truncated && present > 1 {
			idx[i].Warning += fmt.Sprintf(" The %d memory stores' indexes share the limits of %d lines and %d characters; this one's share was %d lines and %d characters.",
				present, maxLines, maxChars, lineShare[i], charShare[i])
		}
	}
	return idx, errs
}

// builtIndex is the index Claude Code builds when MEMORY.md is missing: one line per topic
// file, in file order; "" for none.
func (s *Store) builtIndex(ctx context.Context) string {
	mems, _, err := s.List(ctx)
	if err != nil || len(mems) == 0 {
		return ""
	}
	slices.SortFunc(mems, func(a, b Memory) int { return cmp.Compare(a.File, b.File) })
	var b strings.Builder
	for _, m := range mems {
		b.WriteString(FormatIndexLine(m.Name, m.File, m.Description))
		b.WriteByte('\n')
	}
	return b.String()
}

// fairShares divides total among needs: each gets what it needs when that is no more than an
// equal share of what is left, the rest split evenly, the remainder of the division going to
// the earlier ones.
func fairShares(needs []int, total int) []int {
	shares := make([]int, len(needs))
	order := make([]int, len(needs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(needs[a], needs[b]) })
	left := total
	for k, i := range order {
		rest := len(order) - k
		if needs[i]*rest <= left {
			shares[i] = needs[i]
			left -= needs[i]
			continue
		}
		// Everyone from here on needs more than an equal share: split what is left evenly.
		big := append([]int(nil), order[k:]...)
		slices.Sort(big) // the remainder goes to the earlier stores
		for j, b := range big {
			shares[b] = left / rest
			if j < left%rest {
				shares[b]++
			}
		}
		break
	}
	return shares
}
