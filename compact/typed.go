package compact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What of a user message did the user type? A transcript does not say: Claude Code 2.1 and
// strata store a paste expanded in the message text (the "[Pasted text #1 +N lines]"
// placeholder lives only in the input box), so the message's structure has to tell. These
// are the signs, as the transcripts show them:
//   - text strata or Claude Code wrapped in a tag: a file attached with @path
//     (<attached-file>), a "!" shell command and its output (<bash-input>, <bash-stdout>,
//     <bash-stderr>), a local command's output, a system reminder, the IDE context Claude Code
//     adds (<ide_selection>, <ide_opened_file>);
//   - a fenced code block;
//   - a paragraph of many lines (pasteLines): typed text breaks lines at paragraphs, a pasted
//     log, file or document at every line;
//   - failing those, a body of short lines: the paragraphs between the first and the last (the
//     last too when it has more than typedTail lines) holding more than pasteLines lines of
//     proseLine bytes or less on average — a pasted web page or document, whose paragraphs
//     are headings and one-line notes, where typed prose has a paragraph per line;
//   - at the edges of such a block, a line whose shape the block has nowhere else ("Here is
//     the log:" or "Always use tabs." against timestamped log lines) is the user's, typed on
//     the line before or after the paste; a line shaped like the block ("2026-03-01 WARN …
//     always retry") is the paste's.
// The user's own words are the text before the first pasted block and after the last one.

// machineTags wrap text that strata or Claude Code put into a user message for the user.
var machineTags = []string{"attached-file", "bash-input", "bash-stdout", "bash-stderr",
	"local-command-stdout", "local-command-stderr", "system-reminder", "ide_selection", "ide_opened_file"}

// pasteLines is the number of lines above which a paragraph is a pasted block.
const pasteLines = 10

// typedTail is the most lines the last paragraph after a body of short lines may have to be
// the user's; proseLine the average line length (bytes) below which such a body is pasted.
const (
	typedTail = 3
	proseLine = 100
)

// edgeLines bounds the typed lines looked for at each edge of a pasted block.
const edgeLines = 3

// ownWords returns the words of a user message the user typed: without the blocks strata or
// Claude Code wrapped in tags; for a message longer than twice standingSpan, the text before
// its first pasted block and after its last one (the lead's first and the tail's last
// standingSpan bytes), or,
// when no block is pasted by its structure, the message's first and last standingSpan bytes.
func ownWords(text string) string {
	text = cutMachineBlocks(text)
	if len(text) <= 2*standingSpan {
		return text
	}
	lines := strings.Split(text, "\n")
	blocks := pastedBlocks(lines)
	if len(blocks) == 0 {
		blocks = shortLinedBody(lines)
	}
	if len(blocks) == 0 {
		return headOf(text, standingSpan) + "\n" + tailOf(text, standingSpan)
	}
	first, last := blocks[0], blocks[len(blocks)-1]
	lead, tail := first.from, pasteEnd(lines, last)
	if !first.fenced {
		lead += typedEdge(lines[first.from:first.to], false)
	}
	if !last.fenced && tail == last.to {
		tail -= typedEdge(lines[last.from:last.to], true)
	}
	if lead > tail { // one block, its typed edges meeting
		lead = tail
	}
	return headOf(strings.Join(lines[:lead], "\n"), standingSpan) + "\n" + tailOf(strings.Join(lines[tail:], "\n"), standingSpan)
}

// pasteEnd returns where the paste ending with b ends: after the paragraphs that follow b
// and continue it (continuesPaste).
func pasteEnd(lines []string, b block) int {
	end, in := b.to, shapes(lines[b.from:b.to])
	for {
		i := end
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" && fenceOf(lines[j]) == "" {
			j++
		}
		if i == j || !continuesPaste(lines[i:j], in) {
			return end
		}
		end = j
	}
}

// cutMachineBlocks removes the tagged blocks of machineTags from text (an unclosed one to the
// end), leaving a paragraph break in their place.
func cutMachineBlocks(text string) string {
	for _, tag := range machineTags {
		for from := 0; ; {
			i := strings.Index(text[from:], "<"+tag)
			if i < 0 {
				break
			}
			i += from
			rest := text[i+1+len(tag):]
			if rest == "" || rest[0] != '>' && rest[0] != ' ' {
				from = i + 1
				continue
			}
			end := len(text)
			if j := strings.Index(rest, "</"+tag+">"); j >= 0 {
				end = i + 1 + len(tag) + j + len("</"+tag+">")
			}
			text = text[:i] + "\n\n" + text[end:]
			from = i + 2
		}
	}
	return text
}

