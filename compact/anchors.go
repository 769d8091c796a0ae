package compact

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/strata-mem/strata/tokens"
)

// A condensation of the pinned messages is the model's text; nothing in it is trusted to hold
// every rule. holds checks it against each original without a model: a rule's literal anchors
// — what a faithful condensation keeps as written, and a lossy one cannot keep by accident —
// must all appear in the condensed text, and its key terms mostly.

var (
	backticked = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\n]+)`") })
	quoted     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"([^"\n]+)"|“([^”\n]+)”|「([^」\n]+)」|『([^』\n]+)』`)
	})
	listNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\d{1,3}[.)]\s`) })
	urlRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>"'` + "`" + `)\]]+`) })
)

// maxQuoted is the longest quoted text (in characters) taken as an anchor.
const maxQuoted = 120

// anchorTrim is what surrounds a word without being part of it.
const anchorTrim = ".,;:!?()[]{}<>\"'`“”‘’«»。，、；：！？（）「」『』【】"

// anchors returns the literal anchors of a pinned message: backticked and quoted text, URLs,
// and the words that are numbers, paths, file names, flags or identifiers (snake_case,
// camelCase, dotted, with digits); in English prose, capitalised words inside a sentence
// (names: Postgres, Korean); in text with CJK characters, every Latin word (what Chinese,
// Japanese or Korean prose names in Latin script is a name: vendor, make, API). Anchors are
// compared case-insensitively; each appears once.
func anchors(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			return
		}
		seen[k] = true
		out = append(out, s)
	}
	// A log or plain prose has none of these patterns: the regular expressions are skipped.
	if strings.Contains(text, "`") || strings.ContainsAny(text, `"“「『`) || strings.Contains(text, "://") {
		for _, m := range backticked().FindAllStringSubmatch(text, -1) {
			add(m[1])
		}
		for _, m := range quoted().FindAllStringSubmatch(text, -1) {
			if q := m[1] + m[2] + m[3] + m[4]; utf8.RuneCountInString(q) <= maxQuoted && (m[1] == "" || len(q) >= 2) {
				add(q) // a quoted word or phrase; a longer "quote" is prose between stray marks
			}
		}
		for _, u := range urlRE().FindAllString(text, -1) {
			add(strings.TrimRight(u, ".,;:!?"))
		}
	}
	hasCJK := strings.IndexFunc(text, tokens.IsCJK) >= 0
	sentenceStart := true
	for _, raw := range latinWords(text) {
		if raw == "\n" {
			sentenceStart = true
			continue
		}
		w := strings.Trim(raw, anchorTrim)
		switch {
		case w == "" || w == "-" || w == "*" || sentenceStart && isListNumber(raw):
			continue
		case urlRE().MatchString(w):
		case literal(w):
			add(w)
		case hasCJK && utf8.RuneCountInString(w) >= 2 && isWord(w):
			add(w)
		case !sentenceStart && isCapitalised(w) && !hasStandingCue(w):
			add(w)
		}
		sentenceStart = strings.ContainsAny(raw[len(raw)-1:], ".!?:;")
	}
	return out
}

// latinWords splits text into its space-separated words, cut where a CJK run begins or ends,
// with "\n" for each line break (a new line starts a sentence, as a list item does).
func latinWords(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			out = append(out, "\n")
		}
		for _, f := range strings.Fields(line) {
			start := -1
			for j, r := range f {
				if tokens.IsCJK(r) || strings.ContainsRune("。，、；：！？（）「」『』【】", r) {
					if start >= 0 {
						out = append(out, f[start:j])
						start = -1
					}
					continue
				}
				if start < 0 {
					start = j
				}
			}
			if start >= 0 {
				out = append(out, f[start:])
			}
		}
	}
	return out
}

// isListNumber reports a list item's number ("1.", "2)").
func isListNumber(w string) bool {
	if !strings.HasSuffix(w, ".") && !strings.HasSuffix(w, ")") {
		return false
	}
	w = w[:len(w)-1]
	if w == "" || len(w) > 3 {
		return false
	}
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// literal reports whether w is a word a rule means as written: a number, a path or file name,
// a flag, or an identifier.
func literal(w string) bool {
	var letters, digits, upperInside bool
	prevLower := false
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits = true
		case unicode.IsLetter(r):
			letters = true
			if i > 0 && unicode.IsUpper(r) && prevLower {
				upperInside = true
			}
		}
		prevLower = unicode.IsLower(r)
	}
	switch {
	case digits:
		return true // 5432, v2, db-1, 3.14, 80%
	case !letters:
		return false
	case strings.HasPrefix(w, "-") && len(w) > 1 && w[1] != ' ':
		return true // --no-verify, -rf
	case strings.ContainsAny(w, "/\\_=$@#~"):
		return true // paths, snake_case, KEY=value
	case strings.Contains(strings.Trim(w, "."), "."):
		return true // main.go, os.Exit
	}
	return upperInside // camelCase, GitHub
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return false
		}
	}
	return true
}

// isCapitalised reports an English name: a capital, then letters, not the pronoun I.
func isCapitalised(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && r < utf8.RuneSelf && len(w) > 1 && isWord(w[n:])
}

