package chatui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/termtext"
)

// Markdown renders the subset of markdown that models write — headings, paragraphs with bold,
// italic, strike-through, inline code and links, fenced code blocks (highlighted for common
// languages), bullet and numbered lists, quotes, rules and tables — as styled terminal text
// wrapped to width display columns (CJK characters count two). The model's text is made
// terminal-safe first (termtext.Clean): escape sequences it sent are removed, so the only
// escapes in the result are the renderer's own.
func Markdown(src string, width int) string {
	if width < 20 {
		width = 20
	}
	lines := strings.Split(strings.TrimRight(termtext.Clean(src), "\n"), "\n")
	var out []string
	for i := 0; i < len(lines); {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			i++
		case isFence(trim):
			fence, lang := fenceOf(trim)
			var code []string
			i++
			for i < len(lines) && !closesFence(strings.TrimSpace(lines[i]), fence) {
				code = append(code, lines[i])
				i++
			}
			if i < len(lines) {
				i++ // the closing fence
			}
			out = append(out, codeBlock(code, lang, width)...)
		case headingLevel(trim) > 0:
			n := headingLevel(trim)
			text := strings.TrimSpace(strings.TrimRight(trim[n:], "# "))
			st := sHeading()
			if n == 1 {
				st = sHeading1()
			}
			out = append(out, st.Render(inline(text, lipgloss.NewStyle())))
			i++
		case isRule(trim):
			out = append(out, sDim().Render(strings.Repeat("─", min(width, 40))))
			i++
		case strings.HasPrefix(trim, ">"):
			var quote []string
			for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">") {
				quote = append(quote, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), ">")))
				i++
			}
			for _, l := range wrap(inline(strings.Join(quote, " "), sQuote()), width-2) {
				out = append(out, sDim().Render("│ ")+l)
			}
		case isTableStart(lines, i):
			var rows []string
			for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
				rows = append(rows, strings.TrimSpace(lines[i]))
				i++
			}
			out = append(out, table(rows, width)...)
		case listMarker(line) != "":
			for i < len(lines) && listMarker(lines[i]) != "" {
				l := lines[i]
				indent := len(l) - len(strings.TrimLeft(l, " \t"))
				mark := listMarker(l)
				body := strings.TrimLeft(l, " \t")[len(mark):]
				i++
				for i < len(lines) && isContinuation(lines[i]) {
					body += " " + strings.TrimSpace(lines[i])
					i++
				}
				bullet := "• "
				if mark[0] >= '0' && mark[0] <= '9' {
					bullet = strings.TrimSpace(mark) + " "
				}
				pad := strings.Repeat(" ", min(indent, 8))
				hang := pad + strings.Repeat(" ", cols(bullet))
				for k, w := range wrap(inline(strings.TrimSpace(body), lipgloss.NewStyle()), width-cols(hang)) {
					if k == 0 {
						out = append(out, pad+sBullet().Render(bullet)+w)
					} else {
						out = append(out, hang+w)
					}
				}
			}
		default:
			var para []string
			for i < len(lines) && startsParagraphLine(lines, i) {
				para = append(para, strings.TrimSpace(lines[i]))
				i++
			}
			out = append(out, wrap(inline(strings.Join(para, " "), lipgloss.NewStyle()), width)...)
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// startsParagraphLine reports whether line i continues a paragraph: it is not blank and does
// not start another kind of block.
func startsParagraphLine(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	return t != "" && !isFence(t) && headingLevel(t) == 0 && !isRule(t) && !strings.HasPrefix(t, ">") &&
		!isTableStart(lines, i) && listMarker(lines[i]) == ""
}

func isContinuation(l string) bool {
	return strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" && listMarker(l) == "" && !isFence(strings.TrimSpace(l))
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

func fenceOf(t string) (fence, lang string) {
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	lang, _, _ = strings.Cut(strings.TrimSpace(t[n:]), " ")
	return t[:n], strings.ToLower(lang)
}

func closesFence(t, fence string) bool {
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && n < 7 && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' {
		return 0
	}
	return n
}

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	return strings.Trim(strings.ReplaceAll(t, " ", ""), string(c)) == ""
}

// listMarker returns a list item's marker ("- ", "* ", "+ ", "12. ") or "".
func listMarker(l string) string {
	t := strings.TrimLeft(l, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return t[:2]
	}
	n := 0
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n < 4 && len(t) > n+1 && (t[n] == '.' || t[n] == ')') && t[n+1] == ' ' {
		return t[:n+2]
	}
	return ""
}

func isTableStart(lines []string, i int) bool {
	if !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") || i+1 >= len(lines) {
		return false
	}
	sep := strings.TrimSpace(lines[i+1])
	return strings.HasPrefix(sep, "|") && strings.Trim(sep, "|-: ") == "" && strings.Contains(sep, "-")
}

