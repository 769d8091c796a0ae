package shell

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Parse analyses a command as bash -c would run it. It never runs or expands anything.
func Parse(src string) (*Script, error) {
	s := &Script{}
	p := &parser{src: src, s: s, runBy: -1}
	if err := p.script(); err != nil {
		return nil, err
	}
	return s, nil
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
	timed := false // the last word was the keyword time
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
			if len(c.Words) == 0 && timed && (w.Text == "-p" || w.Text == "--") {
				continue // bash's "time -p": the option of the keyword, not a program
			}
			timed = false
			if len(c.Words) == 0 && !w.Quoted && keywords()[w.Text] {
				if w.Text == "function" {
					p.pos = start
					return false, p.errf("function definitions are not read")
				}
				timed = w.Text == "time"
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
var keywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"!": true, "{": true, "}": true, "if": true, "then": true, "else": true, "elif": true, "fi": true,
		"do": true, "done": true, "while": true, "until": true, "for": true, "select": true,
		"case": true, "esac": true, "function": true, "time": true, "coproc": true,
	}
})

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
