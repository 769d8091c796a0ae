package shell

import (
	"fmt"
	"slices"
	"strings"
)

// MaxDepth bounds how deeply substitutions, subshells and commands run by other commands may
// nest; deeper input is a SyntaxError.
const MaxDepth = 32

// Word is one shell word after quote removal. A substitution or expansion in it stays as its
// source text ("$(id)", "$HOME"); the Script lists it as a Construct.
type Word struct {
	Text string
	// Quoted reports whether any part of the word was quoted or backslash-escaped.
	Quoted bool
	// Glob reports whether the shell would expand the word into several words: an unquoted
	// *, ? or [, or a brace expansion ({a,b}, {1..3}).
	Glob bool
}

// Command is one simple command.
type Command struct {
	// Assigns are the NAME=value words before the program (also listed as Assignment
	// constructs).
	Assigns []Word
	// Words are the program and its arguments; the keywords of compound commands (if, then,
	// do, !, time, {, } …) are not words.
	Words []Word
	// RunBy is the index in Script.Commands of the command that runs this one through its
	// arguments (xargs, find -exec, env, sudo, sh -c …), or -1.
	RunBy int
	// Runs lists, in order, the indexes in Words of the words that hold a command this one
	// runs — directly or through a command it runs in turn. Where a runner's option may or
	// may not take an argument, both readings are listed.
	Runs []int
}

// Kind is the kind of a Construct.
type Kind uint8

// The kinds of construct. All but Comment and Escape do something beyond running the simple
// commands with literal words.
const (
	Redirection         Kind = iota + 1 // >, >>, <, 2>, &>, >|, <>, >&, here-documents and here-strings, |&
	CommandSubstitution                 // $(…) and backticks
	ProcessSubstitution                 // <(…) and >(…)
	ParameterExpansion                  // $NAME, $1, $?, ${…}
	ArithmeticExpansion                 // $((…))
	Subshell                            // ( … )
	Group                               // { …; }
	Keyword                             // if, then, while, for, case, !, time, function …
	Background                          // a trailing &
	Assignment                          // NAME=value before a command
	ANSIQuote                           // $'…' and $"…" (decoded into the word)
	Comment                             // # to the end of the line
	Escape                              // a backslash outside single quotes
)

// Lexical reports whether constructs of kind k only quote or annotate (a comment, a backslash
// escape), so that the words alone say what runs.
func (k Kind) Lexical() bool { return k == Comment || k == Escape }

// Construct is one place where a command does something beyond running its simple commands.
type Construct struct {
	Kind Kind
	// Text is the construct as written: ">", "2>" is ">", "$(", "`", "${", "$HOME", "&", "if" …
	Text string
	// Offset is the construct's byte offset in the command (approximate inside backticks and
	// inside the scripts of sh -c and eval).
	Offset int
	// Quoted reports a substitution or expansion inside double quotes.
	Quoted bool
}

// String describes the construct for a message, such as "redirection (>)".
func (c Construct) String() string {
	var s string
	switch c.Kind {
	case Redirection:
		s = "redirection (" + c.Text + ")"
	case CommandSubstitution:
		if c.Text == "`" {
			s = "command substitution (backticks)"
		} else {
			s = "command substitution ($(…))"
		}
	case ProcessSubstitution:
		s = "process substitution (" + c.Text + "…))"
	case ParameterExpansion:
		if c.Text == "${" {
			s = "parameter expansion (${…})"
		} else {
			s = "variable expansion (" + c.Text + ")"
		}
	case ArithmeticExpansion:
		s = "arithmetic expansion ($((…)))"
	case Subshell:
		s = "subshell (parentheses)"
	case Group:
		s = "command group ({ })"
	case Keyword:
		s = "compound command (" + c.Text + ")"
	case Background:
		s = "background job (&)"
	case Assignment:
		s = "environment assignment (" + c.Text + ")"
	case ANSIQuote:
		s = "ANSI-C or locale quoting (" + c.Text + "…)"
	case Comment:
		s = "comment (#)"
	case Escape:
		s = `backslash escape (\)`
	default:
		s = fmt.Sprintf("construct %d (%s)", c.Kind, c.Text)
	}
	if c.Quoted {
		s += " inside quotes"
	}
	return s
}

// Script is what Parse found in a command.
type Script struct {
	// Commands lists every simple command: in source order, except that a command comes
	// after the commands substituted into its words and right before the commands it runs.
	Commands []Command
	// Constructs lists everything beyond plain words and operators, in source order.
	Constructs []Construct
	// Operators lists the ;, newline, &&, ||, |, |& and & between commands (a trailing ; or
	// newline is not listed; a trailing & is).
	Operators []string
}

