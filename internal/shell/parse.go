package shell

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Parse reads a command as bash -c would, with mvdan.cc/sh's bash parser, and lists what it
// runs. It never runs or expands anything.
func Parse(src string) (*Script, error) {
	s := &Script{}
	if err := (&reader{s: s, runBy: -1}).script(src, 0); err != nil {
		return nil, err
	}
	return s, nil
}

// reader walks one parsed script into a Script; the scripts of sh -c and eval get their own
// reader on the same Script.
type reader struct {
	s     *Script
	src   string
	base  int // offset reported for what this reader finds, when it reads a nested script
	depth int
	runBy int
	// quoted are the spans of the double-quoted strings met so far.
	quoted [][2]uint
}

func (r *reader) script(src string, base int) error {
	if i := strings.IndexFunc(src, func(c rune) bool { return c < 0x20 && c != '\t' && c != '\n' || c == 0x7f }); i >= 0 {
		// a terminal would not show it, and bash stops at a NUL
		return &SyntaxError{Offset: base + i, Msg: fmt.Sprintf("control character %#x", src[i])}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		var pe syntax.ParseError
		var le syntax.LangError
		switch {
		case errors.As(err, &pe):
			return &SyntaxError{Offset: base + int(pe.Pos.Offset()), Msg: pe.Text}
		case errors.As(err, &le):
			return &SyntaxError{Offset: base + int(le.Pos.Offset()), Msg: le.Feature + " is not bash"}
		}
		return &SyntaxError{Offset: base, Msg: err.Error()}
	}
	r.src, r.base = src, base
	for range max(len(f.Stmts)-1, 0) {
		r.add(Operator, ";", f.End(), false)
	}
	var walkErr error
	syntax.Walk(f, func(n syntax.Node) bool {
		if walkErr != nil {
			return false
		}
		walkErr = r.node(n)
		return true
	})
	return walkErr
}

func (r *reader) add(k Kind, text string, at syntax.Pos, quoted bool) {
	off := r.base
	if r.depth == 0 && at.IsValid() {
		off += int(at.Offset())
	}
	quoted = quoted || slices.ContainsFunc(r.quoted, func(q [2]uint) bool { return q[0] < at.Offset() && at.Offset() < q[1] })
	r.s.Constructs = append(r.s.Constructs, Construct{Kind: k, Text: text, Offset: off, Quoted: quoted})
}

// keywords name the compound commands.
func keyword(n syntax.Node) string {
	switch x := n.(type) {
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		if x.Until {
			return "until"
		}
		return "while"
	case *syntax.ForClause:
		if x.Select {
			return "select"
		}
		return "for"
	case *syntax.CaseClause:
		return "case"
	case *syntax.FuncDecl:
		return "function"
	case *syntax.ArithmCmd:
		return "(("
	case *syntax.TestClause:
		return "[["
	case *syntax.DeclClause:
		return x.Variant.Value
	case *syntax.LetClause:
		return "let"
	case *syntax.TimeClause:
		return "time"
	case *syntax.CoprocClause:
		return "coproc"
	case *syntax.TestDecl:
		return "@test"
	}
	return ""
}

// node records what one node of the syntax tree does.
func (r *reader) node(n syntax.Node) error {
	if k := keyword(n); k != "" {
		r.add(Keyword, k, n.Pos(), false)
		switch n.(type) {
		case *syntax.LetClause, *syntax.TestClause, *syntax.ArithmCmd:
			// bash evaluates their text as arithmetic, running the substitutions in quoted
			// subscripts too (let 'a[$(rm x)]'): listed as a command, SubstitutionText sees it
			r.s.Commands = append(r.s.Commands, Command{Words: []Word{{Text: k}, {Text: r.text(n)}}, RunBy: r.runBy})
		}
		return nil
	}
	switch x := n.(type) {
	case *syntax.Stmt:
		if x.Negated {
			r.add(Keyword, "!", x.Pos(), false)
		}
		if x.Background || x.Coprocess || x.Disown {
			r.add(Background, "&", x.Semicolon, false)
		}
		for _, rd := range x.Redirs {
			r.add(Redirection, rd.Op.String(), rd.OpPos, false)
		}
	case *syntax.BinaryCmd:
		r.add(Operator, x.Op.String(), x.OpPos, false)
	case *syntax.Subshell:
		r.add(Subshell, "(", x.Pos(), false)
	case *syntax.Block:
		r.add(Group, "{", x.Pos(), false)
	case *syntax.CmdSubst:
		text := "$("
		if x.Backquotes {
			text = "`"
		}
		r.add(CommandSubstitution, text, x.Pos(), false)
	case *syntax.ProcSubst:
		r.add(ProcessSubstitution, x.Op.String(), x.Pos(), false)
	case *syntax.ParamExp:
		text := "${"
		if x.Short {
			text = "$" + x.Param.Value
		}
		r.add(ParameterExpansion, text, x.Pos(), false)
	case *syntax.ArithmExp:
		r.add(ArithmeticExpansion, "$((", x.Pos(), false)
	case *syntax.ExtGlob:
		// bash reads !(…) as an extended glob only with extglob set; without, as ! and (…).
		r.add(Keyword, x.Op.String(), x.Pos(), false)
	case *syntax.SglQuoted:
		if x.Dollar {
			r.add(ANSIQuote, "$'", x.Pos(), false)
		}
	case *syntax.DblQuoted:
		if x.Dollar {
			r.add(ANSIQuote, `$"`, x.Pos(), false)
		}
		r.quoted = append(r.quoted, [2]uint{x.Pos().Offset(), x.End().Offset()})
	case *syntax.CallExpr:
		c := Command{RunBy: r.runBy}
		for _, a := range x.Assigns {
			w := Word{Text: a.Name.Value + "="}
			if a.Value != nil {
				v := r.word(a.Value)
				w.Text, w.Quoted = w.Text+v.Text, v.Quoted
			}
			r.add(Assignment, w.Text, a.Pos(), false)
			c.Assigns = append(c.Assigns, w)
		}
		for _, w := range x.Args {
			c.Words = append(c.Words, r.word(w))
		}
		return r.command(c)
	}
	return nil
}

