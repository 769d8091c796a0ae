package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// MaxExpand bounds the words Expand produces; a command whose brace expansions would make
// more is not expanded (ok false).
const MaxExpand = 1024

// Expand returns the words the shell would pass after brace expansion (made by
// mvdan.cc/sh/v3/expand): "{rm,-rf,x}" is three words, "git {push,}" is git push. Words
// without Glob are kept as they are. A resulting word keeps Glob only when it still holds *,
// ? or [. ok is false when the expansion would make more than MaxExpand words.
func Expand(ws []Word) (out []Word, ok bool) {
	out = make([]Word, 0, len(ws))
	for _, w := range ws {
		if !w.Glob || w.node == nil {
			out = append(out, w)
			continue
		}
		texts, ok := braces(w, MaxExpand-len(out))
		if !ok {
			return nil, false
		}
		for _, t := range texts {
			if t.Text == "" && !t.Quoted {
				continue // an unquoted empty result is no word: git {push,} is git push
			}
			out = append(out, t)
		}
	}
	return out, len(out) <= MaxExpand
}

// maxBraceWord bounds the length of a word whose braces are expanded: a longer one counts as
// too large to expand, so that a crafted word cannot make the expansion slow.
const maxBraceWord = 4096

// braces expands the brace expressions of w, up to limit words.
func braces(w Word, limit int) ([]Word, bool) {
	if len(w.Text) > maxBraceWord && strings.Contains(w.Text, "{") {
		return nil, false
	}
	if w.node == nil {
		return []Word{w}, true
	}
	split := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.node.Parts...)}
	if !syntax.SplitBraces(split) {
		return []Word{w}, true
	}
	var out []Word
	r := &reader{}
	for e, err := range expand.BracesSeq(nil, split) {
		if err != nil || len(out) >= limit {
			return nil, false
		}
		x := r.word(e)
		x.node = nil
		x.Glob = strings.ContainsAny(x.Text, "*?[")
		out = append(out, x)
	}
	return out, true
}

// mayBeOption reports whether a glob word could expand into an option.
func mayBeOption(w Word) bool {
	texts, ok := braces(w, MaxExpand)
	if !ok {
		return true
	}
	for _, t := range texts {
		if t.Text != "" && strings.IndexByte("-*?[", t.Text[0]) >= 0 {
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

// base is a program's name as a file system may find it: its base name, in lower case,
// without ".exe".
func base(name string) string {
	return strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/"))), ".exe")
}
