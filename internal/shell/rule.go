package shell

import (
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Rule is the command of a Bash permission rule: "git log:*" (a prefix) or "make test" (an
// exact command), read by Parse as the words of one simple command.
type Rule struct {
	spec   string
	prefix bool
	words  []Word
	ok     bool // the rule is one simple command (or, for a prefix, nothing)
}

// ParseRule reads the specifier of a Bash rule.
func ParseRule(spec string) Rule {
	spec = strings.TrimSpace(spec)
	text, prefix := strings.CutSuffix(spec, ":*")
	r := Rule{spec: spec, prefix: prefix}
	s, err := Parse(strings.TrimSpace(text))
	switch {
	case err != nil:
	case len(s.Commands) == 0 && len(s.Constructs) == 0:
		r.ok = true
	default:
		c, ok := s.Simple()
		r.words, r.ok = c.Words, ok
	}
	return r
}

// Allows reports whether an allow rule covers command. It covers only a command that is
// exactly one simple command and nothing else (Script.Simple). An exact rule covers the
// command whose words are the rule's. A prefix rule covers a command whose words start with
// the rule's — whole words, none a glob — when every word after them is a plain operand or
// an option on the known-safe list of the program in the one table (Safe): an unknown
// option asks. It never covers a command that runs another through its arguments (xargs,
// sh -c, eval, env, nice, timeout, prlimit, setarch, the dynamic loader, find -exec …), nor
// a rule that names only a program that runs what its arguments say (ssh, flock, awk …).
func (r Rule) Allows(command string) bool {
	if !r.ok {
		return false
	}
	s, err := Parse(strings.TrimSpace(command))
	if err != nil {
		return false
	}
	c, ok := s.Simple()
	if !ok || c.SubstitutionText() || len(c.Words) < len(r.words) || !r.prefix && len(c.Words) != len(r.words) {
		return false // SubstitutionText: printf -v 'a[$(rm x)]' and test -v run the quoted text
	}
	for i, w := range r.words {
		got := c.Words[i]
		if got.Text != w.Text || got.Glob != w.Glob || r.prefix && got.Glob {
			return false
		}
	}
	if !r.prefix {
		return true
	}
	if key, _ := Known(c.Words); len(c.Runs) > 0 || key == "" && runsUnread(c.Words) && len(r.words) < 2 {
		return false
	}
	return Safe(c.Words, len(r.words)) == ""
}

// Denies reports whether a deny rule matches command, eagerly: any simple command anywhere in
// it (chained, substituted, nested, or run through a wrapper such as xargs, env, sudo, sh -c)
// whose words start with the rule's ("rm:*" denies rmdir too; a path matches its base name).
// Any rule also matches a command the parser cannot read and a shell reading its script from
// stdin; for programs whose arguments run commands the analyser does not read (ssh, awk …)
// the rule's words are looked for anywhere in the text.
func (r Rule) Denies(command string) bool {
	cmd := strings.TrimSpace(command)
	text, _ := strings.CutSuffix(r.spec, ":*")
	if !r.ok {
		return strings.Contains(cmd, text) || wordsWithin(cmd, text, r.prefix)
	}
	if r.prefix && len(r.words) == 0 {
		return true
	}
	s, err := Parse(cmd)
	if err != nil {
		return true
	}
	for _, c := range s.Commands {
		if denyExpanded(c.Words, r.words, text, r.prefix) || readsStdin(c) {
			return true
		}
	}
	for _, c := range s.Commands {
		if runsUnread(c.Words) || len(c.Runs) == 0 && len(c.Words) > 0 && IsShell(c.Words[0].Text) || c.SubstitutionText() {
			// ionice rm, ssh host rm, awk's system(), sh script.sh, or a word holding a
			// substitution's text, which bash may evaluate later (let 'a[$(rm x)]', printf -v)
			return wordsWithin(cmd, text, r.prefix)
		}
	}
	return false
}

// readsStdin reports whether c is a shell or an interpreter that reads the script it runs
// from its standard input: sh, bash -s, python -, perl with no operand …
func readsStdin(c Command) bool {
	if len(c.Words) == 0 || len(c.Runs) > 0 {
		return false
	}
	name := base(c.Words[0].Text)
	shell := IsShell(name)
	if !shell && !interpreters()[strings.TrimRight(name, "0123456789.-_")] {
		return false
	}
	for _, w := range c.Words[1:] {
		switch t := w.Text; {
		case t == "-" || t == "/dev/stdin" || t == "/dev/fd/0" || t == "/proc/self/fd/0":
			return true
		case shell && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "s"):
			return true
		case !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+"):
			return false // a script file (looked through as text) or an option's value
		}
	}
	return true
}

// interpreters are the programs that read a script from standard input when given none.
var interpreters = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"python": true, "pypy": true, "perl": true, "ruby": true, "node": true, "nodejs": true,
		"php": true, "lua": true, "luajit": true, "tclsh": true, "rscript": true, "julia": true, "deno": true, "bun": true,
		"fish": true, "csh": true, "tcsh": true, "pwsh": true, "osascript": true, "busybox": true}
})

