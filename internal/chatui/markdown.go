package chatui

import (
	"fmt"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/strata-mem/strata/internal/termtext"
)

// mdParser is a CommonMark parser with GitHub's tables and strike-through, built on first use.
var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithParserOptions(gfmOptions()...)).Parser()
})

// Markdown renders markdown as models write it — headings, paragraphs with bold, italic,
// strike-through, inline code and links, code blocks (fenced ones highlighted for common
// languages), bullet and numbered lists, quotes, rules and tables — as styled terminal text
// wrapped to width display columns (CJK characters count two). It is parsed as CommonMark
// (goldmark). The model's text is made terminal-safe first (termtext.Clean): escape sequences
// it sent are removed, so the only escapes in the result are the renderer's own.
func Markdown(src string, width int) string { return markdownWith(mdParser(), src, width) }

// markdownWith is Markdown with the parser p.
func markdownWith(p parser.Parser, src string, width int) string {
	width = max(width, 20)
	source := []byte(strings.TrimRight(termtext.Clean(src), "\n"))
	r := mdRenderer{src: source}
	out := r.blocks(p.Parse(text.NewReader(source)), width, lipgloss.NewStyle())
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// mdRenderer renders a parsed document to lines.
type mdRenderer struct{ src []byte }

// blocks renders the block children of n, a blank line between two where the source has one.
func (r mdRenderer) blocks(n ast.Node, width int, base lipgloss.Style) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if _, table := c.(*east.Table); len(out) > 0 && (c.HasBlankPreviousLines() || table) { // a table loses its paragraph's mark
			out = append(out, "")
		}
		out = append(out, r.block(c, width, base)...)
	}
	return out
}

func (r mdRenderer) block(n ast.Node, width int, base lipgloss.Style) []string {
	switch n := n.(type) {
	case *ast.Heading:
		st := sHeading()
		if n.Level == 1 {
			st = sHeading1()
		}
		return []string{st.Render(r.inline(n, lipgloss.NewStyle()))}
	case *ast.ThematicBreak:
		return []string{sDim().Render(strings.Repeat("─", min(width, 40)))}
	case *ast.FencedCodeBlock:
		return codeBlock(r.lines(n), strings.ToLower(string(n.Language(r.src))), width)
	case *ast.CodeBlock, *ast.HTMLBlock:
		return codeBlock(r.lines(n), "", width)
	case *ast.Blockquote:
		var out []string
		for _, l := range r.blocks(n, width-2, sQuote()) {
			out = append(out, sDim().Render("│ ")+l)
		}
		return out
	case *ast.List:
		return r.list(n, width)
	case *east.Table:
		return r.table(n, width)
	}
	if n.Type() == ast.TypeBlock && n.FirstChild() != nil && n.FirstChild().Type() == ast.TypeBlock {
		return r.blocks(n, width, base)
	}
	return wrap(r.inline(n, base), width) // a paragraph or a list item's text
}

// lines is a code block's text, line by line.
func (r mdRenderer) lines(n ast.Node) []string {
	var out []string
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		out = append(out, strings.TrimRight(string(seg.Value(r.src)), "\n"))
	}
	return out
}

// list renders a list's items, each under its bullet or number, the lines after the first
// hanging under the text.
func (r mdRenderer) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		bullet := "• "
		if n.IsOrdered() {
			bullet = fmt.Sprintf("%d%c ", num, n.Marker)
			num++
		}
		hang := strings.Repeat(" ", cols(bullet))
		for k, l := range r.blocks(item, width-cols(hang), lipgloss.NewStyle()) {
			if k == 0 {
				out = append(out, sBullet().Render(bullet)+l)
			} else if l != "" {
				out = append(out, hang+l)
			}
		}
	}
	return out
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

// table lays a table out in columns padded by display width, the header bold; a table wider
// than width is shown as rows of cells between bars.
func (r mdRenderer) table(n *east.Table, width int) []string {
	var grid [][]string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cs []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cs = append(cs, r.inline(c, lipgloss.NewStyle()))
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
	var out []string
	if total > width {
		for _, row := range grid {
			out = append(out, "| "+strings.Join(row, " | ")+" |")
		}
		return out
	}
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

// inline renders the inline children of n: code, emphasis (italic, bold), strike-through,
// links (their text, then the address unless it is the text) and plain text, base styling
// the plain runs. A soft line break is a space.
func (r mdRenderer) inline(n ast.Node, base lipgloss.Style) string {
	var b strings.Builder
	plain := func(t string) {
		if t != "" {
			b.WriteString(base.Render(t))
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			plain(string(c.Segment.Value(r.src)))
			if c.SoftLineBreak() {
				plain(" ")
			} else if c.HardLineBreak() {
				b.WriteString("\n")
			}
		case *ast.String:
			plain(string(c.Value))
		case *ast.CodeSpan:
			b.WriteString(sCode().Render(r.plainText(c)))
		case *ast.Emphasis:
			st := base.Italic(true)
			if c.Level >= 2 {
				st = base.Bold(true)
			}
			b.WriteString(r.inline(c, st))
		case *east.Strikethrough:
			b.WriteString(r.inline(c, base.Strikethrough(true)))
		case *ast.Link:
			b.WriteString(r.link(r.inline(c, sLink()), r.plainText(c), string(c.Destination)))
		case *ast.Image:
			b.WriteString(r.link(r.inline(c, sLink()), r.plainText(c), string(c.Destination)))
		case *ast.AutoLink:
			b.WriteString(sLink().Render(string(c.URL(r.src))))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				plain(string(seg.Value(r.src)))
			}
		default:
			b.WriteString(r.inline(c, base))
		}
	}
	return b.String()
}

// link is a link's styled text and its address in brackets, or the address alone when the
// text is the address.
func (r mdRenderer) link(styled, text, url string) string {
	if text == url {
		return sLink().Render(url)
	}
	return styled + sDim().Render(" ("+url+")")
}

// plainText is the text of n's inline children, unstyled.
func (r mdRenderer) plainText(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(r.src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
			continue
		}
		b.WriteString(r.plainText(c))
	}
	return b.String()
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
