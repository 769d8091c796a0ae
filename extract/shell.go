package extract

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/internal/shell"
)

// maxCommandBytes bounds the command ReadOnlyCommand looks at.
const maxCommandBytes = 8 << 10

// ReadOnlyCommand reports whether a shell command only reads, so the extractor may run it
// anywhere. It is the extractor's policy on top of the one shell analyser (internal/shell)
// and its one table of programs: a command is ok only when every program in it is a reader
// of the table (ls, cat, head, grep, rg, find, git log/show/diff/status …, pwd, stat, jq …)
// given only options on its known-safe list (shell.ReadOnly). Programs may be joined by
// pipes, ";", "&&", "||" and newlines; every other construct the analyser reports makes it
// false — redirections, substitutions, expansions, subshells, groups, compound commands,
// background jobs, environment assignments — and so does any program that runs another
// (xargs runs words read from its standard input, which no check can see). why says which.
func ReadOnlyCommand(cmd string) (ok bool, why string) {
	if strings.TrimSpace(cmd) == "" {
		return false, "empty command"
	}
	if len(cmd) > maxCommandBytes {
		return false, fmt.Sprintf("command of %d bytes is too long to check", len(cmd))
	}
	s, err := shell.Parse(cmd)
	if err != nil {
		return false, strings.TrimPrefix(err.Error(), "shell: ")
	}
	for _, c := range s.Constructs {
		switch {
		case c.Kind == shell.Operator && c.Text != "|&":
			continue
		case c.Kind == shell.ParameterExpansion && c.Text != "${":
			return false, c.String() + ": the environment may hold secrets"
		}
		return false, c.String()
	}
	if len(s.Commands) == 0 {
		return false, "empty command"
	}
	for _, c := range s.Commands {
		if c.RunBy >= 0 {
			continue // its runner is refused below
		}
		switch {
		case c.Words[0].Text == "xargs":
			return false, "xargs runs a command with words read from its standard input, which the check cannot see"
		case c.SubstitutionText():
			return false, fmt.Sprintf("%s is given a command substitution's text, which bash runs where it evaluates it as arithmetic (printf -v 'a[$(cmd)]', test -v)", c.Words[0].Text)
		}
		if why := shell.ReadOnly(c.Words); why != "" {
			return false, why
		}
		if len(c.Runs) > 0 {
			return false, fmt.Sprintf("%s runs another command", c.Words[0].Text)
		}
	}
	return true, ""
}
