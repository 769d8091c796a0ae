// Package tokens estimates how many model tokens a text costs without calling a tokenizer.
//
// The estimate follows the reference system's rule of thumb: about four bytes per token for
// Latin-script text, and about one token per CJK character (Han, Hiragana, Katakana, Hangul,
// full-width forms). It is meant for budgets and display, not for billing: it is deterministic,
// allocation-free and never returns less than one token for a non-empty text.
package tokens

import "unicode/utf8"

// Estimate returns the estimated token count of s. The empty string costs zero tokens.
func Estimate(s string) int {
	if s == "" {
		return 0
	}
	cjk, other := 0, 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are ASCII: most instruction text is, and a session
		// start estimates every piece it loads.
		for i+8 <= len(s) && ascii8(s[i:i+8]) {
			other += 8
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			other++
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if IsCJK(r) {
			cjk++
		} else {
			other += n
		}
	}
	n := cjk + (other+3)/4
	if n == 0 {
		n = 1
	}
	return n
}

// ascii8 reports whether the eight bytes of s are ASCII (one 64-bit load and test).
func ascii8(s string) bool {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return w&0x8080808080808080 == 0
}

// EstimateBytes is Estimate for a byte slice.
func EstimateBytes(b []byte) int { return Estimate(string(b)) }

// IsCJK reports whether r is a Chinese, Japanese or Korean character (ideographs, kana, hangul,
// CJK punctuation and full-width forms), the scripts for which one character is about one token.
func IsCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303F: // CJK symbols and punctuation
	case r >= 0x3040 && r <= 0x30FF: // Hiragana, Katakana
	case r >= 0x3100 && r <= 0x31FF: // Bopomofo, Hangul compat, Katakana ext
	case r >= 0x3400 && r <= 0x4DBF: // CJK ext A
	case r >= 0x4E00 && r <= 0x9FFF: // CJK unified ideographs
	case r >= 0xAC00 && r <= 0xD7AF: // Hangul syllables
	case r >= 0xF900 && r <= 0xFAFF: // CJK compatibility ideographs
	case r >= 0xFF00 && r <= 0xFFEF: // half-width and full-width forms
	case r >= 0x20000 && r <= 0x3FFFF: // CJK ext B and later
	default:
		return false
	}
	return true
}

// Chars returns the length of s in characters as JavaScript counts them (String.length):
// UTF-16 code units, so a character outside the Basic Multilingual Plane (an emoji, a rare
// CJK ideograph) counts two and any other one. Claude Code's limits in characters — 25,000
// for the MEMORY.md index, 40,000 for an instruction file — count this way. Invalid UTF-8
// bytes count one each.
func Chars(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// CharsPrefix returns the length in bytes of the longest prefix of s that is at most max
// characters as Chars counts them, never splitting a character.
func CharsPrefix(s string, max int) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		size, units := 1, 1
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if r >= 0x10000 {
				units = 2
			}
		}
		if n+units > max {
			return i
		}
		n += units
		i += size
	}
	return len(s)
}
