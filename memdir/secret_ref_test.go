package memdir

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file keeps the line-by-line scan ScanSecrets was before its prefilters (every check run
// on every line, hidden characters removed line by line), so tests can prove the fast scan finds
// exactly what it found.

func refScanSecrets(text string) []SecretFinding {
	var out []SecretFinding
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if kind := refScanLine(lines[i]); kind != "" {
			out = append(out, SecretFinding{Kind: kind, Line: i + 1, Lines: 1})
			continue
		}
		if kind, n := refScanSplit(lines, i); kind != "" {
			out = append(out, SecretFinding{Kind: kind, Line: i + 1, Lines: n})
			i += n - 1
		}
	}
	return out
}

func refScanLine(line string) string {
	if kind := refScanPlain(line); kind != "" {
		return kind
	}
	norm := refUnhide(line)
	if norm != line {
		if kind := refScanPlain(norm); kind != "" {
			return kind + " (hidden with invisible or full-width characters)"
		}
	}
	return refScanBase64(norm)
}

func refScanPlain(line string) string {
	if len(line) < 8 {
		return ""
	}
	if kind := refTokenKind(line); kind != "" {
		return kind
	}
	if !refAssignmentCue(line) {
		return ""
	}
	for _, m := range assignment().FindAllStringSubmatch(line, -1) {
		if secretName(m[1]) && looksRandom(m[2]) {
			return fmt.Sprintf("high-entropy value assigned to %q", m[1])
		}
	}
	return ""
}

func refAssignmentCue(line string) bool {
	if strings.IndexByte(line, '=') < 0 && strings.IndexByte(line, ':') < 0 {
		return false
	}
	for _, cue := range []string{"pass", "pwd", "secret", "token", "key", "credential"} {
		if strings.Contains(strings.ToLower(line), cue) {
			return true
		}
	}
	return false
}

func refHasTokenCue(s string) bool {
	if strings.Contains(strings.ToLower(s), "aws") {
		return true
	}
	for _, c := range tokenCues {
		if strings.Contains(s, c) {
			return true
		}
	}
	return false
}

func refTokenKind(s string) string {
	if !refHasTokenCue(s) {
		return ""
	}
	for _, p := range secretPatterns() {
		if m := p.re.FindString(s); m != "" && !xPlaceholder(m) {
			return p.kind
		}
	}
	return ""
}

func refUnhide(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteRune(r - 0xFEE0)
		case r == 0x3000:
			b.WriteByte(' ')
		case unicode.Is(unicode.Cf, r):
		case r == utf8.RuneError:
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func refScanSplit(lines []string, i int) (string, int) {
	first := strings.TrimSpace(refUnhide(lines[i]))
	if first == "" || !tokenByte(first[len(first)-1]) {
		return "", 0
	}
	joined := first
	kind, span := "", 0
	for k := 1; k < maxSplitLines && i+k < len(lines); k++ {
		next := strings.TrimSpace(refUnhide(lines[i+k]))
		if !tokenRun(next) {
			break
		}
		before := len(joined)
		joined += next
		found := false
		for _, p := range secretPatterns() {
			if !refHasTokenCue(joined) {
				break
			}
			loc := p.re.FindStringIndex(joined)
			if loc != nil && loc[0] < len(first) && loc[1] > before && !xPlaceholder(joined[loc[0]:loc[1]]) {
				kind, span, found = p.kind+" (split over lines)", k+1, true
				break
			}
		}
		if !found && kind != "" {
			break
		}
	}
	return kind, span
}

func refScanBase64(line string) string {
	if len(line) < 20 {
		return ""
	}
	for _, run := range base64Runs(line) {
		data, ok := decodeBase64(run)
		if !ok || !printable(data) {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if kind := refTokenKind(l); kind != "" {
				return kind + " (base64-encoded)"
			}
		}
	}
	return ""
}
