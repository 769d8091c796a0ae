package recall

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Token is one index term produced by Tokenize.
type Token struct {
	// Term is the normalised form: NFKC, case-folded, English words stemmed; for CJK text a
	// character bigram (or a single character, see Unigram).
	Term string
	// Surface is the word as written, case-folded but not stemmed ("" for CJK terms): the
	// ranker uses it to correct misspelt query words and to split or join compounds.
	Surface string
	// Unigram marks a single CJK character. Unigrams are emitted next to the bigrams so that a
	// one-character query word still matches, but they weigh less in scoring.
	Unigram bool
}

// Tokenize splits text into index terms, in text order:
//
//   - the text is NFKC-normalised (full-width Latin and digits become ASCII, compatibility
//     characters their plain forms) and case-folded;
//   - runs of letters, digits and combining marks form words; an apostrophe inside a word is
//     dropped ("don't" → "dont"), a possessive "'s" is removed;
//   - English stopwords and one-letter words are dropped, the rest are stemmed (see Stem);
//   - Han, kana and Hangul runs become overlapping character bigrams, each followed by the
//     unigrams it covers (a run of one character is a unigram only);
//   - everything else (punctuation, symbols, spaces) separates tokens.
//
// Tokenize is safe for concurrent use and never fails; invalid UTF-8 is treated as separators.
func Tokenize(text string, dst []Token) []Token {
	if !isASCII(text) {
		if !plainHan(text) {
			text = norm.NFKC.String(text)
		}
		if needsFold(text) {
			text = foldCase(text)
		}
	}
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isWordByte(c) {
				i = scanWord(text, i, &dst)
				continue
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			i++
		case isCJKLetter(r):
			i = scanCJK(text, i, &dst)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			i = scanWord(text, i, &dst)
		default:
			i += n
		}
	}
	return dst
}

// Terms is Tokenize returning only the terms.
func Terms(text string) []string {
	toks := Tokenize(text, nil)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Term
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainHan reports whether s holds only ASCII, common CJK ideographs (U+4E00–U+9FFF) and the
// ideographic comma and full stop: characters without decompositions or combining classes,
// so NFKC leaves such text as it is and need not be asked (most Chinese text is such).
func plainHan(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r >= 0x4E00 && r <= 0x9FFF || r == 0x3001 || r == 0x3002) {
			return false
		}
		i += n
	}
	return true
}

// needsFold reports whether case folding could change s: it has an upper-case ASCII letter
// or a non-ASCII letter outside the caseless CJK scripts.
func needsFold(s string) bool {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if r >= 'A' && r <= 'Z' {
				return true
			}
		case isCJKLetter(r) || !unicode.IsLetter(r):
		default:
			return true
		}
	}
	return false
}

var folderPool = sync.Pool{New: func() any { c := cases.Fold(); return &c }}

// foldCase applies Unicode full case folding (so "Straße" matches "STRASSE").
func foldCase(s string) string {
	c := folderPool.Get().(*cases.Caser)
	out := c.String(s)
	folderPool.Put(c)
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isCJKLetter reports whether r is written without spaces between words: Han, Hiragana,
// Katakana (and the prolonged sound mark) or Hangul.
func isCJKLetter(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if r >= 0x4E00 && r <= 0x9FFF {
		return true // the common ideographs, without a table lookup
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 0x30FC
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// wordRune reports whether the rune at text[i:] continues a non-CJK word, and its size.
func wordRune(text string, i int) (bool, int) {
	c := text[i]
	if c < utf8.RuneSelf {
		return isWordByte(c), 1
	}
	r, n := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && n <= 1 || isCJKLetter(r) {
		return false, n
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r), n
}

// scanWord reads the word starting at text[start:] and appends its term.
func scanWord(text string, start int, dst *[]Token) int {
	var buf [4]string
	parts := buf[:0] // the word's pieces between dropped apostrophes
	i, seg := start, start
	for i < len(text) {
		ok, n := wordRune(text, i)
		if ok {
			i += n
			continue
		}
		// An apostrophe between word characters: "'s" ending the word is a possessive and is
		// dropped; otherwise the apostrophe is removed and the word goes on ("don't" → "dont").
		r, an := utf8.DecodeRuneInString(text[i:])
		next := i + an
		if !isApostrophe(r) || next >= len(text) {
			break
		}
		if ok, _ := wordRune(text, next); !ok {
			break
		}
		parts = append(parts, text[seg:i])
		if c := text[next]; c == 's' || c == 'S' {
			if end := next + 1; end >= len(text) || !isWordAt(text, end) {
				addWord(strings.Join(parts, ""), dst)
				return end
			}
		}
		i, seg = next, next
	}
	parts = append(parts, text[seg:i])
	addWord(strings.Join(parts, ""), dst)
	return i
}

func isWordAt(text string, i int) bool {
	ok, _ := wordRune(text, i)
	return ok
}

// addWord lower-cases, filters and stems one word.
func addWord(w string, dst *[]Token) {
	w = lowerASCII(w)
	if len(w) == 1 && w[0] < utf8.RuneSelf && !(w[0] >= '0' && w[0] <= '9') {
		return
	}
	if len(w) > maxWordLen {
		w = w[:maxWordLen]
		for !utf8.ValidString(w) {
			w = w[:len(w)-1]
		}
	}
	stem := cachedStem(w)
	if stem == "" {
		return // a stopword
	}
	*dst = append(*dst, Token{Term: stem, Surface: w})
}

// maxWordLen caps a term's length in bytes, so a 5 MB run of letters is one bounded term.
const maxWordLen = 64

func lowerASCII(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// scanCJK reads a run of CJK letters and appends its bigrams and unigrams.
func scanCJK(text string, start int, dst *[]Token) int {
	i := start
	prev := -1 // start of the previous rune in the run
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isCJKLetter(r) {
			break
		}
		if prev >= 0 {
			*dst = append(*dst, Token{Term: text[prev : i+n]})
		}
		*dst = append(*dst, Token{Term: text[i : i+n], Unigram: true})
		prev = i
		i += n
	}
	return i
}

// The stem cache: stemming is the costliest step of indexing, and a store's vocabulary is
// small. It is sharded to keep concurrent indexers apart, and each shard stops growing at
// stemShardMax entries.
const (
	stemShards   = 32
	stemShardMax = 1 << 13
)

var stemCache [stemShards]struct {
	mu sync.RWMutex
	m  map[string]string
	_  [40]byte // keep shards on separate cache lines
}

// cachedStem returns Stem(w), or "" when w is a stopword (directly or as an irregular form
// of one, like "done").
func cachedStem(w string) string {
	h := uint(len(w))*31 + uint(w[0])*7 + uint(w[len(w)-1])
	if len(w) > 2 {
		h += uint(w[len(w)/2]) * 131
	}
	sh := &stemCache[h%stemShards]
	sh.mu.RLock()
	s, ok := sh.m[w]
	sh.mu.RUnlock()
	if ok {
		return s
	}
	s = Stem(w)
	if sw := stopwords(); sw[w] || sw[irregular()[w]] {
		s = ""
	}
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = make(map[string]string)
	}
	if len(sh.m) < stemShardMax {
		// Clone so a cached key never pins a large source text in memory.
		k := strings.Clone(w)
		if s == w && s != "" {
			s = k
		}
		sh.m[k] = s
	}
	sh.mu.Unlock()
	return s
}
