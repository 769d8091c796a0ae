package memdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/frontmatter"
)

// IndexEntry is one line of MEMORY.md that links a topic file: "- [Title](file.md) — hook".
type IndexEntry struct {
	Line  int    // 1-based line in MEMORY.md
	Title string // link text, unescaped
	File  string // link target: a slash-separated path relative to the memory dir, cleaned
	Hook  string // text after the link, without the leading dash
}

// ParseIndexLine parses one index line. ok is false for lines that are not a list item
// starting with a link to a relative file (headings, prose, links to URLs). Accepted forms:
// "- [T](f.md) — hook", "* [T](./f.md): hook", "- [T](<my file.md>)", "- [T](f.md#part)".
func ParseIndexLine(line string) (e IndexEntry, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if len(s) < 2 || (s[0] != '-' && s[0] != '*' && s[0] != '+') || (s[1] != ' ' && s[1] != '\t') {
		return IndexEntry{}, false
	}
	s = strings.TrimLeft(s[2:], " \t")
	if !strings.HasPrefix(s, "[") {
		return IndexEntry{}, false
	}
	// Link text: up to the matching ']' (backslash escapes and nested brackets allowed).
	var title strings.Builder
	depth, i := 0, 1
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && isMarkdownPunct(s[i+1]) {
			title.WriteByte(s[i+1])
			i++
			continue
		}
		if c == '[' {
			depth++
		} else if c == ']' {
			if depth == 0 {
				break
			}
			depth--
		}
		title.WriteByte(c)
	}
	if i >= len(s) || i+1 >= len(s) || s[i+1] != '(' {
		return IndexEntry{}, false
	}
	s = s[i+2:]
	var target, rest string
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		if end < 0 || end+1 >= len(s) || s[end+1] != ')' {
			return IndexEntry{}, false
		}
		target, rest = s[1:end], s[end+2:]
	} else {
		depth, j := 0, 0
		for ; j < len(s); j++ {
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		if j >= len(s) {
			return IndexEntry{}, false
		}
		target, rest = s[:j], s[j+1:]
		// An optional link title: (f.md "title").
		if k := strings.IndexAny(target, " \t"); k >= 0 {
			target = target[:k]
		}
	}
	if k := strings.IndexByte(target, '#'); k >= 0 {
		target = target[:k]
	}
	target = strings.TrimSpace(target)
	if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return IndexEntry{}, false
	}
	file := path.Clean(strings.ReplaceAll(target, `\`, "/"))
	if file == "." || path.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") {
		return IndexEntry{}, false
	}
	hook := strings.TrimSpace(rest)
	for _, sep := range []string{"—", "–", "-", ":"} {
		if h, ok := strings.CutPrefix(hook, sep); ok {
			hook = strings.TrimSpace(h)
			break
		}
	}
	return IndexEntry{Title: title.String(), File: file, Hook: hook}, true
}

func isMarkdownPunct(c byte) bool { return strings.IndexByte("\\[]()<>*_`#!-", c) >= 0 }

// FormatIndexLine renders the index line for a topic file, without a newline:
// "- [title](file) — hook". Brackets and backslashes in title are escaped; a file name with
// spaces or parentheses is written in angle brackets; line breaks become spaces. ParseIndexLine
// reads back title, file and hook.
func FormatIndexLine(title, file, hook string) string {
	var b strings.Builder
	b.WriteString("- [")
	for _, r := range oneLine(title) {
		if r == '\\' || r == '[' || r == ']' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString("](")
	if strings.ContainsAny(file, " \t()<>#") {
		b.WriteString("<" + file + ">")
	} else {
		b.WriteString(file)
	}
	b.WriteString(")")
	if h := oneLine(hook); h != "" {
		b.WriteString(" — " + h)
	}
	return b.String()
}

// oneLine collapses every run of whitespace (line breaks included) into one space and trims.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ParseIndex returns the entries of an index, in order, with their line numbers.
func ParseIndex(data []byte) []IndexEntry {
	var out []IndexEntry
	for i, line := range splitLines(string(frontmatter.Normalize(data))) {
		if e, ok := ParseIndexLine(line); ok {
			e.Line = i + 1
			out = append(out, e)
		}
	}
	return out
}

// splitLines splits text into lines without their newlines; a final newline does not start
// another line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// countLines is the number of lines in text as the loader counts them.
func countLines(text string) int { return len(splitLines(text)) }

// setIndexLine returns the index with the first line linking file replaced by line, or line
// appended when none links it. Every other line is kept byte for byte.
func setIndexLine(text, file, line string) string {
	lines := splitLines(text)
	for i, l := range lines {
		if e, ok := ParseIndexLine(l); ok && e.File == file {
			if l == line {
				return text
			}
			lines[i] = line
			return strings.Join(lines, "\n") + "\n"
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line + "\n"
}

// removeIndexLines returns the index without the lines linking file, and how many went.
func removeIndexLines(text, file string) (string, int) {
	lines := splitLines(text)
	kept := lines[:0:0]
	n := 0
	for _, l := range lines {
		if e, ok := ParseIndexLine(l); ok && e.File == file {
			n++
			continue
		}
		kept = append(kept, l)
	}
	if n == 0 {
		return text, 0
	}
	if len(kept) == 0 {
		return "", n
	}
	return strings.Join(kept, "\n") + "\n", n
}

// ErrIndexFull is wrapped by the error returned when a write would push MEMORY.md over its line
// or byte limit.
var ErrIndexFull = errors.New("index over its limit")

// checkIndexLimits fails when next is over a limit that old was not already over by as much:
// a change may never grow the index past a limit, but shrinking an index that a hand edit
// pushed over is allowed.
func (s *Store) checkIndexLimits(old, next string) error {
	maxL, maxB := s.opts.MaxIndexLines, s.opts.MaxIndexBytes
	if n := countLines(next); n > maxL && n > countLines(old) {
		return fmt.Errorf("memdir: %w: %s would have %d lines, over the %d-line limit; consolidate: merge related memories into one topic file and forget the merged ones (strata memory forget NAME), or shorten the index by hand",
			ErrIndexFull, IndexFile, n, maxL)
	}
	if n := len(next); n > maxB && n > len(old) {
		return fmt.Errorf("memdir: %w: %s would be %d bytes, over the %d-byte limit; consolidate: shorten the descriptions (each index line should be a short hook), or merge related memories and forget the merged ones",
			ErrIndexFull, IndexFile, n, maxB)
	}
	return nil
}

// IndexText is MEMORY.md as loaded for the model (the automem instruction layer).
type IndexText struct {
	Path      string // absolute path of MEMORY.md
	Exists    bool   // false when there is no index yet (Text is then empty)
	Text      string // the index as the model sees it, cut to the limits; no warning appended
	Truncated bool   // a limit was hit and Text is shorter than the file
	Warning   string // names the limit hit and what to do; "" unless Truncated
	Lines     int    // lines in the whole file
	Bytes     int    // bytes in the whole file (after BOM and CRLF normalisation)
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

// TruncateIndex cuts an index for loading: first to maxLines lines, then to maxBytes bytes at
// the last newline within them (at a character boundary when a single line is longer than
// maxBytes). warning names every limit that was hit; it is "" when nothing was cut.
func TruncateIndex(text string, maxLines, maxBytes int) (out string, truncated bool, warning string) {
	lines := countLines(text)
	out = text
	var why []string
	if lines > maxLines {
		idx := 0
		for range maxLines {
			idx += strings.IndexByte(out[idx:], '\n') + 1
		}
		out = out[:idx]
		why = append(why, fmt.Sprintf("%d lines (limit: %d lines)", lines, maxLines))
	}
	if len(out) > maxBytes {
		cut := strings.LastIndexByte(out[:maxBytes], '\n')
		if cut >= 0 {
			out = out[:cut+1]
		} else {
			cut = maxBytes
			for cut > 0 && !utf8.RuneStart(out[cut]) {
				cut--
			}
			out = out[:cut]
		}
		why = append(why, fmt.Sprintf("%d bytes (limit: %d bytes)", len(text), maxBytes))
	}
	if len(why) == 0 {
		return text, false, ""
	}
	warning = fmt.Sprintf("%s is %s, so only part of it was loaded. Keep each index line short and move detail into topic files; consolidate or forget memories to bring the index under the limit.",
		IndexFile, strings.Join(why, " and "))
	return out, true, warning
}

// LoadIndex reads MEMORY.md for the model: cut to the store's limits (200 lines, then 25,000
// bytes at the last newline by default) with a warning naming the limit hit. A missing index
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
	t.Lines, t.Bytes = countLines(raw), len(raw)
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
	data, err := root.ReadFile(IndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("memdir: read %s: %w", s.IndexPath(), err)
	}
	return string(data), true, nil
}
