package cli

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// palette16 is the terminal's 16 colours as the screenshots draw them (a dark theme).
var palette16 = [16]string{
	"#1e1e2e", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#cba6f7", "#94e2d5", "#bac2de",
	"#6c7086", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#cba6f7", "#94e2d5", "#ffffff",
}

const (
	shotFG   = "#cdd6f4"
	shotBG   = "#11111b"
	cellW    = 8.4
	cellH    = 18.0
	shotFont = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, 'Segoe UI Symbol', 'Apple Symbols', 'Noto Sans Symbols 2', 'Noto Sans CJK SC', monospace"
)

// xterm256 returns the colour of an xterm 256-colour index.
func xterm256(n int) string {
	switch {
	case n < 16:
		return palette16[n]
	case n < 232:
		n -= 16
		lv := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return fmt.Sprintf("#%02x%02x%02x", lv(n/36), lv(n/6%6), lv(n%6))
	default:
		v := 8 + (n-232)*10
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
}

// cellStyle is the SGR state of a run of text.
type cellStyle struct {
	fg, bg                                  string
	bold, faint, italic, under, rev, strike bool
}

// applySGR updates st with the parameters of one SGR sequence ("1;38;5;208").
func applySGR(st *cellStyle, params string) {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	if len(ps) == 0 {
		*st = cellStyle{}
		return
	}
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		n, _ := strconv.Atoi(ps[i])
		return n
	}
	for i := 0; i < len(ps); i++ {
		p := num(i)
		switch {
		case p == 0:
			*st = cellStyle{}
		case p == 1:
			st.bold = true
		case p == 2:
			st.faint = true
		case p == 3:
			st.italic = true
		case p == 4:
			st.under = true
		case p == 7:
			st.rev = true
		case p == 9:
			st.strike = true
		case p == 22:
			st.bold, st.faint = false, false
		case p == 23:
			st.italic = false
		case p == 24:
			st.under = false
		case p == 27:
			st.rev = false
		case p == 29:
			st.strike = false
		case p >= 30 && p <= 37:
			st.fg = palette16[p-30]
		case p >= 90 && p <= 97:
			st.fg = palette16[p-90+8]
		case p >= 40 && p <= 47:
			st.bg = palette16[p-40]
		case p >= 100 && p <= 107:
			st.bg = palette16[p-100+8]
		case p == 39:
			st.fg = ""
		case p == 49:
			st.bg = ""
		case p == 38 || p == 48:
			c := ""
			switch num(i + 1) {
			case 5:
				c, i = xterm256(num(i+2)), i+2
			case 2:
				c, i = fmt.Sprintf("#%02x%02x%02x", num(i+2), num(i+3), num(i+4)), i+4
			}
			if p == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
		}
	}
}

// screenshotSVG draws a `tmux capture-pane -e -p` capture (text with SGR colour sequences) as
// an SVG picture of a terminal cols wide: one <text> per styled run at its cell column, CJK
// characters two cells wide, backgrounds as rectangles.
func screenshotSVG(capture string, cols int) string {
	lines := strings.Split(strings.TrimRight(capture, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	var body strings.Builder
	var st cellStyle
	pad := 12.0
	for row, line := range lines {
		col := 0
		y := pad + float64(row)*cellH
		var run strings.Builder
		runCol, runSt := 0, st
		emit := func() {
			if run.Len() == 0 {
				return
			}
			text := run.String()
			fg, bg := runSt.fg, runSt.bg
			if fg == "" {
				fg = shotFG
			}
			if runSt.rev {
				fg, bg = bg, fg
				if fg == "" {
					fg = shotBG
				}
			}
			x := pad + float64(runCol)*cellW
			w := float64(ansi.StringWidth(text)) * cellW
			if bg != "" {
				fmt.Fprintf(&body, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, y, w, cellH, bg)
			}
			if strings.TrimSpace(text) != "" {
				attrs := ""
				if runSt.bold {
					attrs += ` font-weight="bold"`
				}
				if runSt.italic {
					attrs += ` font-style="italic"`
				}
				if runSt.faint {
					attrs += ` opacity="0.6"`
				}
				switch {
				case runSt.under:
					attrs += ` text-decoration="underline"`
				case runSt.strike:
					attrs += ` text-decoration="line-through"`
				}
				fmt.Fprintf(&body, `<text x="%.1f" y="%.1f" fill="%s"%s textLength="%.1f" lengthAdjust="spacingAndGlyphs" xml:space="preserve">%s</text>`+"\n",
					x, y+cellH*0.78, fg, attrs, w, html.EscapeString(text))
			}
			run.Reset()
		}
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					emit()
					applySGR(&st, line[i+2:j])
					runCol, runSt = col, st
				}
				i = j + 1
				continue
			}
			r, size := rune(line[i]), 1
			if r >= 0x80 {
				rs := []rune(line[i:])
				r, size = rs[0], len(string(rs[0]))
			}
			run.WriteRune(r)
			col += ansi.StringWidth(string(r))
			i += size
		}
		emit()
		runCol, runSt = col, st
	}
	w := pad*2 + float64(cols)*cellW
	h := pad*2 + float64(len(lines))*cellH
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s" font-size="14">
<rect width="100%%" height="100%%" rx="8" fill="%s"/>
%s</svg>
`, w, h, w, h, shotFont, shotBG, body.String())
}

func TestScreenshotSVG(t *testing.T) {
	got := screenshotSVG("\x1b[1;35m## 見出し\x1b[0m plain\n\x1b[32m+added\x1b[39m \x1b[7mX\x1b[27m", 40)
	for _, want := range []string{
		`fill="#cba6f7" font-weight="bold"`, // bold magenta heading
		`>## 見出し</text>`,
		`x="87.6"`, // " plain" starts at column 9: "## " is 3, the three CJK characters 6
		`fill="#a6e3a1"`, `>+added</text>`,
		`<rect x=`, // the reversed cell's background
	} {
		if !strings.Contains(got, want) {
			t.Errorf("SVG lacks %q:\n%s", want, got)
		}
	}
}
