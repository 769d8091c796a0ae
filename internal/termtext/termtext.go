// Package termtext makes text safe to print on a terminal. Tool output, transcript titles,
// memory names and other text strata did not write may hold escape sequences that recolour,
// move the cursor, retitle the window or hide what follows; every human-readable output passes
// such text through Clean (a block of lines) or Line (one field of a table or list). Machine
// outputs (--json, exports) keep the bytes unchanged.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean removes ANSI escape sequences (CSI such as colours and cursor moves, OSC such as window
// titles and hyperlinks, and two-byte ESC sequences) and escapes every other control character
// as \xNN (\u2066-style for the bidirectional overrides), keeping newlines and tabs. Invalid
// UTF-8 bytes are escaped as \xNN too. Text without any of these is returned as is.
func Clean(s string) string { return clean(s, false) }

// Line is Clean for text shown on one line: newlines, carriage returns and tabs become spaces
// as well, so a field cannot break a table's rows or columns.
func Line(s string) string { return clean(s, true) }

func clean(s string, oneLine bool) string {
	if safe(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case r == '\n' || r == '\t' || r == '\r':
			if oneLine {
				b.WriteByte(' ')
			} else if r == '\r' {
				// A lone carriage return moves the cursor back over what was printed.
				if i+1 < len(s) && s[i+1] == '\n' {
					break
				}
				b.WriteString(`\r`)
			} else {
				b.WriteRune(r)
			}
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0: // C1 controls, 0x9b is a CSI on some terminals
			fmt.Fprintf(&b, `\u%04x`, r)
		case bidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// safe reports whether s needs no change: the common case, checked without allocating.
func safe(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				if oneLine || (c != '\n' && c != '\t') {
					return false
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || (r >= 0x80 && r < 0xa0) || bidi(r) {
			return false
		}
		i += size
	}
	return true
}

// bidi reports the invisible characters that reorder how the text around them is displayed.
func bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// escapeLen is the length of the escape sequence at the start of s (s[0] is ESC).
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameter and intermediate bytes, then one final byte in 0x40–0x7e
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x3f && s[i] < 0x40 {
				return i
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ESC \
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	default: // a two-byte sequence such as ESC c (reset) or ESC 7 (save cursor)
		_, size := utf8.DecodeRuneInString(s[1:])
		return 1 + size
	}
}

// OneLine is s with every run of white space (line breaks included) made one space and none at
// the ends: text of several lines written on one, as a list item or a heading.
func OneLine(s string) string {
	prev := ' '
	for _, r := range s {
		if unicode.IsSpace(r) && (r != ' ' || prev == ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		prev = r
	}
	if prev == ' ' && s != "" {
		return strings.TrimRight(s, " ")
	}
	return s
}
