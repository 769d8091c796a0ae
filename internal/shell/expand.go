package shell

import (
	"path"
	"strconv"
	"strings"
)

// MaxExpand bounds the words Expand produces; a command whose brace expansions would make
// more is not expanded (ok false).
const MaxExpand = 1024

// maxBraceWord bounds the length of a word whose braces are expanded: a longer one counts as
// too large to expand, so that a crafted word cannot make the expansion slow.
const maxBraceWord = 4096

// Expand returns the words the shell would pass after brace expansion: "{rm,-rf,x}" is three
// words, "git {push,}" is git push, "-e{x,}ec" is -exec -eec. Words without Glob are kept as
// they are. A brace is read in the word's text after quote removal, so a quoted brace in a
// word that also has an unquoted one may be expanded too: the result may hold more than the
// shell makes, never less. A resulting word keeps Glob only when it still holds *, ? or [.
// ok is false when the expansion would make more than MaxExpand words.
func Expand(ws []Word) (out []Word, ok bool) {
	out = make([]Word, 0, len(ws))
	for _, w := range ws {
		if !w.Glob {
			out = append(out, w)
			continue
		}
		texts, ok := braces(w.Text, MaxExpand-len(out))
		if !ok {
			return nil, false
		}
		for _, t := range texts {
			if t == "" && !w.Quoted {
				continue // an unquoted empty result is no word: git {push,} is git push
			}
			out = append(out, Word{Text: t, Quoted: w.Quoted, Glob: strings.ContainsAny(t, "*?[")})
		}
	}
	return out, len(out) <= MaxExpand
}

// Hidden returns the indexes in ws (a simple command's words) of the words that could expand
// into an option the analyser does not see — a brace expansion with a result that starts
// with "-", or a glob that could match a file named "-…" — when the program is one whose
// options run a command or write a file (ReadsRuns, Writes): "go test {-exec,./evil}",
// "git log *" in a directory holding a file named "--output=x". Such a word counts as one
// that runs or writes.
func Hidden(ws []Word) []int {
	if len(ws) < 2 || !optionsAct(ws[0].Text) {
		return nil
	}
	var at []int
	for i, w := range ws[1:] {
		if !w.Glob {
			continue
		}
		texts, ok := braces(w.Text, MaxExpand)
		if !ok || mayBeOption(texts) {
			at = append(at, i+1)
		}
	}
	return at
}

// optionsAct reports whether the program named has options that run a command or write a
// file, as far as the analyser knows.
func optionsAct(name string) bool {
	base := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/"))), ".exe")
	return ReadsRuns(base) || writeOptions()[base] != nil
}

// mayBeOption reports whether any of texts is an option or a glob that could match one.
func mayBeOption(texts []string) bool {
	for _, t := range texts {
		if t != "" && strings.IndexByte("-*?[", t[0]) >= 0 {
			return true
		}
	}
	return false
}

// MayMatch reports whether a word that is a glob (Word.Glob, after Expand) could name want:
// its text up to the first *, ? or [ and want start alike. It is meant for a deny rule,
// where seeing too much is safe: "r*" may be rm, "*" may be anything.
func MayMatch(pattern, want string) bool {
	lit := pattern
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		lit = pattern[:i]
	}
	return strings.HasPrefix(want, lit) || strings.HasPrefix(lit, want)
}

// braces expands the brace expressions in s as bash does, up to limit results; ok is false
// beyond it.
func braces(s string, limit int) (out []string, ok bool) {
	if len(s) > maxBraceWord && strings.IndexByte(s, '{') >= 0 {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end, commas := closing(s, i)
		if end < 0 {
			continue // unmatched: a literal {
		}
		alts := []string(nil)
		if len(commas) > 0 {
			from := i + 1
			for _, c := range commas {
				alts = append(alts, s[from:c])
				from = c + 1
			}
			alts = append(alts, s[from:end])
		} else if alts, ok = sequence(s[i+1:end], limit); !ok {
			return nil, false
		}
		if alts == nil {
			continue // {x} or {}: literal, an inner brace may still expand
		}
		for _, a := range alts {
			more, ok := braces(s[:i]+a+s[end+1:], limit-len(out))
			if !ok || len(out)+len(more) > limit {
				return nil, false
			}
			out = append(out, more...)
		}
		return out, true
	}
	return []string{s}, true
}

// closing finds the } that closes the { at s[open] and the commas at its own level; end is
// -1 when there is none.
func closing(s string, open int) (end int, commas []int) {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j, commas
			}
		case ',':
			if depth == 1 {
				commas = append(commas, j)
			}
		}
	}
	return -1, nil
}

// sequence expands the inside of {a..e} or {1..10..2}; nil when it is not a sequence.
func sequence(in string, limit int) ([]string, bool) {
	parts := strings.Split(in, "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, true
	}
	step := 1
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil || n > 1e9 || n < -1e9 {
			return nil, true
		}
		step = max(n, -n, 1)
	}
	a, errA := strconv.Atoi(parts[0])
	b, errB := strconv.Atoi(parts[1])
	letters := false
	if errA != nil || errB != nil {
		if len(parts[0]) != 1 || len(parts[1]) != 1 || !isLetter(parts[0][0]) || !isLetter(parts[1][0]) {
			return nil, true
		}
		a, b, letters = int(parts[0][0]), int(parts[1][0]), true
	}
	if max(a, b) > 1e9 || min(a, b) < -1e9 {
		return nil, false // far more words than any limit
	}
	if (max(a, b)-min(a, b))/step+1 > limit {
		return nil, false
	}
	var out []string
	for v := a; a <= b && v <= b || a > b && v >= b; {
		if letters {
			out = append(out, string(rune(v)))
		} else {
			out = append(out, strconv.Itoa(v))
		}
		if a <= b {
			v += step
		} else {
			v -= step
		}
	}
	return out, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