// wordsWithin is the look through a command the analyser cannot read word by word: whether
// the rule's words occur anywhere among the words of text, quotes, backslashes and the
// shell's operators dropped, a program given by path matching its base name. It sees too
// much, which is safe only for a deny rule.
func wordsWithin(text, rule string, prefix bool) bool {
	want := strings.Fields(rule)
	if len(want) == 0 {
		return false
	}
	words := strings.Fields(strings.Map(func(r rune) rune {
		switch r {
		case '\\', '\'', '"':
			return -1
		case '{', '}', '(', ')', ';', '=', '!', '|', '&', '`', '$', '<', '>':
			return ' ' // alias.x=!rm, --eval=all:;rm, --rsh=rm, ex -c '!rm': the command after the sign
		}
		return r
	}, text))
	for i := range words {
		if len(words)-i < len(want) {
			return false
		}
		ok := true
		for j, w := range want {
			got := words[i+j]
			if j == 0 && !strings.Contains(w, "/") {
				got = path.Base(got)
			}
			if got != w && !(prefix && j == len(want)-1 && strings.HasPrefix(got, w)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// denyExpanded reports whether a deny rule whose words are want (rule as written) matches
// a command with words ws as the shell runs it: its brace expansions made (Expand: "{rm,x}"
// is rm x, "git {push,}" is git push) and, when there are any, its words looked through as
// for a command that cannot be read (wordsWithin: "{sudo,rm,x}"); a command too large to
// expand matches.
func denyExpanded(ws, want []Word, rule string, prefix bool) bool {
	if !slices.ContainsFunc(ws, func(w Word) bool { return w.Glob }) {
		return denyWords(ws, want, prefix)
	}
	exp, ok := Expand(ws)
	if !ok {
		return true
	}
	if denyWords(exp, want, prefix) {
		return true
	}
	texts := make([]string, len(exp))
	for i, w := range exp {
		texts[i] = w.Text
	}
	return wordsWithin(strings.Join(texts, " "), rule, prefix)
}

// denyWords reports whether the words of a command start with want (prefix) or are want; a
// glob may match what its literal start allows (MayMatch: "/bin/r? x" may be rm).
func denyWords(ws, want []Word, prefix bool) bool {
	if bare := withoutGitGlobals(ws); len(bare) < len(ws) && denyWords(bare, want, prefix) {
		return true // git -c k=v -C dir push is git push
	}
	if len(ws) < len(want) || !prefix && len(ws) != len(want) || len(ws) == 0 {
		return false
	}
	for i, w := range want {
		got := ws[i].Text
		if i == 0 && got != w.Text && !strings.Contains(w.Text, "/") {
			got = path.Base(got) // /bin/rm is rm
		}
		if ws[i].Glob && MayMatch(got, w.Text) || strings.ContainsAny(ws[i].Text, "$`") {
			continue // a glob, or a word a substitution or expansion makes, may be the rule's word
		}
		if got != w.Text && !(prefix && i == len(want)-1 && strings.HasPrefix(got, w.Text)) {
			return false
		}
	}
	return true
}

// gitValueOptions are git's global options that may take their value as the next word.
var gitValueOptions = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"}

// withoutGitGlobals returns the words of a git command with the global options before its
// subcommand left out (git -c k=v -C dir --no-pager push → git push); any other command is
// returned as it is.
func withoutGitGlobals(ws []Word) []Word {
	if len(ws) < 2 || base(ws[0].Text) != "git" {
		return ws
	}
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].Text, "-") {
		if slices.Contains(gitValueOptions, ws[i].Text) {
			i++ // the value
		}
		i++
	}
	if i == 1 {
		return ws
	}
	return append([]Word{ws[0]}, ws[min(i, len(ws)):]...)
}

// AlwaysRule returns the specifier of the rule a "yes, and don't ask again" answer to
// command allows, or "" when none is offered. For one simple command whose program (and
// subcommand) the table knows and whose arguments are all plain operands or known-safe
// options, it is a prefix rule: "git commit -m x" → "git commit:*", "ls -la" → "ls:*".
// For any other simple command it is the exact command ("make test", "sh -c 'x'"). Nothing
// for a command with a redirection, substitution, expansion, pipe, list or glob, or with a
// word a terminal would not show as written (shown).
func AlwaysRule(command string) string {
	s, err := Parse(strings.TrimSpace(command))
	if err != nil {
		return ""
	}
	c, ok := s.Simple()
	if !ok || c.SubstitutionText() {
		return ""
	}
	words := make([]string, 0, len(c.Words))
	glob := false
	for _, w := range c.Words {
		if !shown(w.Text) {
			return ""
		}
		glob = glob || w.Glob
		words = append(words, Quote(w.Text))
	}
	key, n := Known(c.Words)
	if key != "" && len(c.Runs) == 0 && Safe(c.Words, n) == "" {
		return strings.Join(words[:n], " ") + ":*"
	}
	if glob {
		return "" // quoted, the word would be another; unquoted, it may expand to anything
	}
	return strings.Join(words, " ")
}

// shown reports whether a terminal shows word as written: every character visible, none a
// space but the plain one (quoted in the rule), a control or an invisible format character (a zero-width space, a bidi override)
// that would make the rule offered read as another.
func shown(word string) bool {
	for _, r := range word {
		if r != ' ' && (!unicode.IsGraphic(r) || unicode.IsSpace(r)) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return word != ""
}

// Suggest returns the specifier of a rule that would allow commands like command, for a
// message: the AlwaysRule when there is one, else the first word of its first command (two
// when the second is a subcommand rather than an option or a path) as a prefix; "" when the
// command cannot be read.
func Suggest(command string) string {
	if r := AlwaysRule(command); r != "" {
		return r
	}
	s, err := Parse(strings.TrimSpace(command))
	if err != nil {
		return ""
	}
	i := slices.IndexFunc(s.Commands, func(c Command) bool { return c.RunBy < 0 && len(c.Words) > 0 })
	if i < 0 {
		return ""
	}
	ws := s.Commands[i].Words
	n := 1
	if len(ws) > 1 && !strings.HasPrefix(ws[1].Text, "-") && !strings.ContainsAny(ws[1].Text, "/.") {
		n = 2
	}
	out := make([]string, 0, n)
	for _, w := range ws[:n] {
		out = append(out, Quote(w.Text))
	}
	return strings.Join(out, " ") + ":*"
}
