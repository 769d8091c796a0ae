package memdir

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// ErrSecret is wrapped by the *SecretError returned when a write's text looks like a secret.
var ErrSecret = errors.New("text looks like a secret")

// SecretError is a refused write: the text had something that looks like a credential.
type SecretError struct {
	Name     string // the memory (or "daily log") being written
	Kind     string // what it looks like, e.g. "GitHub token"
	Line     int    // 1-based line in the file that would have been written
	BodyLine int    // 1-based line of the body as the caller gave it, when the secret is there; else 0
}

func (e *SecretError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.BodyLine > 0 {
		where = fmt.Sprintf("line %d of the body (line %d of the file)", e.BodyLine, e.Line)
	}
	return fmt.Sprintf("memdir: refusing to write %q: %s looks like a secret (%s); nothing was written. Remove it and store where the secret lives (an env var name, a vault path) instead",
		e.Name, where, e.Kind)
}

// Unwrap returns ErrSecret.
func (e *SecretError) Unwrap() error { return ErrSecret }

// SecretFinding is one match of ScanSecrets.
type SecretFinding struct {
	Kind  string // e.g. "AWS access key ID", "PEM private key"
	Line  int    // 1-based
	Lines int    // the lines it spans from Line: 1, more for a key split over lines
}

type secretPattern struct {
	kind string
	re   *regexp.Regexp
}

// secretPatterns are the token patterns: each has a fixed, distinctive prefix or shape, so prose
// and code do not match. They are compiled on first use, so commands that never scan text do not
// pay for them at start-up.
var secretPatterns = sync.OnceValue(func() []secretPattern { return compilePatterns() })

