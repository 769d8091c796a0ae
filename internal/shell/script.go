package shell

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// MaxDepth bounds how deeply commands run by other commands (sh -c, eval, xargs …) may nest;
// deeper input is a SyntaxError.
const MaxDepth = 32

// Word is one shell word after quote removal. A substitution or expansion in it stays as its
// source text ("$(id)", "$HOME"); the Script lists it as a Construct.
type Word struct {
	Text string
	// Quoted reports whether any part of the word was quoted or backslash-escaped.
	Quoted bool
	// Glob reports whether the shell would expand the word into several words: an unquoted
	// *, ? or [, an extended glob, or a brace expansion ({a,b}, {1..3}).
	Glob bool
	// node is the parsed word; nil for a word that came from splitting another (Expand).
	node *syntax.Word
}

// Command is one simple command.
type Command struct {
	// Assigns are the NAME=value words before the program (also listed as Assignment
	// constructs).
	Assigns []Word
	// Words are the program and its arguments.
	Words []Word
	// RunBy is the index in Script.Commands of the command that runs this one through its
	// arguments (xargs, find -exec, env, sudo, sh -c …), or -1.
	RunBy int
	// Runs lists, in order, the indexes in Words of the words that hold a command this one
	// runs — directly or through a command it runs in turn. Where a runner's option may or
	// may not take an argument, both readings are listed.
	Runs []int
}

// SubstitutionText reports whether a word or assignment of c holds a command substitution's
// text ("$(" or a backtick), quoted or not. Bash runs it where it evaluates the word as
// arithmetic later: let, [[ … -eq … ]], and the array subscripts that read, printf -v, test
// -v, mapfile or declare -i take ("printf -v 'a[$(rm x)]' y" runs rm).
func (c Command) SubstitutionText() bool {
	for _, ws := range [][]Word{c.Assigns, c.Words} {
		for _, w := range ws {
			if strings.Contains(w.Text, "$(") || strings.Contains(w.Text, "`") {
				return true
			}
		}
	}
	return false
}

// Kind is the kind of a Construct.
type Kind uint8

// The kinds of construct: each does something beyond running simple commands with literal
// words.
const (
	Redirection         Kind = iota + 1 // >, >>, <, 2>, &>, >|, <>, >&, here-documents and here-strings
	CommandSubstitution                 // $(…) and backticks
	ProcessSubstitution                 // <(…) and >(…)
	ParameterExpansion                  // $NAME, $1, $?, ${…}
	ArithmeticExpansion                 // $((…))
	Subshell                            // ( … )
	Group                               // { …; }
	Keyword                             // if, while, for, case, !, time, [[, function definitions …
	Background                          // a trailing &
	Assignment                          // NAME=value before a command
	ANSIQuote                           // $'…' and $"…" (decoded into the word)
	Operator                            // ;, newline, &&, ||, |, |& between commands
)

// Construct is one place where a command does something beyond running its simple commands.
type Construct struct {
	Kind Kind
	// Text is the construct as written: ">", "$(", "`", "${", "$HOME", "&", "if", "&&" …
	Text string
	// Offset is the construct's byte offset in the command (inside the script of sh -c or
	// eval, the offset of that script's word).
	Offset int
	// Quoted reports a substitution or expansion inside double quotes.
	Quoted bool
}

// String describes the construct for a message, such as "redirection (>)".
func (c Construct) String() string {
	names := map[Kind]string{
		Redirection: "redirection", CommandSubstitution: "command substitution", ProcessSubstitution: "process substitution",
		ParameterExpansion: "parameter expansion", ArithmeticExpansion: "arithmetic expansion", Subshell: "subshell",
		Group: "command group", Keyword: "compound command", Background: "background job",
		Assignment: "environment assignment", ANSIQuote: "ANSI-C or locale quoting", Operator: "command list",
	}
	s, ok := names[c.Kind]
	if !ok {
		s = fmt.Sprintf("construct %d", c.Kind)
	}
	s += " (" + c.Text + ")"
	if c.Quoted {
		s += " inside quotes"
	}
	return s
}

// Script is what Parse found in a command.
type Script struct {
	// Commands lists every simple command: those of the source in the order the parser
	// meets them, each followed by the commands it runs through its arguments.
	Commands []Command
	// Constructs lists everything beyond plain words: operators, redirections,
	// substitutions, expansions, compound commands …
	Constructs []Construct
}

// Simple returns the script's command when the script is exactly one simple command and
// nothing else: no construct at all. The command may still run other commands through its
// arguments (Runs).
func (s *Script) Simple() (Command, bool) {
	if len(s.Commands) == 0 || len(s.Constructs) > 0 {
		return Command{}, false
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

// SyntaxError is returned by Parse for input it cannot read.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("shell: %s (at byte %d)", e.Msg, e.Offset) }

// Quote returns s as one shell word: unchanged when it holds only characters that are never
// special (letters, digits and _ . / = : , + @ % ^ -), else in single quotes; a word with
// bytes that are not UTF-8 or control characters other than tab and newline, which Parse
// refuses raw, in ANSI-C quotes ($'\xba'). Parse reads it back as s.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%^-") == "" {
		return s
	}
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f }) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String() + "'"
}
