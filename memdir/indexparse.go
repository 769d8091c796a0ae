package memdir

import (
	"net/url"
	"path"
	"strings"

	"github.com/strata-mem/strata/internal/termtext"
)

// This file is the one MEMORY.md parser: the store (which line to replace or remove), Lint
// (which lines dangle, which files are not indexed) and the dream in package extract all ask
// ParseIndex, so they never disagree about what is an index line.

// IndexEntry is one line of MEMORY.md that links a topic file: "- [Title](file.md) — hook".
type IndexEntry struct {
	Line  int    // 1-based line in MEMORY.md
	Title string // link text, unescaped
	File  string // link target: a slash-separated ".md" path relative to the memory dir, cleaned
	Hook  string // text after the link, without the leading dash
}

// ParseIndexLine parses one index line on its own (ParseIndex also knows which lines sit in
// comments or code blocks). ok is false for lines that are not a list item starting with a link
// to a ".md" file inside the memory dir: headings, prose, links to URLs (http:, mailto: or any
// other scheme), absolute paths, paths with "..", links to other kinds of file. Accepted forms,
// at any indentation (nested bullets): "- [T](f.md) — hook", "* [T](./f.md): hook",
// "+ [T](f.md) - hook", "1. [T](f.md)", "- [T](<my file.md>)", "- [T](my file.md)",
// "- [T](my%20file.md)", "- [T](f.md#part)", "- [T](f.md "title")". File is the path as the
// disk knows it: the anchor dropped, %-escapes decoded, "./" and backslashes resolved.
func ParseIndexLine(line string) (e IndexEntry, ok bool) {
	s, ok := cutListMarker(strings.TrimLeft(line, " \t"))
	if !ok {
		return IndexEntry{}, false
	}
	s = strings.TrimLeft(s, " \t")
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
		target, rest = strings.TrimSpace(s[:j]), s[j+1:]
		// An optional link title after white space, (f.md "title"), is quoted by "", '' or
		// (); anything else is a file name with spaces, as people write them.
		if k := strings.IndexAny(target, " \t"); k >= 0 && isLinkTitle(strings.TrimLeft(target[k:], " \t")) {
			target = target[:k]
		}
	}
	file, ok := indexTarget(target)
	if !ok {
		return IndexEntry{}, false
	}
	hook := strings.TrimSpace(rest)
	for _, sep := range []string{"—", "–", "--", "-", ":"} {
		if h, ok := strings.CutPrefix(hook, sep); ok {
			hook = strings.TrimSpace(h)
			break
		}
	}
	return IndexEntry{Title: title.String(), File: file, Hook: hook}, true
}

// isLinkTitle reports whether s is a whole link title: "…", '…' or (…).
func isLinkTitle(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[0] {
	case '"', '\'':
		return s[len(s)-1] == s[0]
	case '(':
		return s[len(s)-1] == ')'
	}
	return false
}

// cutListMarker returns s after a bullet ("-", "*", "+") or ordered list marker ("1.", "1)")
// and the white space that must follow it; ok is false when s does not start a list item.
func cutListMarker(s string) (rest string, ok bool) {
	n := 0
	switch {
	case s != "" && (s[0] == '-' || s[0] == '*' || s[0] == '+'):
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '.' && s[n] != ')' {
			return "", false
		}
		n++
	}
	if n >= len(s) || s[n] != ' ' && s[n] != '\t' {
		return "", false
	}
	return s[n+1:], true
}

