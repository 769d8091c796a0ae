package shell

import (
	"fmt"
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