// block is a pasted block: lines [from, to).
type block struct {
	from, to int
	fenced   bool
}

// pastedBlocks returns the fenced code blocks and the paragraphs of more than pasteLines lines.
func pastedBlocks(lines []string) []block {
	var out []block
	para := -1 // first line of the current paragraph
	endPara := func(i int) {
		if para >= 0 && i-para > pasteLines {
			out = append(out, block{from: para, to: i})
		}
		para = -1
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if fence := fenceOf(l); fence != "" {
			endPara(i)
			j := i + 1
			for j < len(lines) {
				if f := fenceOf(lines[j]); f != "" && f[0] == fence[0] && len(f) >= len(fence) {
					break
				}
				j++
			}
			to := min(j+1, len(lines))
			out = append(out, block{from: i, to: to, fenced: true})
			i = to - 1
			continue
		}
		if strings.TrimSpace(l) == "" {
			endPara(i)
			continue
		}
		if para < 0 {
			para = i
		}
	}
	endPara(len(lines))
	return out
}

// shortLinedBody returns the body of a message without a pasted block when its lines are
// those of a pasted document: the paragraphs between the first and the last (the last too
// when it has more than typedTail lines), more than pasteLines lines of less than proseLine
// bytes on average. The block is marked fenced: its edges are paragraph breaks already.
func shortLinedBody(lines []string) []block {
	var paras []block
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		paras = append(paras, block{from: i, to: j})
		i = j
	}
	if len(paras) < 3 {
		return nil
	}
	body := paras[1 : len(paras)-1]
	if last := paras[len(paras)-1]; last.to-last.from > typedTail {
		body = paras[1:]
	}
	n, size := 0, 0
	for _, p := range body {
		n += p.to - p.from
		for _, l := range lines[p.from:p.to] {
			size += len(l)
		}
	}
	if n <= pasteLines || size/n >= proseLine {
		return nil
	}
	return []block{{from: body[0].from, to: body[len(body)-1].to, fenced: true}}
}

// typedEdge returns how many lines at the start (or, fromEnd, the end) of a pasted paragraph
// are typed: at most edgeLines, each shaped as none of the paragraph's inner lines (those
// more than edgeLines from either end) is (lineShape).
func typedEdge(lines []string, fromEnd bool) int {
	if len(lines) <= 2*edgeLines {
		return 0
	}
	inner := shapes(lines[edgeLines : len(lines)-edgeLines])
	n := 0
	for n < edgeLines {
		i := n
		if fromEnd {
			i = len(lines) - 1 - n
		}
		if inner[lineShape(lines[i])] {
			break
		}
		n++
	}
	return n
}

// continuesPaste reports whether para, a paragraph after a pasted block whose lines have the
// shapes in, is more of it: each of its lines begins as some line of the block does, and not with a letter (the user's
// words do: a typed sentence after a paste is the user's, a comment line or a timestamped
// line after a blank line is the file's or the log's).
func continuesPaste(para []string, in map[string]bool) bool {
	for _, l := range para {
		switch s := lineShape(l); s {
		case "upper", "lower", "letter":
			return false
		default:
			if !in[s] {
				return false
			}
		}
	}
	return true
}

func shapes(lines []string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		out[lineShape(l)] = true
	}
	return out
}

// lineShape classes a line by how it begins: indented, a digit (timestamps, line numbers), an
// upper- or lower-case letter, another letter (CJK), or its first symbol.
func lineShape(l string) string {
	r, _ := utf8.DecodeRuneInString(l)
	switch {
	case l == "":
		return ""
	case r == ' ' || r == '\t':
		return "indent"
	case unicode.IsDigit(r):
		return "digit"
	case unicode.IsUpper(r):
		return "upper"
	case unicode.IsLower(r):
		return "lower"
	case unicode.IsLetter(r):
		return "letter"
	}
	return string(r)
}

// headOf is s's first n bytes, not cutting a character.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailOf is s's last n bytes, not cutting a character.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