// Simple returns the script's command when the script is exactly one simple command and
// nothing else: no operator, no construct but comments and backslash escapes, no environment
// assignment. The command may still run other commands through its arguments (Runs).
func (s *Script) Simple() (Command, bool) {
	if len(s.Commands) == 0 || len(s.Operators) > 0 {
		return Command{}, false
	}
	for _, c := range s.Constructs {
		if !c.Kind.Lexical() {
			return Command{}, false
		}
	}
	c := s.Commands[0]
	if c.RunBy >= 0 || len(c.Assigns) > 0 || len(c.Words) == 0 {
		return Command{}, false
	}
	for _, o := range s.Commands[1:] {
		if o.RunBy < 0 {
			return Command{}, false
		}
	}
	return c, true
}

// SyntaxError is returned by Parse for input it cannot read with certainty.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("shell: %s (at byte %d)", e.Msg, e.Offset) }

// Parse analyses a command as bash -c would run it. It never runs or expands anything.
func Parse(src string) (*Script, error) {
	s := &Script{}
	p := &parser{src: src, s: s, runBy: -1}
	if err := p.script(); err != nil {
		return nil, err
	}
	return s, nil
}

// Pieces is the crude fallback for commands Parse refuses: the whole command, then the
// trimmed pieces between any of ; & | newline backtick ( and $(. It sees separators that are
// quoted, so it finds more "commands" than there are; use it only where seeing too much is
// safe (a deny pattern).
func Pieces(src string) []string {
	parts := []string{src}
	for _, f := range strings.FieldsFunc(strings.ReplaceAll(src, "$(", ";"), func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '`' || r == '('
	}) {
		if f = strings.TrimSpace(f); f != "" {
			parts = append(parts, f)
		}
	}
	return parts
}

// parser reads src; nested scripts (backticks, sh -c) get their own parser on the same Script.
type parser struct {
	src   string
	pos   int
	base  int // offset of src in the whole command
	depth int
	runBy int // RunBy of the commands this parser finds
	s     *Script
	docs  []heredoc // here-documents whose bodies start after the next newline
}

type heredoc struct {
	delim         string
	strip, quoted bool
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.base + p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) add(k Kind, text string, at int, quoted bool) {
	p.s.Constructs = append(p.s.Constructs, Construct{Kind: k, Text: text, Offset: p.base + at, Quoted: quoted})
}

