package shell

import "strings"

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
	return p.nested("${", '{', '}', quoted, func() error { p.pos++; return nil })
}

// arith reads the inside of $((…)), including the substitutions in it.
func (p *parser) arith() error {
	return p.nested("$((", '(', ')', true, func() error {
		if !p.at("))") {
			return p.errf("$(( closed by a single ) (write $( (…) ) for a subshell)")
		}
		p.pos += 2
		return nil
	})
}

// nested reads the inside of an expansion whose opener (p.pos is just after it) nests the
// brackets openB and closeB, and ends at a closeB at depth 0, which closing reads. Escapes,
// quotes and substitutions inside are read as in a word; quoted says the expansion stands in
// double quotes, where a single quote inside ${…} is plain text (in $((…)) it always quotes).
func (p *parser) nested(opener string, openB, closeB byte, quoted bool, closing func() error) error {
	open := p.pos - len(opener)
	singleIsText := quoted && openB == '{'
	depth := 0
	var sink strings.Builder
	for p.pos < len(p.src) {
		var err error
		switch p.src[p.pos] {
		case openB:
			depth++
			p.pos++
		case closeB:
			if depth == 0 {
				return closing()
			}
			depth--
			p.pos++
		case '\\':
			p.pos += 2
		case '\'':
			if singleIsText {
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
	return p.errf("unterminated %s", opener)
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