func compilePatterns() []secretPattern {
	return []secretPattern{
		{"PEM private key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
		{"AWS access key ID", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`)},
		{"AWS secret access key", regexp.MustCompile(`(?i)aws.{0,20}?(?:secret|private).{0,20}?['"]?\s*[:=]\s*['"]?[A-Za-z0-9/+]{40}\b`)},
		{"GCP API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
		{"GCP OAuth access token", regexp.MustCompile(`\bya29\.[0-9A-Za-z_\-]{20,}`)},
		{"GCP service account key", regexp.MustCompile(`"private_key_id"\s*:\s*"[0-9a-f]{40}"`)},
		{"GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
		{"GitLab token", regexp.MustCompile(`\b(?:glpat|gldt|glptt|glrt|glsoat|glcbt|gloas)-[A-Za-z0-9_\-]{20,}`)},
		{"Slack token", regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`)},
		{"Slack webhook URL", regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}`)},
		{"Anthropic API key", regexp.MustCompile(`\bsk-ant-(?:api|admin|sid)[0-9]{2}-[A-Za-z0-9_\-]{20,}`)},
		{"OpenAI API key", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]*T3BlbkFJ[A-Za-z0-9_\-]{10,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{48}\b`)},
		{"JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}`)},
		{"Stripe secret key", regexp.MustCompile(`\b[sr]k_live_[A-Za-z0-9]{20,}`)},
		{"npm token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	}
}

// tokenCues are literal pieces one of which every secretPatterns match contains (the AWS
// secret key's "aws", in any case, is checked apart). A new pattern needs its cue here.
var tokenCues = []string{
	"PRIVATE KEY", "AKIA", "ASIA", "ABIA", "ACCA", "A3T", "AIza", "ya29.", `"private_key_id"`,
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
	"glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "gloas-",
	"xox", "hooks.slack.com", "sk-", "eyJ", "k_live_", "npm_",
}

// cueBigrams holds, as a bit set, the first two bytes of every token cue and every letter case
// of "aw": a position whose two bytes are not in it cannot start a cue, so hasTokenCue looks at
// each byte once and compares cues only at the rare positions that pass.
var cueBigrams = sync.OnceValue(func() *bigramSet {
	t := new(bigramSet)
	for _, c := range tokenCues {
		t.add(c[0], c[1])
	}
	for _, a := range "aA" {
		for _, w := range "wW" {
			t.add(byte(a), byte(w))
		}
	}
	return t
})

// assignBigrams holds the first two bytes, in every ASCII letter case, of every assignmentCues
// word.
var assignBigrams = sync.OnceValue(func() *bigramSet {
	t := new(bigramSet)
	for _, c := range assignmentCues {
		for _, a := range []byte{c[0], c[0] - 'a' + 'A'} {
			for _, b := range []byte{c[1], c[1] - 'a' + 'A'} {
				t.add(a, b)
			}
		}
	}
	return t
})

// bigramSet is a set of byte pairs (8 KiB; the two sets are built on first use, so that
// commands that scan nothing do not pay for them at start-up).
type bigramSet [1 << 16 / 64]uint64

func (t *bigramSet) add(a, b byte) {
	i := uint(a)<<8 | uint(b)
	t[i/64] |= 1 << (i % 64)
}

func (t *bigramSet) has(a, b byte) bool {
	i := uint(a)<<8 | uint(b)
	return t[i/64]&(1<<(i%64)) != 0
}

// hasTokenCue reports whether s holds one of tokenCues or "aws" in any case: one pass over s,
// comparing cues only where the two bytes there can start one (this runs on every line scanned).
func hasTokenCue(s string) bool {
	cb := cueBigrams()
	for i := 0; i+2 < len(s); i++ {
		if cb.has(s[i], s[i+1]) && cueAt(s, i) {
			return true
		}
	}
	return false
}

// cueAt reports whether one of tokenCues, or "aws" in any case, starts at s[i].
func cueAt(s string, i int) bool {
	if s[i]|0x20 == 'a' && i+3 <= len(s) && s[i+1]|0x20 == 'w' && s[i+2]|0x20 == 's' {
		return true
	}
	for _, cue := range tokenCues {
		if cue[0] == s[i] && strings.HasPrefix(s[i:], cue) {
			return true
		}
	}
	return false
}

// assignment finds "<name> = value", "<name>: value", `"<name>": "value"` where the name says
// it holds a secret. The value is then judged by looksRandom, so "token: see the wiki" passes.
var assignment = lazyRegexp(`(?i)([A-Za-z0-9_.\-]*(?:passw(?:or)?d|passwd|pwd|pass|passphrase|secret|token|key|credentials?)[A-Za-z0-9_.\-]*)["']?\s*(?::=|=>|[:=])\s*["'` + "`" + `]?([^\s"'` + "`" + `,;(){}\[\]|\\<>]{8,})`)

// ScanSecrets returns everything in text that looks like a secret, in line order: the shapes
// of known credentials (cloud keys, GitHub/GitLab/Slack tokens, Anthropic and OpenAI keys,
// JWTs, PEM keys) and high-entropy values assigned to password-, secret- or token-like names;
// placeholders and ordinary words are not findings. It also reads the text with invisible
// characters removed and full-width letters folded, joins a credential split over up to four
// lines, and decodes base64 runs (secret_hidden.go). Findings of texts of secretCacheMin bytes
// or more are kept per text for the process (secret_cache.go); the slice is the caller's.
func ScanSecrets(text string) []SecretFinding {
	return scanCache.scan(text)
}

// scanSecrets is ScanSecrets without the cache.
func scanSecrets(text string) []SecretFinding {
	var out []SecretFinding
	lines := strings.Split(text, "\n")
	norms := lines // unhide keeps line ends, so the lines of unhide(text) are those of text
	if !isASCII(text) {
		norms = make([]string, len(lines))
		for i, l := range lines {
			norms[i] = unhide(l)
		}
	}
	for i := 0; i < len(lines); i++ {
		if kind := scanLine(lines[i], norms[i]); kind != "" {
			out = append(out, SecretFinding{Kind: kind, Line: i + 1, Lines: 1})
			continue
		}
		if kind, n := scanSplit(norms, i); kind != "" {
			out = append(out, SecretFinding{Kind: kind, Line: i + 1, Lines: n})
			i += n - 1
		}
	}
	return out
}

// scanLine returns the kind of secret line holds, as written, with hidden characters removed
// and full-width letters folded (norm, unhide(line)), or base64-encoded; "" for none.
func scanLine(line, norm string) string {
	cue := classify(line)
	if kind := scanPlain(line, cue); kind != "" {
		return kind
	}
	if norm != line {
		cue = classify(norm)
		if kind := scanPlain(norm, cue); kind != "" {
			return kind + " (hidden with invisible or full-width characters)"
		}
	}
	if cue&cueBase64 == 0 {
		return "" // no run of 20 base64 characters: nothing to decode
	}
	return scanBase64(norm)
}

// lineCues are what classify finds in a line: each says a check may match, its absence that it
// cannot.
type lineCues uint8

const (
	cueToken  lineCues = 1 << iota // one of tokenCues, or "aws" in any case (hasTokenCue)
	cueAssign                      // ':' or '=', and an assignmentCues word in any case (assignmentCue)
	cueBase64                      // a run of 20 or more base64 characters (base64Runs)
)

// classify is hasTokenCue, assignmentCue and "base64Runs finds one" in one pass over line: the
// checks that tell most lines from the ones the regexps must look at.
func classify(line string) lineCues {
	var cues lineCues
	cb, ab := cueBigrams(), assignBigrams()
	sep := strings.IndexByte(line, '=') >= 0 || strings.IndexByte(line, ':') >= 0
	run := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if base64Char(c) {
			if run++; run == 20 {
				cues |= cueBase64
			}
		} else {
			run = 0
		}
		if i+2 >= len(line) {
			continue // every cue and word is three bytes or more
		}
		d := line[i+1]
		if cues&cueToken == 0 && cb.has(c, d) && cueAt(line, i) {
			cues |= cueToken
		}
		if sep && cues&cueAssign == 0 && ab.has(c, d) && assignWordAt(line, i) {
			cues |= cueAssign
		}
	}
	return cues
}

// isASCII reports whether s has no byte at or above utf8.RuneSelf.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// scanPlain is the scan of one line as it stands (cues is classify(line)): token shapes first,
// then assignments.
func scanPlain(line string, cues lineCues) string {
	if len(line) < 8 {
		return ""
	}
	if cues&cueToken != 0 {
		if kind := tokenKind(line); kind != "" {
			return kind
		}
	}
	if cues&cueAssign == 0 {
		return "" // no separator or no secret-like name: the assignment regexp cannot match
	}
	for _, m := range assignment().FindAllStringSubmatch(line, -1) {
		if secretName(m[1]) && looksRandom(m[2]) {
			return fmt.Sprintf("high-entropy value assigned to %q", m[1])
		}
	}
	return ""
}

// assignmentCues are the ASCII words one of which every name the assignment regexp accepts
// contains (passw(or)d, passwd, pwd, pass, passphrase, secret, token, key, credential(s)).
var assignmentCues = []string{"pass", "pwd", "secret", "token", "key", "credential"}

// assignWordAt reports whether one of assignmentCues starts at line[i], in any ASCII letter
// case.
func assignWordAt(line string, i int) bool {
	for _, cue := range assignmentCues {
		if hasPrefixFoldASCII(line[i:], cue) {
			return true
		}
	}
	return false
}

// hasPrefixFoldASCII reports whether s starts with the lower-case ASCII word cue, ignoring the
// case of ASCII letters in s.
func hasPrefixFoldASCII(s, cue string) bool {
	if len(s) < len(cue) {
		return false
	}
	for j := 0; j < len(cue); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != cue[j] {
			return false
		}
	}
	return true
}

// tokenKind returns the kind of the first well-known credential shape in s, "" for none.
func tokenKind(s string) string {
	if !hasTokenCue(s) {
		return "" // most lines: no pattern can match, and the regexps cost far more than this
	}
	for _, p := range secretPatterns() {
		if m := p.re.FindString(s); m != "" && !xPlaceholder(m) {
			return p.kind
		}
	}
	return ""
}

var placeholder = lazyRegexp(`(?i)^(?:(?:password|passw0rd|secret|admin|test|qwerty|letmein|welcome|changeme|hunter)[0-9]{0,6}!?$)|^(?:x{3,}|\*{3,}|\.{3,}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|\{\{.*\}\})$|example|changeme|placeholder|redacted|your[_\-]|dummy|sample|xxxx|\*\*\*|\.\.\.|^\$`)

// identifier matches values that are code, not secrets: dotted names, CONSTANT_NAMES,
// camelCase names.
var identifier = lazyRegexp(`^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Z][A-Z0-9_]*|[a-z]+(?:[A-Z][a-z]+)*)$`)

// wordSegment is one part of a kebab/snake-case value made of words: "prod", "v2", "2024".
var wordSegment = lazyRegexp(`^(?:[A-Za-z]+[0-9]{0,3}|[0-9]{1,4})$`)

// wordy reports whether v is words joined by '-', '_' or '.', like "prod-db-credentials-v2".
func wordy(v string) bool {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	long := false
	for _, p := range parts {
		if !wordSegment().MatchString(p) {
			return false
		}
		if len(p) >= 3 {
			long = true
		}
	}
	return len(parts) > 1 && long
}

// xPlaceholder reports whether a token-shaped match is a documentation placeholder such as
// "ghp_xxxxxxxxxxxxxxxxxxxx": eight or more x, X or * in a row.
func xPlaceholder(m string) bool {
	return strings.Contains(m, "xxxxxxxx") || strings.Contains(m, "XXXXXXXX") || strings.Contains(m, "********")
}

// secretName reports whether an assigned name says it holds a secret: its last word (split at
// '_', '-', '.' and camelCase) is password, secret, token …, or key after api, access,
// private …. So "GITHUB_TOKEN", "authToken", "client_secret", "apiKey" do, and "max_tokens",
// "token_usage", "tokenizer", "passwordHash", "secretName" do not.
func secretName(key string) bool {
	words := splitWords(key)
	if len(words) == 0 {
		return false
	}
	switch last := words[len(words)-1]; last {
	case "password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey", "credential", "credentials":
		return true
	case "key":
		if len(words) < 2 {
			return false
		}
		switch words[len(words)-2] {
		case "api", "access", "private", "secret", "auth", "signing", "encryption", "master", "client", "license":
			return true
		}
	}
	return false
}

// splitWords lower-cases key and splits it into words at '_', '-', '.' and camelCase humps.
func splitWords(key string) []string {
	var words []string
	var cur []rune
	rs := []rune(key)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// looksRandom reports whether v is plausibly a generated secret: long enough, not a
// placeholder or an identifier, of at least two character classes including a digit or
// symbol, and with high Shannon entropy.
func looksRandom(v string) bool {
	v = strings.TrimRight(strings.Trim(v, ".:-="), "!;,") // "process.env.KEY!": TypeScript's non-null mark
	if len(v) < 10 || placeholder().MatchString(v) || identifier().MatchString(v) || wordy(v) || strings.ContainsAny(v, "()") {
		return false
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.Contains(v, "://") && !strings.Contains(v, "@") {
		return false // a path or a URL without credentials
	}
	var lower, upper, digit, other int
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = 1
		case r >= 'A' && r <= 'Z':
			upper = 1
		case r >= '0' && r <= '9':
			digit = 1
		default:
			other = 1
		}
	}
	if lower+upper+digit+other < 2 || digit+other == 0 {
		return false
	}
	if lower+upper == 0 {
		return false // numbers, dates, versions
	}
	return entropy(v) >= 3.0
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// lazyRegexp compiles expr on first use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// checkSecrets returns a *SecretError for the first finding in text, or nil.
func checkSecrets(name, text string) error {
	if f := ScanSecrets(text); len(f) > 0 {
		return &SecretError{Name: name, Kind: f[0].Kind, Line: f[0].Line}
	}
	return nil
}