// keyTerms returns what a rule says in its own words, drawn from its rule sentences (those
// with a standing cue; for a message without one, such as a first request, its first
// sentence), as a condensation drops explanation and examples around them: the character
// bigrams of their CJK runs (cue words such as 以后 or 항상 left out, as a condensation may merge
// or reword them) and, when the message has neither CJK text nor anchors, the stems of their
// English content words. Each term appears once.
func keyTerms(text string, anchors []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	rules := ruleSentences(text)
	if strings.IndexFunc(rules, tokens.IsCJK) >= 0 {
		for _, c := range standingCJK {
			rules = strings.ReplaceAll(rules, c, " ")
		}
		var run []rune
		flush := func() {
			switch {
			case len(run) >= 2 && unicode.Is(unicode.Hangul, run[0]):
				// A Korean word: its first two syllables, the stem its endings and particles
				// (실행한, 실행하세요; 한국어로, 한국어를) leave alone.
				add(string(run[:2]))
			default:
				for i := 0; i+1 < len(run); i++ {
					add(string(run[i : i+2]))
				}
			}
			run = run[:0]
		}
		for _, r := range rules {
			if unicode.Is(unicode.Hangul, r) && len(run) > 0 && !unicode.Is(unicode.Hangul, run[0]) || !unicode.Is(unicode.Hangul, r) && len(run) > 0 && unicode.Is(unicode.Hangul, run[0]) {
				flush()
			}
			if tokens.IsCJK(r) {
				run = append(run, r)
			} else {
				flush()
			}
		}
		flush()
		return out
	}
	if len(anchors) > 0 || strings.IndexFunc(text, tokens.IsCJK) >= 0 {
		return nil
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(rules), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) >= 4 && !stopWords()[w] && !hasStandingCue(w) {
			add(stem(w))
		}
	}
	return out
}

// ruleSentences returns the sentences of text that carry a standing cue, joined by newlines,
// or its first sentence when none does.
func ruleSentences(text string) string {
	sentences := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".!?\n。！？", r) })
	var out []string
	for _, s := range sentences {
		if hasStandingCue(s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 && len(sentences) > 0 {
		return sentences[0]
	}
	return strings.Join(out, "\n")
}

// stem is a word's first five letters: enough to match "answer"/"answers"/"answering".
func stem(w string) string {
	r := []rune(w)
	return string(r[:min(len(r), 5)])
}

// stopWords are English words too common to be a rule's key term (built on first use, so that
// start-up pays nothing for them).
var stopWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"this": true, "that": true, "with": true, "from": true, "have": true, "will": true, "when": true,
		"what": true, "your": true, "they": true, "them": true, "then": true, "than": true, "there": true,
		"their": true, "here": true, "into": true, "only": true, "also": true, "just": true, "like": true,
		"please": true, "should": true, "would": true, "could": true, "about": true, "each": true,
		"before": true, "after": true, "every": true, "some": true, "more": true, "less": true,
	}
})

// maxMissing is where missingFrom stops counting missing anchors.
const maxMissing = 10

// missingFrom returns what condensed lacks of the rule in text: its anchors that do not appear
// in it, and "key terms" when fewer than half of its key terms do. Empty means condensed holds
// the rule as far as can be checked without a model. An anchor counts where it stands as a
// word of its own (3 is not found in 30, db-3 or a list's "3."), and case is ignored.
func missingFrom(text, condensed string) []string {
	low := listNumber().ReplaceAllString(strings.ToLower(condensed), "")
	words := map[string]bool{}
	for _, w := range latinWords(low) {
		words[strings.Trim(w, anchorTrim)] = true
	}
	an := anchors(text)
	var missing []string
	for _, a := range an {
		if la := strings.ToLower(a); !words[la] && !containsWord(low, la) {
			missing = append(missing, a)
			if len(missing) == maxMissing {
				break // a long paste's thousand anchors: enough to know the text misses it
			}
		}
	}
	terms := keyTerms(text, an)
	if len(terms) == 0 {
		return missing
	}
	var have map[string]bool
	if strings.IndexFunc(text, tokens.IsCJK) < 0 {
		have = map[string]bool{}
		for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) }) {
			have[stem(w)] = true
		}
	}
	found := 0
	for _, t := range terms {
		if have != nil && have[t] || have == nil && strings.Contains(condensed, t) {
			found++
		}
	}
	if 2*found < len(terms) {
		missing = append(missing, "key terms")
	}
	return missing
}

// containsWord reports whether w occurs in s as a word of its own: not inside a longer word,
// number, path or identifier. A CJK letter next to it is an edge (Korean particles and
// Chinese text attach to Latin words: Postgres로, vendor目录).
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, _ := utf8.DecodeLastRuneInString(s[:j])
		after, n := utf8.DecodeRuneInString(s[j+len(w):])
		next, _ := utf8.DecodeRuneInString(s[min(j+len(w)+n, len(s)):])
		okBefore := j == 0 || !inWord(before) && !strings.ContainsRune("-_/.", before) || !inWord(rune(w[0]))
		okAfter := j+len(w) == len(s) || !inWord(after) && !strings.ContainsRune("-_/", after) && (after != '.' || !inWord(next)) || !inWord(lastRune(w))
		if okBefore && okAfter {
			return true
		}
		i = j + 1
	}
}

// inWord reports a letter or digit of a Latin-script word.
func inWord(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') && !tokens.IsCJK(r)
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
