package chatui

import (
	"strings"
	"unicode"
)

// editor is the multi-line input box: text as runes and a cursor between them. It is written
// here rather than taken from bubbles' textarea, whose clipboard dependency costs 0.4 ms of
// package initialisation at every strata start.
type editor struct {
	text []rune
	pos  int
}

func (e *editor) String() string { return string(e.text) }
func (e *editor) Empty() bool    { return len(e.text) == 0 }

func (e *editor) Set(s string) {
	e.text = []rune(s)
	e.pos = len(e.text)
}

func (e *editor) Insert(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	r := []rune(s)
	e.text = append(e.text[:e.pos], append(r, e.text[e.pos:]...)...)
	e.pos += len(r)
}

func (e *editor) Backspace() {
	if e.pos > 0 {
		e.text = append(e.text[:e.pos-1], e.text[e.pos:]...)
		e.pos--
	}
}

func (e *editor) Delete() {
	if e.pos < len(e.text) {
		e.text = append(e.text[:e.pos], e.text[e.pos+1:]...)
	}
}

func (e *editor) Left() {
	if e.pos > 0 {
		e.pos--
	}
}

func (e *editor) Right() {
	if e.pos < len(e.text) {
		e.pos++
	}
}

// lineBounds returns the start and end (exclusive) of the line holding the cursor.
func (e *editor) lineBounds() (int, int) {
	s := e.pos
	for s > 0 && e.text[s-1] != '\n' {
		s--
	}
	end := e.pos
	for end < len(e.text) && e.text[end] != '\n' {
		end++
	}
	return s, end
}

func (e *editor) Home() { e.pos, _ = e.lineBounds() }
func (e *editor) End()  { _, e.pos = e.lineBounds() }
func (e *editor) OnFirstLine() bool {
	s, _ := e.lineBounds()
	return s == 0
}
func (e *editor) OnLastLine() bool {
	_, end := e.lineBounds()
	return end == len(e.text)
}

// Up and Down move the cursor to the line above or below, keeping its column.
func (e *editor) Up() {
	s, _ := e.lineBounds()
	if s == 0 {
		return
	}
	col := e.pos - s
	e.pos = s - 1
	ps, _ := e.lineBounds()
	e.pos = min(ps+col, s-1)
}

func (e *editor) Down() {
	s, end := e.lineBounds()
	if end == len(e.text) {
		return
	}
	col := e.pos - s
	e.pos = end + 1
	_, ne := e.lineBounds()
	e.pos = min(end+1+col, ne)
}

// KillLine deletes from the cursor to the line's start (Ctrl-U).
func (e *editor) KillLine() {
	s, _ := e.lineBounds()
	e.text = append(e.text[:s], e.text[e.pos:]...)
	e.pos = s
}

// KillEnd deletes from the cursor to the line's end (Ctrl-K).
func (e *editor) KillEnd() {
	_, end := e.lineBounds()
	e.text = append(e.text[:e.pos], e.text[end:]...)
}

// DeleteWord deletes the word before the cursor (Ctrl-W, Alt-Backspace).
func (e *editor) DeleteWord() {
	i := e.pos
	for i > 0 && unicode.IsSpace(e.text[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.text[i-1]) {
		i--
	}
	e.text = append(e.text[:i], e.text[e.pos:]...)
	e.pos = i
}

// WordAtCursor returns the whitespace-delimited word that ends at the cursor and where it
// starts.
func (e *editor) WordAtCursor() (string, int) {
	i := e.pos
	for i > 0 && !unicode.IsSpace(e.text[i-1]) {
		i--
	}
	return string(e.text[i:e.pos]), i
}

// ReplaceWord replaces the runes from start to the cursor with s.
func (e *editor) ReplaceWord(start int, s string) {
	r := []rune(s)
	e.text = append(e.text[:start], append(r, e.text[e.pos:]...)...)
	e.pos = start + len(r)
}

// View draws the text after prompt, wrapped to width display columns (a CJK character takes
// two), continuation lines indented, the cursor as a reversed cell.
func (e *editor) View(prompt string, width int, placeholder string) string {
	pw := cols(prompt)
	avail := max(10, width-pw)
	indent := strings.Repeat(" ", pw)
	if len(e.text) == 0 && placeholder != "" {
		return prompt + reverse(" ") + sDim().Render(placeholder)
	}
	var rows []string
	var cur strings.Builder
	w := 0
	flush := func() {
		lead := indent
		if len(rows) == 0 {
			lead = prompt
		}
		rows = append(rows, lead+cur.String())
		cur.Reset()
		w = 0
	}
	for i := 0; i <= len(e.text); i++ {
		var r rune = ' '
		if i < len(e.text) {
			r = e.text[i]
		}
		if r == '\n' {
			if i == e.pos {
				cur.WriteString(reverse(" "))
			}
			flush()
			continue
		}
		cell := string(r)
		if r == '\t' {
			cell = "    "
		}
		cw := cols(cell)
		if w+cw > avail {
			flush()
		}
		if i == e.pos {
			cur.WriteString(reverse(cell))
		} else if i < len(e.text) {
			cur.WriteString(cell)
		}
		w += cw
	}
	flush()
	return strings.Join(rows, "\n")
}

func reverse(s string) string { return "\x1b[7m" + s + "\x1b[27m" }