// text is the source of node n.
func (r *reader) text(n syntax.Node) string {
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	if from < 0 || to > len(r.src) || from > to {
		return ""
	}
	return r.src[from:to]
}

// word is w after quote removal, with what is expanded left as its source text.
func (r *reader) word(w *syntax.Word) Word {
	var b strings.Builder
	out := Word{node: w}
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			out.Glob = out.Glob || globChars(x.Value)
			out.Quoted = out.Quoted || strings.Contains(x.Value, `\`)
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			out.Quoted = true
			if x.Dollar {
				s, _ := expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{x}})
				b.WriteString(s)
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			out.Quoted = true
			for _, p := range x.Parts {
				if l, ok := p.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
				} else {
					b.WriteString(r.text(p))
				}
			}
		case *syntax.ExtGlob:
			out.Glob = true
			b.WriteString(r.text(x))
		default:
			b.WriteString(r.text(part))
		}
	}
	out.Text = b.String()
	out.Glob = out.Glob || hasBraces(w)
	return out
}

// hasBraces reports whether bash would make several words of w by brace expansion ({a,b},
// {1..3}; not {} or {x}).
func hasBraces(w *syntax.Word) bool {
	if int(w.End().Offset()-w.Pos().Offset()) > maxBraceWord {
		return slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool {
			l, ok := p.(*syntax.Lit)
			return ok && strings.Contains(l.Value, "{")
		}) // too large to expand: it may be anything
	}
	split := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(split) {
		return false
	}
	n := 0
	for range expand.BracesSeq(nil, split) {
		if n++; n > 1 {
			return true
		}
	}
	return false
}

// globChars reports an unescaped *, ? or [ … ] in the text of an unquoted literal.
func globChars(lit string) bool {
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.Contains(lit[i+1:], "]") {
				return true // a bracket expression; an unclosed [ stands for itself
			}
		}
	}
	return false
}

// unescape removes the backslashes of a literal as bash does: every one outside quotes, and
// inside double quotes those before $ ` " \ and a newline; an escaped newline disappears.
func unescape(lit string, dquoted bool) string {
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' || i+1 >= len(lit) || dquoted && !strings.ContainsRune("$`\"\\\n", rune(lit[i+1])) {
			b.WriteByte(lit[i])
			continue
		}
		i++
		if lit[i] != '\n' {
			b.WriteByte(lit[i])
		}
	}
	return b.String()
}

// command records c and the commands it runs through its arguments.
func (r *reader) command(c Command) error {
	idx := len(r.s.Commands)
	r.s.Commands = append(r.s.Commands, c)
	if len(c.Words) == 0 {
		return nil
	}
	rs, ok := runsOf(c.Words)
	if !ok {
		return &SyntaxError{Offset: r.base, Msg: "cannot tell which command " + c.Words[0].Text + " runs: its options read in too many ways"}
	}
	if len(rs) == 0 {
		return nil
	}
	if r.depth >= MaxDepth {
		return &SyntaxError{Offset: r.base, Msg: "commands run by commands nested too deep"}
	}
	var runs []int
	for _, run := range rs {
		runs = append(runs, run.at)
		if run.script {
			off := r.base
			if w := c.Words[run.at].node; r.depth == 0 && w != nil {
				off += int(w.Pos().Offset())
			}
			sub := &reader{s: r.s, depth: r.depth + 1, runBy: idx}
			if err := sub.script(run.text, off); err != nil {
				return err
			}
			continue
		}
		inner := len(r.s.Commands)
		r.depth++
		err := r.command(Command{Words: run.words, RunBy: idx})
		r.depth--
		if err != nil {
			return err
		}
		for _, at := range r.s.Commands[inner].Runs {
			runs = append(runs, run.at+at)
		}
	}
	slices.Sort(runs)
	r.s.Commands[idx].Runs = slices.Compact(runs)
	return nil
}