func (p *parser) at(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

func (p *parser) script() error {
	if err := p.list(0); err != nil {
		return err
	}
	if p.pos < len(p.src) {
		return p.errf("unexpected %q", p.src[p.pos])
	}
	return nil
}

// blanks skips spaces, tabs and line continuations.
func (p *parser) blanks() {
	for p.pos < len(p.src) {
		switch {
		case p.src[p.pos] == ' ' || p.src[p.pos] == '\t':
			p.pos++
		case p.at("\\\n"):
			p.add(Escape, `\`, p.pos, false)
			p.pos += 2
		default:
			return
		}
	}
}

// list reads commands joined by operators up to the end or, when term is ')', up to an
// unmatched ')' (which it leaves for the caller).
func (p *parser) list(term byte) error {
	need := ""    // an operator that needs a command after it: |, ||, &&, |&
	sep := ""     // a ; or newline after a command, listed when another command follows
	seen := false // a command since the last separator
	for {
		p.blanks()
		if p.pos >= len(p.src) || term != 0 && p.src[p.pos] == term {
			if need != "" {
				return p.errf("command ends with %s", need)
			}
			return nil
		}
		if p.src[p.pos] == '\n' {
			p.pos++
			if err := p.heredocs(); err != nil {
				return err
			}
			if need == "" && seen {
				sep, seen = "\n", false
			}
			continue
		}
		if op := p.operator(); op != "" {
			if op == ";" && need == "" {
				if seen {
					sep, seen = ";", false
				}
				continue
			}
			if !seen || need != "" {
				return p.errf("empty command next to %s", strings.TrimSpace(op+" "+need))
			}
			p.s.Operators = append(p.s.Operators, op)
			switch op {
			case "&":
				p.add(Background, "&", p.pos-1, false)
				seen = false
				continue
			case "|&":
				p.add(Redirection, "|&", p.pos-2, false)
			}
			need, seen = op, false
			continue
		}
		if sep != "" {
			p.s.Operators = append(p.s.Operators, sep)
			sep = ""
		}
		ok, err := p.command()
		if err != nil {
			return err
		}
		if !ok {
			if p.pos < len(p.src) && p.src[p.pos] != '\n' && (term == 0 || p.src[p.pos] != term) {
				return p.errf("unexpected %q", p.src[p.pos])
			}
			continue // only a comment
		}
		seen, need = true, ""
	}
}

// operator consumes a control operator at pos, if there is one.
func (p *parser) operator() string {
	for _, op := range []string{"||", "|&", "|", "&&", ";"} {
		if p.at(op) {
			p.pos += len(op)
			return op
		}
	}
	if p.at("&") && !p.at("&>") {
		p.pos++
		return "&"
	}
	return ""
}

// command reads one simple command (or a subshell) and reports whether there was anything.
func (p *parser) command() (bool, error) {
	c := Command{RunBy: p.runBy}
	any, compound := false, false
	for {
		p.blanks()
		if p.pos >= len(p.src) {
			break
		}
		ch := p.src[p.pos]
		if ch == '\n' || ch == ';' || ch == '|' || ch == ')' || ch == '&' && !p.at("&>") {
			break
		}
		switch {
		case ch == '#':
			p.add(Comment, "#", p.pos, false)
			if i := strings.IndexByte(p.src[p.pos:], '\n'); i >= 0 {
				p.pos += i
			} else {
				p.pos = len(p.src)
			}
		case ch == '(':
			if len(c.Words) > 0 || len(c.Assigns) > 0 || compound {
				return false, p.errf("unexpected ( (function definitions, arrays and extended globs are not read)")
			}
			p.add(Subshell, "(", p.pos, false)
			p.pos++
			if err := p.sub("subshell"); err != nil {
				return false, err
			}
			any, compound = true, true
		case (ch == '<' || ch == '>') && !p.at("<(") && !p.at(">(") || p.at("&>"):
			if err := p.redirect(); err != nil {
				return false, err
			}
			any = true
		default:
			if compound {
				return false, p.errf("unexpected word after a subshell")
			}
			start := p.pos
			w, err := p.word()
			if err != nil {
				return false, err
			}
			raw := p.src[start:p.pos]
			if p.pos < len(p.src) && (p.src[p.pos] == '<' || p.src[p.pos] == '>') && fdWord(raw) {
				continue // the file descriptor of the redirection that follows
			}
			any = true
			if len(c.Words) == 0 && !w.Quoted && keywords[w.Text] {
				k := Keyword
				if w.Text == "{" || w.Text == "}" {
					k = Group
				}
				p.add(k, w.Text, start, false)
				continue
			}
			if len(c.Words) == 0 && assignment(raw) {
				c.Assigns = append(c.Assigns, w)
				p.add(Assignment, w.Text, start, false)
				continue
			}
			c.Words = append(c.Words, w)
		}
	}
	if len(c.Words) > 0 || len(c.Assigns) > 0 {
		if err := p.addCommand(c); err != nil {
			return false, err
		}
	}
	return any, nil
}

// keywords are the reserved words that open or continue a compound command when they stand
// where a program name would.
var keywords = map[string]bool{
	"!": true, "{": true, "}": true, "if": true, "then": true, "else": true, "elif": true, "fi": true,
	"do": true, "done": true, "while": true, "until": true, "for": true, "select": true,
	"case": true, "esac": true, "function": true, "time": true, "coproc": true,
}

// fdWord reports whether raw, written right before < or >, is the file descriptor of that
// redirection (2>, {fd}>).
func fdWord(raw string) bool {
	if raw == "" {
		return false
	}
	if strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}") && len(raw) > 2 {
		return isName(raw[1 : len(raw)-1])
	}
	return strings.Trim(raw, "0123456789") == ""
}

// assignment reports whether raw (a word as written) is NAME=value or NAME+=value.
func assignment(raw string) bool {
	i := strings.IndexByte(raw, '=')
	if i <= 0 {
		return false
	}
	return isName(strings.TrimSuffix(raw[:i], "+"))
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// redirectOps are the redirection operators, longest first.
var redirectOps = []string{"&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">"}

// redirect reads a redirection operator and its target word.
func (p *parser) redirect() error {
	at := p.pos
	op := ""
	for _, o := range redirectOps {
		if p.at(o) {
			op = o
			break
		}
	}
	p.pos += len(op)
	p.add(Redirection, op, at, false)
	p.blanks()
	if p.pos >= len(p.src) || strings.IndexByte("\n;|&)", p.src[p.pos]) >= 0 ||
		(p.src[p.pos] == '<' || p.src[p.pos] == '>') && !p.at("<(") && !p.at(">(") {
		return p.errf("redirection %s without a target", op)
	}
	w, err := p.word()
	if err != nil {
		return err
	}
	if op == "<<" || op == "<<-" {
		p.docs = append(p.docs, heredoc{delim: w.Text, strip: op == "<<-", quoted: w.Quoted})
	}
	return nil
}

// heredocs skips the bodies of the here-documents opened on the line just ended; in a body
// whose delimiter is unquoted, substitutions run and are read.
func (p *parser) heredocs() error {
	docs := p.docs
	p.docs = nil
	for _, d := range docs {
		for p.pos < len(p.src) {
			end := strings.IndexByte(p.src[p.pos:], '\n')
			lineEnd := len(p.src)
			if end >= 0 {
				lineEnd = p.pos + end
			}
			line := p.src[p.pos:lineEnd]
			if d.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == d.delim {
				p.pos = min(lineEnd+1, len(p.src))
				break
			}
			if !d.quoted {
				var sink strings.Builder
				for p.pos < lineEnd {
					var err error
					switch p.src[p.pos] {
					case '\\':
						p.pos += 2
					case '$':
						_, err = p.dollar(&sink, true)
					case '`':
						err = p.backtick(&sink, true)
					default:
						p.pos++
					}
					if err != nil {
						return err
					}
				}
			}
			if p.pos <= lineEnd {
				p.pos = min(lineEnd+1, len(p.src))
			}
		}
	}
	return nil
}

