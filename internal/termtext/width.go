package termtext

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// RuneWidth is how many terminal columns r takes: 2 for East Asian wide and full-width
// characters (Chinese, Japanese, Korean), 0 for combining marks and zero-width characters, 1
// otherwise. Its tables are static data (no work at start-up).
func RuneWidth(r rune) int {
	if r < 0x80 {
		if r < 0x20 || r == 0x7f {
			return 0
		}
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	if r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff || unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	return 1
}

// Width is how many terminal columns s takes (see RuneWidth). It measures text as printed:
// pass text strata did not write through Line first.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			for _, r := range s[i:] {
				n += RuneWidth(r)
			}
			return n
		}
		n += RuneWidth(rune(s[i]))
	}
	return n
}

// Pad returns s followed by spaces up to cols columns (s unchanged when it is as wide already),
// so that a column of Chinese, Korean and Latin names lines up.
func Pad(s string, cols int) string {
	if w := Width(s); w < cols {
		return s + strings.Repeat(" ", cols-w)
	}
	return s
}

// Truncate cuts s to at most cols columns, ending in "…" when it cut anything; a wide
// character that would straddle the limit is left out whole.
func Truncate(s string, cols int) string {
	if Width(s) <= cols {
		return s
	}
	if cols <= 0 {
		return ""
	}
	n := 0
	for i, r := range s {
		if n += RuneWidth(r); n > cols-1 {
			return s[:i] + "…"
		}
	}
	return s
}
