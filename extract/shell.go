package extract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-mem/strata/internal/shell"
)

// maxCommandBytes bounds the command ReadOnlyCommand looks at.
const maxCommandBytes = 8 << 10

// globRisky are the programs with options that write or run something: a file name expanded
// from a glob could be such an option ("-delete", "--pre=sh"), so their globs are refused.
var globRisky = map[string]bool{
	"find": true, "git": true, "sort": true, "rg": true, "tree": true, "file": true, "date": true,
	"hostname": true, "uniq": true, "go": true, "xargs": true,
}

// ReadOnlyCommand reports whether a shell command only reads, so the extractor may run it
// anywhere. It is the extractor's policy on top of the one shell analyser (internal/shell),
// and conservative: a command is ok only when every program in it — including the programs
// xargs runs — is on a list of reading programs (ls, cat, head, tail, wc, grep, rg, find, git
// log/show/diff/status/blame/grep …, pwd, stat, file, sort, uniq, jq …) and every option it
// is given is on that program's allow-list (programFlags, findPrimaries, gitCommands): an
// option nobody listed — find -exec/-delete/-fprint, sort -o, git -C/-c/--git-dir/--work-tree/
// --exec-path, git diff --output/--ext-diff/--textconv, rg --pre, an abbreviated long option
// — is refused, not looked up on a list of dangers. Programs may be joined by pipes, ";", "&&", "||" and newlines. Every construct
// the analyser reports makes it false: redirections and here-documents, command and process
// substitution ($(…), backticks, <(…)), variable and ${…} expansion, subshells and groups,
// compound commands, background jobs, comments, backslash escapes, environment assignments.
// So do paths to programs, sudo/env and other programs off the list, and unquoted globs or
// brace expansions for programs that have writing options (a file named "-delete" would
// become one). why says which.
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
		if c.Kind == shell.ParameterExpansion && c.Text != "${" {
			return false, c.String() + ": the environment may hold secrets"
		}
		return false, c.String()
	}
	if len(s.Commands) == 0 {
		return false, "empty command"
	}
	for _, c := range s.Commands {
		if ok, why := checkCommand(c); !ok {
			if c.RunBy >= 0 {
				why = s.Commands[c.RunBy].Words[0].Text + " runs " + why
			}
			return false, why
		}
	}
	return true, ""
}

// checkCommand checks one simple command: its program and its arguments (for xargs, those
// before the command it runs); the programs it runs are checked as commands of their own.
func checkCommand(c shell.Command) (bool, string) {
	ws := c.Words
	if ws[0].Text == "xargs" && len(c.Runs) > 0 { // the only runner on the list
		ws = ws[:slices.Min(c.Runs)]
	}
	prog := ws[0].Text
	if c.SubstitutionText() {
		return false, fmt.Sprintf("%s is given a command substitution's text, which bash runs where it evaluates it as arithmetic (printf -v 'a[$(cmd)]', test -v)", prog)
	}
	if prog == "printf" && len(ws) > 1 && strings.HasPrefix(ws[1].Text, "-v") {
		return false, "printf -v sets a shell variable (PATH, say) that later commands use"
	}
	if (prog == "test" || prog == "[") && slices.ContainsFunc(ws[1:], func(w shell.Word) bool { return w.Text == "-v" || w.Text == "-R" }) {
		return false, prog + " -v evaluates an array subscript, which may set a shell variable (test -v 'a[PATH=0]')"
	}
	if strings.Contains(prog, "/") {
		return false, fmt.Sprintf("%q is a path to a program; only programs on the read-only list, by name, may run", prog)
	}
	if _, ok := programFlags()[prog]; !ok && prog != "find" && prog != "git" && prog != "go" {
		return false, fmt.Sprintf("%q is not on the list of read-only programs", prog)
	}
	args := make([]string, 0, len(ws)-1)
	for _, w := range ws[1:] {
		if w.Glob && globRisky[prog] {
			return false, fmt.Sprintf("unquoted glob %q for %s: an expanded file name could be an option; quote it", w.Text, prog)
		}
		args = append(args, w.Text)
	}
	if why := argCheck(prog, args); why != "" {
		return false, why
	}
	return true, ""
}

// argCheck checks a reading program's arguments against its allow-list of options.
func argCheck(prog string, args []string) string {
	switch prog {
	case "find":
		return checkFind(args)
	case "git":
		return checkGit(args)
	case "go":
		return checkGo(args)
	case "date":
		return checkDate(args)
	}
	return programFlags()[prog].check(prog, args)
}