// sub reads a nested list up to its ')' (what names it in an error).
func (p *parser) sub(what string) error {
	open := p.pos
	if p.depth >= MaxDepth {
		return p.errf("nested more than %d deep", MaxDepth)
	}
	p.depth++
	err := p.list(')')
	p.depth--
	if err != nil {
		return err
	}
	if p.pos >= len(p.src) {
		p.pos = open
		return p.errf("unterminated %s", what)
	}
	p.pos++
	return nil
}

// word reads one word, up to an unquoted metacharacter.
func (p *parser) word() (Word, error) {
	var b strings.Builder
	var w Word
	start := p.pos
	brace, braceSep := 0, false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case strings.IndexByte(" \t\n;&|)", c) >= 0:
			w.Text = b.String()
			return w, nil
		case c == '<' || c == '>':
			if p.pos != start || p.pos+1 >= len(p.src) || p.src[p.pos+1] != '(' {
				w.Text = b.String()
				return w, nil
			}
			p.add(ProcessSubstitution, p.src[p.pos:p.pos+2], p.pos, false)
			p.pos += 2
			if err := p.sub("process substitution"); err != nil {
				return w, err
			}
			b.WriteString(p.src[start:p.pos])
		case c == '(':
			return w, p.errf("unexpected ( in a word (extended globs and arrays are not read)")
		case c == '\'':
			j := strings.IndexByte(p.src[p.pos+1:], '\'')
			if j < 0 {
				return w, p.errf("unterminated single quote")
			}
			b.WriteString(p.src[p.pos+1 : p.pos+1+j])
			w.Quoted = true
			p.pos += j + 2
		case c == '"':
			p.pos++
			if err := p.dquote(&b); err != nil {
				return w, err
			}
			w.Quoted = true
		case c == '\\':
			p.add(Escape, `\`, p.pos, false)
			switch {
			case p.pos+1 >= len(p.src):
				b.WriteByte('\\')
				p.pos++
			case p.src[p.pos+1] == '\n':
				p.pos += 2
			default:
				b.WriteByte(p.src[p.pos+1])
				w.Quoted = true
				p.pos += 2
			}
		case c == '$':
			q, err := p.dollar(&b, false)
			if err != nil {
				return w, err
			}
			w.Quoted = w.Quoted || q
		case c == '`':
			if err := p.backtick(&b, false); err != nil {
				return w, err
			}
		case c < 0x20 || c == 0x7f:
			return w, p.errf("control character %#x", c)
		default:
			switch c {
			case '*', '?', '[':
				w.Glob = true
			case '{':
				brace++
			case ',':
				braceSep = braceSep || brace > 0
			case '.':
				braceSep = braceSep || brace > 0 && p.at("..")
			case '}':
				if brace > 0 {
					brace--
					w.Glob = w.Glob || braceSep
				}
			}
			b.WriteByte(c)
			p.pos++
		}
	}
	w.Text = b.String()
	return w, nil
}

