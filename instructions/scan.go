package instructions

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strata-mem/strata/tokens"
)

// importRef is an "@token" found in a file, before any file system check.
type importRef struct {
	Path string // the path as written: escapes resolved, trailing punctuation and #fragment dropped
	Line int    // 1-based line in the file
	Glob bool   // Path is a glob ("@.cursor/rules/**/*.md"): it names no one file
}

// scanned is a body after comment stripping, with the import candidates it holds.
type scanned struct {
	Text    string
	Imports []importRef
}

// StripComments removes block-level HTML comments from markdown text: a comment that starts a
// line (at its first column, as Claude Code reads it), outside fenced code blocks, is removed through the line
// holding "-->"; text after "-->" on that line stays. An unclosed comment stays as written, and
// comments inside a line of prose stay too (they are not block-level).
func StripComments(text string) string { return scan(text, 1).Text }

// scan strips block comments from body (whose first line is line firstLine of its file) and
// collects import candidates outside code spans, fenced blocks and comments. A body without
// block comments is returned as it is, without a copy.
func scan(body string, firstLine int) scanned {
	var out textOut
	out.body = body
	var refs []importRef
	var (
		fenceChar    byte
		fenceLen     int
		inComment    bool
		commentStart int // offset in body of the line that opened the comment
	)
	line := firstLine - 1
	rest := body
	for len(rest) > 0 {
		line++
		start := len(body) - len(rest)
		var l string
		nl := strings.IndexByte(rest, '\n')
		hasNL := nl >= 0
		if hasNL {
			l, rest = rest[:nl], rest[nl+1:]
		} else {
			l, rest = rest, ""
		}
		end := len(body) - len(rest)
		if inComment {
			if i := strings.Index(l, "-->"); i >= 0 {
				inComment = false
				after := afterComments(l[i+3:])
				if strings.TrimSpace(after) != "" {
					out.write(after, hasNL)
					refs = scanLine(after, line, refs)
				}
			}
			continue
		}
		if fenceLen > 0 {
			out.keep(start, end)
			if c, n, info := fence(l); n >= fenceLen && c == fenceChar && strings.TrimSpace(info) == "" {
				fenceLen = 0
			}
			continue
		}
		if c, n, info := fence(l); n > 0 && !(c == '`' && strings.IndexByte(info, '`') >= 0) {
			fenceChar, fenceLen = c, n
			out.keep(start, end)
			continue
		}
		if t, ok := blockStart(l); ok {
			if i := strings.Index(t[4:], "-->"); i >= 0 {
				after := afterComments(t[4+i+3:])
				if strings.TrimSpace(after) != "" {
					out.write(after, hasNL)
					refs = scanLine(after, line, refs)
				}
				continue
			}
			inComment, commentStart = true, start
			continue
		}
		out.keep(start, end)
		refs = scanLine(l, line, refs)
	}
	if inComment {
		// Unclosed: the comment stays as written (it is not a note we can delimit).
		out.keep(commentStart, len(body))
	}
	return scanned{Text: out.text(), Imports: refs}
}

// textOut collects the text scan keeps. While the kept text is a prefix of body, it only
// remembers the prefix's length; it copies once something is left out or changed.
type textOut struct {
	body   string
	n      int  // body[:n] is the text so far, while copied is false
	copied bool // the text so far is in b
	b      strings.Builder
}

// keep adds body[start:end] unchanged.
func (o *textOut) keep(start, end int) {
	if !o.copied && start == o.n {
		o.n = end
		return
	}
	o.copy()
	o.b.WriteString(o.body[start:end])
}

// write adds s, followed by a newline when nl is set.
func (o *textOut) write(s string, nl bool) {
	o.copy()
	o.b.WriteString(s)
	if nl {
		o.b.WriteByte('\n')
	}
}

// copy moves the text so far into the builder.
func (o *textOut) copy() {
	if o.copied {
		return
	}
	o.copied = true
	o.b.Grow(len(o.body))
	o.b.WriteString(o.body[:o.n])
}

func (o *textOut) text() string {
	if !o.copied {
		return o.body[:o.n]
	}
	return o.b.String()
}

// blockStart reports whether l opens a block-level comment as Claude Code takes one ("<!--" at
// the start of the line: an indented comment, as in a list item, stays) and returns l.
func blockStart(l string) (string, bool) {
	return l, strings.HasPrefix(l, "<!--")
}