// indexTarget returns the memory-dir-relative file a link destination names, or ok false when
// it names no topic file (a URL, an anchor alone, an absolute path, a path leaving the dir, a
// file not ending in ".md").
func indexTarget(dest string) (file string, ok bool) {
	if k := strings.IndexByte(dest, '#'); k >= 0 {
		dest = dest[:k]
	}
	if dest == "" || hasScheme(dest) {
		return "", false
	}
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u // a '%' that starts no escape stays as written
	}
	for _, r := range dest {
		if r < 0x20 || r == 0x7f {
			return "", false
		}
	}
	file = path.Clean(strings.ReplaceAll(dest, `\`, "/"))
	if path.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") ||
		!strings.HasSuffix(file, ".md") || path.Base(file) == ".md" {
		return "", false
	}
	return file, true
}

// hasScheme reports whether a link destination starts with a URL scheme ("https:", "mailto:",
// "file:"); a Windows drive letter ("C:") counts too, and is no memory either.
func hasScheme(dest string) bool {
	for i := 0; i < len(dest); i++ {
		c := dest[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

func isMarkdownPunct(c byte) bool { return strings.IndexByte("\\[]()<>*_`#!-", c) >= 0 }

// FormatIndexLine renders the index line for a topic file, without a newline:
// "- [title](file) — hook". Brackets and backslashes in title are escaped; in file, '%', '#',
// '<' and '>' are %-escaped, a file name with spaces or parentheses is written in angle
// brackets, and one that would read as a URL scheme ("a:b.md") gets "./"; line breaks become
// spaces. ParseIndexLine reads back title, file and hook.
func FormatIndexLine(title, file, hook string) string {
	var b strings.Builder
	b.WriteString("- [")
	for _, r := range termtext.OneLine(title) {
		if r == '\\' || r == '[' || r == ']' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString("](")
	dest := strings.NewReplacer("%", "%25", "#", "%23", "<", "%3C", ">", "%3E").Replace(file)
	if hasScheme(dest) {
		dest = "./" + dest
	}
	if strings.ContainsAny(dest, " \t()") {
		b.WriteString("<" + dest + ">")
	} else {
		b.WriteString(dest)
	}
	b.WriteString(")")
	if h := termtext.OneLine(hook); h != "" {
		b.WriteString(" — " + h)
	}
	return b.String()
}

// ParseIndex returns the entries of an index, in order, with their 1-based line numbers (lines
// end at "\n"; a BOM and the "\r" of CRLF are ignored). Lines inside HTML comments ("<!--" starting a
// line, through the line holding "-->") and fenced code blocks (``` or ~~~) are not entries:
// that is where people keep examples. A comment or fence that is never closed is not taken as
// one (its lines are read as usual), so a line appended to any index is always an entry.
func ParseIndex(data []byte) []IndexEntry {
	return scanIndex(splitLines(string(data)))
}

// scanIndex returns the entries among lines (1-based Line = index+1). A trailing "\r" and a
// BOM on the first line are ignored. The store's edits call it on the raw lines they rewrite,
// so they act on exactly the entries ParseIndex reports.
func scanIndex(lines []string) []IndexEntry {
	var out []IndexEntry
	sk := skipper{lines: lines}
	for i := 0; i < len(lines); i++ {
		if end := sk.blockEnd(i); end >= 0 {
			i = end
			continue
		}
		l := strings.TrimSuffix(lines[i], "\r")
		if i == 0 {
			l = strings.TrimPrefix(l, "\ufeff")
		}
		if e, ok := ParseIndexLine(l); ok {
			e.Line = i + 1
			out = append(out, e)
		}
	}
	return out
}

// skipper finds the comment and fence blocks of an index, remembering what it learnt so that
// a text full of unclosed openers costs no more than one pass per kind.
type skipper struct {
	lines        []string
	closeAfter   []int        // for comments: index of the next line holding "-->" after i; built lazily
	unclosedFrom map[byte]int // per fence character: run length from which no closer is left (0: unknown)
	unclosedAt   map[byte]int // ... valid for openers after this line
}

// blockEnd returns the last line of the comment or fenced block that opens at line i, or -1
// when line i opens no (closed) block.
func (k *skipper) blockEnd(i int) int {
	t := strings.TrimLeft(strings.TrimSuffix(k.lines[i], "\r"), " \t")
	if i == 0 {
		t = strings.TrimLeft(strings.TrimPrefix(t, "\ufeff"), " \t")
	}
	if strings.HasPrefix(t, "<!--") {
		if strings.Contains(t[4:], "-->") {
			return i
		}
		return k.commentClose(i)
	}
	if c, n, info := fenceOf(t); n > 0 && !(c == '`' && strings.IndexByte(info, '`') >= 0) {
		if k.unclosedFrom != nil && k.unclosedFrom[c] > 0 && n >= k.unclosedFrom[c] && i > k.unclosedAt[c] {
			return -1
		}
		for j := i + 1; j < len(k.lines); j++ {
			t := strings.TrimLeft(strings.TrimSuffix(k.lines[j], "\r"), " \t")
			if cc, nn, info := fenceOf(t); cc == c && nn >= n && strings.TrimSpace(info) == "" {
				return j
			}
		}
		if k.unclosedFrom == nil {
			k.unclosedFrom, k.unclosedAt = map[byte]int{}, map[byte]int{}
		}
		if old := k.unclosedFrom[c]; old == 0 || n < old {
			k.unclosedFrom[c], k.unclosedAt[c] = n, i
		}
		return -1
	}
	return -1
}

// commentClose returns the first line after i that holds "-->", or -1.
func (k *skipper) commentClose(i int) int {
	if k.closeAfter == nil {
		k.closeAfter = make([]int, len(k.lines))
		next := -1
		for j := len(k.lines) - 1; j >= 0; j-- {
			k.closeAfter[j] = next
			if strings.Contains(k.lines[j], "-->") {
				next = j
			}
		}
	}
	return k.closeAfter[i]
}

// fenceOf reports whether t (a line without its indentation) is a code fence line: its
// character, run length (0 if not a fence) and the info string after the run.
func fenceOf(t string) (byte, int, string) {
	if t == "" || t[0] != '`' && t[0] != '~' {
		return 0, 0, ""
	}
	c, n := t[0], 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return c, n, t[n:]
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

// CountLines is the number of lines of an index as the loader and the limits count them: a
// final newline does not start another line.
func CountLines(text string) int { return countLines(text) }

// setIndexLine returns the index with the first entry linking file replaced by line, or line
// appended when none links it. Every other line is kept byte for byte.
func setIndexLine(text, file, line string) string {
	lines := splitLines(text)
	for _, e := range scanIndex(lines) {
		if e.File != file {
			continue
		}
		old := lines[e.Line-1]
		if e.Line == 1 && strings.HasPrefix(old, "\ufeff") {
			line = "\ufeff" + line
		}
		if old == line {
			return text
		}
		lines[e.Line-1] = line
		return strings.Join(lines, "\n") + "\n"
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line + "\n"
}

// removeIndexLines returns the index without the entries linking file, and how many went.
func removeIndexLines(text, file string) (string, int) {
	return WithoutIndexLines(text, func(f string) bool { return f == file })
}

// WithoutIndexLines returns the index without the entry lines (as ParseIndex finds them) whose
// file drop reports, and how many lines went: what the store writes when it forgets those
// files. Every other line is kept byte for byte; the result ends in a newline unless empty.
func WithoutIndexLines(text string, drop func(file string) bool) (string, int) {
	lines := splitLines(text)
	gone := map[int]bool{}
	for _, e := range scanIndex(lines) {
		if drop(e.File) {
			gone[e.Line-1] = true
		}
	}
	if len(gone) == 0 {
		return text, 0
	}
	kept := make([]string, 0, len(lines)-len(gone))
	for i, l := range lines {
		if !gone[i] {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return "", len(gone)
	}
	return strings.Join(kept, "\n") + "\n", len(gone)
}