// dquote reads the inside of double quotes (pos just after the opening quote).
func (p *parser) dquote(b *strings.Builder) error {
	open := p.pos - 1
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return nil
		case '\\':
			if p.pos+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.pos+1]) >= 0 {
				if p.src[p.pos+1] != '\n' {
					b.WriteByte(p.src[p.pos+1])
				}
				p.pos += 2
				continue
			}
			b.WriteByte('\\')
			p.pos++
		case '$':
			if _, err := p.dollar(b, true); err != nil {
				return err
			}
		case '`':
			if err := p.backtick(b, true); err != nil {
				return err
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	p.pos = open
	return p.errf("unterminated double quote")
}

// dollar reads what a '$' at pos starts; quoted is true inside double quotes. It reports
// whether it read quoted text ($'…', $"…").
func (p *parser) dollar(b *strings.Builder, quoted bool) (bool, error) {
	at := p.pos
	rest := p.src[p.pos+1:]
	switch {
	case strings.HasPrefix(rest, "(("):
		p.add(ArithmeticExpansion, "$((", at, quoted)
		p.pos += 3
		if err := p.arith(); err != nil {
			return false, err
		}
	case strings.HasPrefix(rest, "("):
		p.add(CommandSubstitution, "$(", at, quoted)
		p.pos += 2
		if err := p.sub("command substitution $("); err != nil {
			return false, err
		}
	case strings.HasPrefix(rest, "{"):
		p.add(ParameterExpansion, "${", at, quoted)
		p.pos += 2
		if err := p.braces(quoted); err != nil {
			return false, err
		}
	case !quoted && strings.HasPrefix(rest, "'"):
		p.add(ANSIQuote, "$'", at, false)
		return true, p.ansi(b)
	case !quoted && strings.HasPrefix(rest, `"`):
		p.add(ANSIQuote, `$"`, at, false)
		p.pos += 2
		return true, p.dquote(b)
	case rest != "" && (rest[0] == '_' || isName(rest[:1])):
		n := 1
		for n < len(rest) && isName(rest[:n+1]) {
			n++
		}
		p.add(ParameterExpansion, "$"+rest[:n], at, quoted)
		p.pos += 1 + n
	case rest != "" && strings.IndexByte("0123456789?$!@*#-", rest[0]) >= 0:
		p.add(ParameterExpansion, "$"+rest[:1], at, quoted)
		p.pos += 2
	default:
		b.WriteByte('$') // a '$' that stands for itself
		p.pos++
		return false, nil
	}
	b.WriteString(p.src[at:p.pos])
	return false, nil
}

// braces reads the inside of ${…}, including the substitutions in it.
func (p *parser) braces(quoted bool) error {
	open := p.pos - 2
	depth := 0
	var sink strings.Builder
	for p.pos < len(p.src) {
		var err error
		switch p.src[p.pos] {
		case '}':
			p.pos++
			if depth == 0 {
				return nil
			}
			depth--
		case '{':
			depth++
			p.pos++
		case '\\':
			p.pos += 2
		case '\'':
			if quoted {
				p.pos++
				break
			}
			j := strings.IndexByte(p.src[p.pos+1:], '\'')
			if j < 0 {
				return p.errf("unterminated single quote")
			}
			p.pos += j + 2
		case '"':
			p.pos++
			err = p.dquote(&sink)
		case '$':
			_, err = p.dollar(&sink, quoted)
		case '`':
			err = p.backtick(&sink, quoted)
		default:
			p.pos++
		}
		if err != nil {
			return err
		}
	}
	p.pos = open
	return p.errf("unterminated ${")
}

// arith reads the inside of $((…)), including the substitutions in it.
func (p *parser) arith() error {
	open := p.pos - 3
	depth := 0
	var sink strings.Builder
	for p.pos < len(p.src) {
		var err error
		switch p.src[p.pos] {
		case '(':
			depth++
			p.pos++
		case ')':
			if depth > 0 {
				depth--
				p.pos++
				break
			}
			if !p.at("))") {
				return p.errf("$(( closed by a single ) (write $( (…) ) for a subshell)")
			}
			p.pos += 2
			return nil
		case '\\':
			p.pos += 2
		case '\'':
			j := strings.IndexByte(p.src[p.pos+1:], '\'')
			if j < 0 {
				return p.errf("unterminated single quote")
			}
			p.pos += j + 2
		case '"':
			p.pos++
			err = p.dquote(&sink)
		case '$':
			_, err = p.dollar(&sink, true)
		case '`':
			err = p.backtick(&sink, true)
		default:
			p.pos++
		}
		if err != nil {
			return err
		}
	}
	p.pos = open
	return p.errf("unterminated $((")
}