// afterComments returns s with further complete comments at its start removed.
func afterComments(s string) string {
	for {
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, "<!--") {
			return s
		}
		i := strings.Index(t[4:], "-->")
		if i < 0 {
			return s
		}
		s = t[4+i+3:]
	}
}

// fence reports whether l is a code fence line: its character, run length (0 if not a fence)
// and the info string after the run. The fence may be indented as far as a list item nests it
// ("1. Step" then "    ```"), open a list item ("- ```"), or stand in a block quote ("> ```"):
// Claude Code's markdown lexer takes those for code too, so an @path inside is no import.
func fence(l string) (byte, int, string) {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '>') {
		i++
	}
	if m := listMarker(l[i:]); m > 0 {
		i += m
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
	}
	if i >= len(l) || l[i] != '`' && l[i] != '~' {
		return 0, 0, ""
	}
	c := l[i]
	n := 0
	for i+n < len(l) && l[i+n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return c, n, l[i+n:]
}

// listMarker returns the length of the list item marker ("-", "*", "+", "1.", "2)") and the
// blank after it that l starts with, or 0.
func listMarker(l string) int {
	n := 0
	for n < len(l) && n < 9 && l[n] >= '0' && l[n] <= '9' {
		n++
	}
	switch {
	case n > 0 && n < len(l) && (l[n] == '.' || l[n] == ')'):
		n++
	case n == 0 && l != "" && strings.IndexByte("-*+", l[0]) >= 0:
		n = 1
	default:
		return 0
	}
	if n < len(l) && (l[n] == ' ' || l[n] == '\t') {
		return n + 1
	}
	return 0
}

// scanLine appends the import candidates of one line of prose, skipping code spans.
func scanLine(l string, line int, refs []importRef) []importRef {
	if strings.IndexByte(l, '@') < 0 {
		return refs
	}
	for i := 0; i < len(l); {
		switch l[i] {
		case '`':
			n := 0
			for i+n < len(l) && l[i+n] == '`' {
				n++
			}
			if end := closingRun(l[i+n:], n); end >= 0 {
				i += n + end + n
			} else {
				i += n
			}
			continue
		case '@':
			if atBoundary(l, i) {
				tok, next := readToken(l, i+1)
				if p, ok := importPath(tok); ok {
					refs = append(refs, importRef{Path: p, Line: line})
				} else if g, ok := globImport(tok); ok {
					refs = append(refs, importRef{Path: g, Line: line, Glob: true})
				}
				i = next
				continue
			}
		}
		i++
	}
	return refs
}

// closingRun finds a run of exactly n backticks in s and returns its offset, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(s) && s[i+m] == '`' {
			m++
		}
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// atBoundary reports whether the '@' at l[i] starts a token: at the start of the line, after
// white space, or after a CJK character or punctuation mark (CJK text has no spaces).
func atBoundary(l string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(l[:i])
	return unicode.IsSpace(r) || tokens.IsCJK(r) || cjkPunct(r)
}

// cjkPunct reports full-width and CJK punctuation, which ends an import token.
func cjkPunct(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303F:
		return true
	case r >= 0xFF01 && r <= 0xFF0F, r >= 0xFF1A && r <= 0xFF20, r >= 0xFF3B && r <= 0xFF40, r >= 0xFF5B && r <= 0xFF65:
		return true
	}
	return false
}

// readToken reads the token starting at l[i]: up to unescaped white space, a backtick or CJK
// punctuation. "\ " is an escaped space. It returns the token and the index after it; a token
// without escapes is a substring of l (no copy).
func readToken(l string, i int) (string, int) {
	var b []byte // the token with its escapes resolved, once it has one
	start := i
	for i < len(l) {
		if l[i] == '\\' && i+1 < len(l) && l[i+1] == ' ' {
			b = append(append(b, l[start:i]...), ' ')
			i += 2
			start = i
			continue
		}
		stop, n := tokenStop(l, i)
		if stop {
			break
		}
		i += n
	}
	if b == nil {
		return l[start:i], i
	}
	return string(append(b, l[start:i]...)), i
}

// tokenStop reports whether the character at l[i] ends a token (white space, a backtick, CJK
// punctuation), and its length in bytes.
func tokenStop(l string, i int) (bool, int) {
	c := l[i]
	if c == ' ' || c == '\t' || c == '`' {
		return true, 1
	}
	if c < utf8.RuneSelf {
		return false, 1
	}
	r, n := utf8.DecodeRuneInString(l[i:])
	return unicode.IsSpace(r) || cjkPunct(r), n
}

