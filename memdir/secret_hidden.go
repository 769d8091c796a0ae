package memdir

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unhide returns s with invisible format characters (zero-width space, joiners, word joiner,
// soft hyphen, byte order mark: Unicode's Cf category) removed and full-width ASCII letters,
// digits and punctuation (U+FF01–U+FF5E, the ideographic space) folded to ASCII, so that
// "ghp_\u200babc…" and "ｇｈｐ＿abc…" read as the token they hide. ASCII text comes back as is.
func unhide(s string) string {
	start := -1 // the first rune that changes
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hidden(r, n) {
			start = i
			break
		}
		i += n
	}
	if start < 0 {
		return s // ASCII, or letters such as Chinese and Korean that need no change
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:start])
	for _, r := range s[start:] {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteRune(r - 0xFEE0)
		case r == 0x3000:
			b.WriteByte(' ')
		case unicode.Is(unicode.Cf, r):
		default:
			b.WriteRune(r) // a byte that is not UTF-8 becomes U+FFFD
		}
	}
	return b.String()
}

// hidden reports whether unhide changes the rune r of n bytes: a full-width form, the
// ideographic space, an invisible format character, or a byte that is not UTF-8.
func hidden(r rune, n int) bool {
	return r >= 0xFF01 && r <= 0xFF5E || r == 0x3000 || r == utf8.RuneError && n == 1 || unicode.Is(unicode.Cf, r)
}

// maxSplitLines is how many lines a credential split over lines may span.
const maxSplitLines = 4

// scanSplit looks for a well-known credential shape that starts on norms[i] and goes on over
// the next lines, each of which is nothing but a piece of it (trimmed, joined without a space):
// its kind and the number of lines it spans, or "" when there is none. norms are lines with
// hidden characters removed (unhide).
func scanSplit(norms []string, i int) (string, int) {
	first := strings.TrimSpace(norms[i])
	if first == "" || !tokenByte(first[len(first)-1]) {
		return "", 0
	}
	joined := first
	kind, span := "", 0
	for k := 1; k < maxSplitLines && i+k < len(norms); k++ {
		next := strings.TrimSpace(norms[i+k])
		if !tokenRun(next) {
			break // a piece of a split credential is a line of its own
		}
		before := len(joined)
		joined += next
		found := false
		for _, p := range secretPatterns() {
			if !hasTokenCue(joined) {
				break // no pattern can match
			}
			loc := p.re.FindStringIndex(joined)
			// Only a match that begins on the first line and crosses into the line just added is
			// (still) a split credential; one within a later line is that line's own finding.
			if loc != nil && loc[0] < len(first) && loc[1] > before && !xPlaceholder(joined[loc[0]:loc[1]]) {
				kind, span, found = p.kind+" (split over lines)", k+1, true
				break
			}
		}
		if !found && kind != "" {
			break // the credential ended on the previous line
		}
	}
	return kind, span
}

// tokenRun reports whether s is non-empty and all tokenByte.
func tokenRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// tokenByte reports whether c can be part of a credential token.
func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+' || c == '/' || c == '='
}

// base64Runs returns the runs of 20 or more base64 characters (either alphabet) in line, each
// with up to two '=' after it: what the regexp [A-Za-z0-9+/_-]{20,}={0,2} finds, without a
// regexp (this runs on every line of every instruction file and memory).
func base64Runs(line string) []string {
	var runs []string
	for i := 0; i < len(line); {
		if !base64Char(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && base64Char(line[j]) {
			j++
		}
		if j-i >= 20 {
			end := j
			for end < len(line) && end-j < 2 && line[end] == '=' {
				end++
			}
			runs = append(runs, line[i:end])
			j = end
		}
		i = j
	}
	return runs
}

func base64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// scanBase64 decodes each base64 run of line and returns the kind of the first well-known
// credential shape a decoded text holds, "" for none. Runs that decode to binary (hashes,
// random bytes) are not looked at.
func scanBase64(line string) string {
	if len(line) < 20 {
		return ""
	}
	for _, run := range base64Runs(line) {
		data, ok := decodeBase64(run)
		if !ok || !printable(data) {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if kind := tokenKind(l); kind != "" {
				return kind + " (base64-encoded)"
			}
		}
	}
	return ""
}

// decodeBase64 decodes run in the standard or the URL alphabet, padded or not.
func decodeBase64(run string) ([]byte, bool) {
	raw := strings.TrimRight(run, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if data, err := enc.DecodeString(raw); err == nil {
			return data, true
		}
		// A run cut at a length that is not a whole number of bytes: drop the odd tail.
		if cut := len(raw) - len(raw)%4; cut >= 16 && cut < len(raw) {
			if data, err := enc.DecodeString(raw[:cut]); err == nil {
				return data, true
			}
		}
	}
	return nil, false
}

// printable reports whether data is text: printable ASCII, tabs and line ends only.
func printable(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e) && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return len(data) > 0
}

// WithholdSecrets returns text with every line that holds what looks like a secret (as
// ScanSecrets finds it, obfuscated forms included) replaced by a marker naming its kind, and
// the findings. Text without findings comes back unchanged. For text shown to a client that
// must not see credentials: MCP results.
func WithholdSecrets(text string) (string, []SecretFinding) {
	found := ScanSecrets(text)
	if len(found) == 0 {
		return text, nil
	}
	lines := strings.Split(text, "\n")
	for _, f := range found {
		eol := "" // a CRLF line keeps its CR: the marker does not change the file's line ends
		if strings.HasSuffix(lines[f.Line-1], "\r") {
			eol = "\r"
		}
		lines[f.Line-1] = SecretMarker(f.Kind) + eol
		for j := 1; j < f.Lines; j++ {
			lines[f.Line-1+j] = ""
		}
	}
	out := lines[:0]
	for i, l := range lines {
		if l == "" && withheldTail(found, i) {
			continue // the other lines of a split credential
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), found
}

// withheldTail reports whether line index i is a second or later line of a split finding.
func withheldTail(found []SecretFinding, i int) bool {
	for _, f := range found {
		if i > f.Line-1 && i < f.Line-1+f.Lines {
			return true
		}
	}
	return false
}

// SecretMarker is the text that stands in for a withheld line.
func SecretMarker(kind string) string {
	return fmt.Sprintf("[withheld by strata: this line looks like a secret (%s)]", kind)
}