func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	parts := strings.Split(row, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// table lays the rows out in columns padded by display width; a table wider than width is
// shown as its source lines.
func table(rows []string, width int) []string {
	var grid [][]string
	for k, r := range rows {
		if k == 1 {
			continue // the separator
		}
		var cs []string
		for _, c := range cells(r) {
			cs = append(cs, inline(c, lipgloss.NewStyle()))
		}
		grid = append(grid, cs)
	}
	ncol := 0
	for _, r := range grid {
		ncol = max(ncol, len(r))
	}
	w := make([]int, ncol)
	for _, r := range grid {
		for j, c := range r {
			w[j] = max(w[j], cols(c))
		}
	}
	total := 0
	for _, x := range w {
		total += x + 3
	}
	if total > width {
		return rows
	}
	var out []string
	for k, r := range grid {
		var b strings.Builder
		for j := range ncol {
			c := ""
			if j < len(r) {
				c = r[j]
			}
			if k == 0 {
				c = sBold().Render(ansi.Strip(c))
			}
			b.WriteString(c + strings.Repeat(" ", w[j]-cols(c)))
			if j < ncol-1 {
				b.WriteString(sDim().Render(" │ "))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if k == 0 {
			var sep []string
			for _, x := range w {
				sep = append(sep, strings.Repeat("─", x))
			}
			out = append(out, sDim().Render(strings.Join(sep, "─┼─")))
		}
	}
	return out
}

func codeBlock(code []string, lang string, width int) []string {
	out := make([]string, 0, len(code)+1)
	if lang != "" {
		out = append(out, sDim().Render("  "+lang))
	}
	for _, l := range code {
		l = strings.ReplaceAll(l, "\t", "    ")
		out = append(out, "  "+highlight(ansi.Truncate(l, width-2, "…"), lang))
	}
	return out
}

// wrap word-wraps styled text to width columns.
func wrap(s string, width int) []string {
	if width < 10 {
		width = 10
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// inline renders the inline markup of one paragraph: `code`, **bold**, *italic*, _italic_,
// ~~strike~~ and [text](url). Unclosed markers stay as written. base styles the plain runs.
func inline(s string, base lipgloss.Style) string {
	var b strings.Builder
	plain := func(t string) {
		if t != "" {
			b.WriteString(base.Render(t))
		}
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var end int
		var styled string
		switch {
		case c == '`':
			if end = strings.IndexByte(s[i+1:], '`'); end >= 0 {
				styled, end = sCode().Render(s[i+1:i+1+end]), i+1+end+1
			}
		case c == '*' && strings.HasPrefix(s[i:], "**"), c == '_' && strings.HasPrefix(s[i:], "__"):
			if end = strings.Index(s[i+2:], s[i:i+2]); end > 0 {
				styled, end = inline(s[i+2:i+2+end], base.Bold(true)), i+2+end+2
			} else {
				end = -1
			}
		case c == '~' && strings.HasPrefix(s[i:], "~~"):
			if end = strings.Index(s[i+2:], "~~"); end > 0 {
				styled, end = inline(s[i+2:i+2+end], base.Strikethrough(true)), i+2+end+2
			} else {
				end = -1
			}
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] != ' ' && (i == 0 || !isWordByte(s[i-1])):
			if end = strings.IndexByte(s[i+1:], c); end > 0 && s[i+end] != ' ' {
				styled, end = inline(s[i+1:i+1+end], base.Italic(true)), i+1+end+1
			} else {
				end = -1
			}
		case c == '[':
			if cl := strings.Index(s[i:], "]("); cl > 0 {
				if rp := strings.IndexByte(s[i+cl:], ')'); rp > 0 {
					text, url := s[i+1:i+cl], s[i+cl+2:i+cl+rp]
					styled = inline(text, sLink()) + sDim().Render(" ("+url+")")
					if text == url {
						styled = sLink().Render(url)
					}
					end = i + cl + rp + 1
				} else {
					end = -1
				}
			} else {
				end = -1
			}
		default:
			end = -1
		}
		if end < 0 || styled == "" && c != '`' {
			i++
			continue
		}
		plain(s[start:i])
		b.WriteString(styled)
		i, start = end, end
	}
	plain(s[start:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// SplitStream cuts streamed markdown into the blocks that are complete — everything before
// the last blank line outside a fenced code block, or through a closing fence — and the open
// rest, which may still change as text arrives. Rendering only the complete part keeps what
// was printed stable: a block is never printed half-styled and then again.
func SplitStream(s string) (done, open string) {
	inFence, fence := false, ""
	cut := 0
	pos := 0
	for pos < len(s) {
		nl := strings.IndexByte(s[pos:], '\n')
		if nl < 0 {
			break // the last line is still arriving
		}
		line := strings.TrimSpace(s[pos : pos+nl])
		pos += nl + 1
		switch {
		case inFence:
			if closesFence(line, fence) {
				inFence = false
				cut = pos
			}
		case isFence(line):
			inFence = true
			fence, _ = fenceOf(line)
		case line == "":
			cut = pos
		}
	}
	return s[:cut], s[cut:]
}