// importPath turns a token into a path, or reports that it cannot be one.
func importPath(tok string) (string, bool) {
	if i := strings.IndexByte(tok, '#'); i >= 0 {
		tok = tok[:i]
	}
	tok = strings.TrimRight(tok, ".,:;)!?]")
	if tok == "" {
		return "", false
	}
	for _, r := range tok {
		switch {
		case r == '.' || r == '_' || r == '-' || r == '~' || r == '/' || r == '+' || r == '%' || r == ' ':
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)):
		default:
			return "", false
		}
	}
	if strings.HasPrefix(tok, "~") && tok != "~" && !strings.HasPrefix(tok, "~/") {
		return "", false // "~user/…" is not supported, and "~~" is markdown
	}
	if strings.Trim(tok, ".") == "" {
		return "", false // "@..." is an ellipsis, not a path
	}
	return tok, true
}

// globImport reports a token that is a path with glob characters ("@src/**/*.ts",
// "@.cursor/rules/*.md"), written like a file path: imports load nothing for it.
func globImport(tok string) (string, bool) {
	if i := strings.IndexByte(tok, '#'); i >= 0 {
		tok = tok[:i]
	}
	tok = strings.TrimRight(tok, ".,:;)!?")
	if !strings.ContainsAny(tok, "*?") {
		return "", false
	}
	plain := strings.Map(func(r rune) rune {
		switch r {
		case '*', '?', '[', ']', '{', '}', ',', '!':
			return 'x'
		}
		return r
	}, tok)
	if _, ok := importPath(plain); !ok || !fileLike(plain) {
		return "", false
	}
	return tok, true
}

// explicitPath reports a path written so that it can only mean a file path.
func explicitPath(p string) bool {
	return strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~/")
}

// fileLike reports whether a path that names nothing on disk was clearly meant as a file: it
// is explicit, or its last element has an extension and it either contains a "/" or the
// extension is a common text-file one.
func fileLike(p string) bool {
	if explicitPath(p) {
		return true
	}
	ext := extension(p)
	if ext == "" {
		return false
	}
	return strings.Contains(strings.TrimPrefix(p, "/"), "/") || textExt(strings.ToLower(ext))
}

// extension returns the last element's extension without the dot, when it looks like one:
// 1 to 10 letters or digits, not all digits, and a non-empty name before the dot.
func extension(p string) string {
	base := p[strings.LastIndexByte(p, '/')+1:]
	i := strings.LastIndexByte(base, '.')
	if i <= 0 || i == len(base)-1 || len(base)-i-1 > 10 {
		return ""
	}
	ext := base[i+1:]
	digits := true
	for j := 0; j < len(ext); j++ {
		c := ext[j]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			digits = false
		default:
			return ""
		}
	}
	if digits {
		return ""
	}
	return ext
}

// textExt reports whether ext is the extension of files people import into instructions. A
// switch, not a map: a map would be built in an initialiser every strata process pays for.
func textExt(ext string) bool {
	switch ext {
	case "md", "markdown", "mdx", "txt", "text", "rst", "adoc", "org", "yaml", "yml", "json",
		"jsonc", "json5", "toml", "ini", "cfg", "conf", "xml", "html", "htm", "css", "scss", "csv", "tsv",
		"sql", "sh", "bash", "zsh", "fish", "ps1", "py", "go", "rs", "js", "jsx", "ts", "tsx", "mjs",
		"cjs", "java", "kt", "kts", "swift", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "pl", "lua",
		"scala", "dart", "ex", "exs", "erl", "hs", "ml", "nix", "tf", "proto", "graphql", "gql", "vue",
		"svelte", "astro", "env", "gradle", "cmake", "mk", "zig", "sol", "log", "diff", "patch", "tex",
		"prisma", "lock", "mod", "sum", "properties":
		return true
	}
	return false
}

// binaryExt reports whether ext is the extension of files that are never text.
func binaryExt(ext string) bool {
	switch ext {
	case "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "tif", "tiff", "pdf", "zip",
		"gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "tar", "jar", "war", "class", "exe", "dll", "so",
		"dylib", "o", "a", "bin", "dat", "db", "sqlite", "sqlite3", "woff", "woff2", "ttf", "otf", "eot",
		"mp3", "mp4", "wav", "ogg", "flac", "mov", "avi", "mkv", "webm", "wasm", "pyc", "psd", "doc",
		"docx", "xls", "xlsx", "ppt", "pptx", "key", "p12", "pfx", "der":
		return true
	}
	return false
}
