package chatui

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub's tables and strike-through, the two extensions Markdown uses, as goldmark parser
// options of our own: goldmark's extension package compiles a dozen regular expressions at
// every start of strata (about 3 ms), for extensions the chat never uses.

// gfmOptions adds tables and strike-through to a goldmark parser. They build the extension
// AST nodes goldmark's own extensions build, which the renderer walks.
func gfmOptions() []parser.Option {
	return []parser.Option{
		parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		parser.WithInlineParsers(util.Prioritized(strikeParser{}, 500)),
		parser.WithASTTransformers(util.Prioritized(cellPipes{}, 0)),
	}
}

// tableTransformer turns a paragraph holding a header line, a delimiter line (|---|:--:|) and
// rows into a table; the paragraph's lines before the header stay a paragraph.
type tableTransformer struct{}

func (tableTransformer) Transform(p *ast.Paragraph, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	lines := p.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		aligns, ok := delimiterRow(seg.Value(src))
		if !ok {
			continue
		}
		header := rowCells(src, lines.At(i-1))
		if len(header) != len(aligns) {
			continue
		}
		table := east.NewTable()
		table.Alignments = aligns
		table.AppendChild(table, east.NewTableHeader(tableRow(header, aligns)))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(rowCells(src, lines.At(j)), aligns))
		}
		parent := p.Parent()
		if i == 1 {
			parent.ReplaceChild(parent, p, table)
			return
		}
		parent.InsertAfter(parent, p, table)
		lines.SetSliced(0, i-1)
		return
	}
}

// tableRow makes a row of cells, cut or padded with empty cells to the table's columns.
func tableRow(cells []text.Segment, aligns []east.Alignment) *east.TableRow {
	row := east.NewTableRow(aligns)
	for k, a := range aligns {
		c := east.NewTableCell()
		c.Alignment = a
		if k < len(cells) {
			c.Lines().Append(cells[k])
		}
		row.AppendChild(row, c)
	}
	return row
}

// rowCells splits a table line at its pipes (not at an escaped one), each cell's text without
// its surrounding spaces; a pipe at the start or end of the line opens or closes no cell.
func rowCells(src []byte, line text.Segment) []text.Segment {
	start, stop := line.Start, line.Stop
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	for start < stop && isSpace(src[start]) {
		start++
	}
	for stop > start && isSpace(src[stop-1]) {
		stop--
	}
	if start < stop && src[start] == '|' {
		start++
	}
	if stop > start && src[stop-1] == '|' && (stop-2 < start || src[stop-2] != '\\') {
		stop--
	}
	var cells []text.Segment
	from := start
	for k := start; k <= stop; k++ {
		if k < stop && (src[k] != '|' || k > start && src[k-1] == '\\') {
			continue
		}
		a, b := from, k
		for a < b && isSpace(src[a]) {
			a++
		}
		for b > a && isSpace(src[b-1]) {
			b--
		}
		cells = append(cells, text.NewSegment(a, b))
		from = k + 1
	}
	return cells
}

// delimiterRow reads a table's delimiter line: cells of dashes, a colon at either end setting
// the column's alignment. A line without a pipe is not one.
func delimiterRow(line []byte) ([]east.Alignment, bool) {
	if bytes.IndexByte(line, '|') < 0 {
		return nil, false
	}
	var aligns []east.Alignment
	for _, c := range rowCells(line, text.NewSegment(0, len(line))) {
		cell := line[c.Start:c.Stop]
		dashes, left := bytes.CutPrefix(cell, []byte(":"))
		dashes, right := bytes.CutSuffix(dashes, []byte(":"))
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) != 0 {
			return nil, false
		}
		switch {
		case left && right:
			aligns = append(aligns, east.AlignCenter)
		case left:
			aligns = append(aligns, east.AlignLeft)
		case right:
			aligns = append(aligns, east.AlignRight)
		default:
			aligns = append(aligns, east.AlignNone)
		}
	}
	return aligns, len(aligns) > 0
}

// cellPipes unescapes \| in the code spans of table cells, as GitHub does: the backslash only
// kept the pipe from ending the cell.
type cellPipes struct{}

func (cellPipes) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		cs, ok := n.(*ast.CodeSpan)
		if !entering || !ok || !inCell(cs) {
			return ast.WalkContinue, nil
		}
		for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
			t, ok := c.(*ast.Text)
			if !ok {
				continue
			}
			k := bytes.Index(t.Segment.Value(src), []byte(`\|`))
			if k < 0 {
				continue
			}
			// Split the text around the backslash; the loop then looks at the rest.
			rest := ast.NewTextSegment(t.Segment.WithStart(t.Segment.Start + k + 1))
			rest.SetSoftLineBreak(t.SoftLineBreak())
			t.Segment = t.Segment.WithStop(t.Segment.Start + k)
			t.SetSoftLineBreak(false)
			cs.InsertAfter(cs, t, rest)
		}
		return ast.WalkSkipChildren, nil
	})
}

// inCell reports whether n lies in a table cell.
func inCell(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*east.TableCell); ok {
			return true
		}
	}
	return false
}

// strikeParser reads ~~text~~ (or ~text~): a run of one or two tildes is a delimiter, matched
// by goldmark's delimiter processing like emphasis.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// strikeDelimiter pairs tilde runs into strike-through spans.
type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (strikeDelimiter) OnMatch(consumes int) ast.Node { return east.NewStrikethrough() }