// backtick reads a `…` substitution: its inside, with \`, \\ and \$ (and \" inside double
// quotes) unescaped, is a script of its own.
func (p *parser) backtick(b *strings.Builder, quoted bool) error {
	at := p.pos
	p.add(CommandSubstitution, "`", at, quoted)
	var inner strings.Builder
	i := p.pos + 1
	for ; i < len(p.src) && p.src[i] != '`'; i++ {
		c := p.src[i]
		if c == '\\' && i+1 < len(p.src) {
			if n := p.src[i+1]; n == '`' || n == '\\' || n == '$' || quoted && n == '"' {
				inner.WriteByte(n)
				i++
				continue
			}
		}
		inner.WriteByte(c)
	}
	if i >= len(p.src) {
		return p.errf("unterminated backtick")
	}
	if p.depth >= MaxDepth {
		return p.errf("nested more than %d deep", MaxDepth)
	}
	sub := &parser{src: inner.String(), base: p.base + at + 1, depth: p.depth + 1, runBy: p.runBy, s: p.s}
	if err := sub.script(); err != nil {
		return err
	}
	p.pos = i + 1
	b.WriteString(p.src[at:p.pos])
	return nil
}

// ansi reads $'…' (pos at the '$') and writes the decoded text.
func (p *parser) ansi(b *strings.Builder) error {
	open := p.pos
	i := p.pos + 2
	for i < len(p.src) {
		c := p.src[i]
		if c == '\'' {
			p.pos = i + 1
			return nil
		}
		if c != '\\' || i+1 >= len(p.src) {
			b.WriteByte(c)
			i++
			continue
		}
		n := p.src[i+1]
		i += 2
		switch n {
		case 'a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[n])
		case 'x', 'u', 'U':
			digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[n]
			v, k := 0, 0
			for ; k < digits && i+k < len(p.src) && strings.IndexByte("0123456789abcdefABCDEF", p.src[i+k]) >= 0; k++ {
				v = v*16 + hexVal(p.src[i+k])
			}
			switch {
			case k == 0:
				b.WriteByte('\\')
				b.WriteByte(n)
			case n == 'x':
				b.WriteByte(byte(v))
			default:
				b.WriteRune(rune(v))
			}
			i += k
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, k := int(n-'0'), 0
			for ; k < 2 && i+k < len(p.src) && p.src[i+k] >= '0' && p.src[i+k] <= '7'; k++ {
				v = v*8 + int(p.src[i+k]-'0')
			}
			b.WriteByte(byte(v))
			i += k
		case 'c':
			if i < len(p.src) {
				b.WriteByte(p.src[i] & 0x1f)
				i++
			}
		case '\\', '\'', '"', '?':
			b.WriteByte(n)
		default:
			b.WriteByte('\\')
			b.WriteByte(n)
		}
	}
	p.pos = open
	return p.errf("unterminated $'")
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// addCommand records c and the commands it runs through its arguments.
func (p *parser) addCommand(c Command) error {
	idx := len(p.s.Commands)
	p.s.Commands = append(p.s.Commands, c)
	rs, ok := runsOf(c.Words)
	if !ok {
		return p.errf("cannot tell which command %s runs: its options read in too many ways", c.Words[0].Text)
	}
	if len(rs) == 0 {
		return nil
	}
	if p.depth >= MaxDepth {
		return p.errf("commands run by commands nested more than %d deep", MaxDepth)
	}
	var runs []int
	for _, r := range rs {
		runs = append(runs, r.at)
		if r.script {
			sub := &parser{src: r.text, base: p.base + p.pos, depth: p.depth + 1, runBy: idx, s: p.s}
			if err := sub.script(); err != nil {
				return err
			}
			continue
		}
		inner := len(p.s.Commands)
		p.depth++
		err := p.addCommand(Command{Words: r.words, RunBy: idx})
		p.depth--
		if err != nil {
			return err
		}
		for _, at := range p.s.Commands[inner].Runs {
			runs = append(runs, r.at+at)
		}
	}
	slices.Sort(runs)
	p.s.Commands[idx].Runs = slices.Compact(runs)
	return nil
}
