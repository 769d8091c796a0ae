package extract

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/internal/shell"
)

// maxCommandBytes bounds the command ReadOnlyCommand looks at.
const maxCommandBytes = 8 << 10

// readPrograms are the programs that only read, whatever their (other) arguments; each may
// still have arguments that write, refused by argCheck.
var readPrograms = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "find": true, "git": true, "pwd": true, "stat": true, "file": true,
	"du": true, "df": true, "tree": true, "realpath": true, "readlink": true, "basename": true,
	"dirname": true, "echo": true, "printf": true, "cut": true, "tr": true, "nl": true, "diff": true,
	"cmp": true, "comm": true, "jq": true, "which": true, "whoami": true, "id": true, "uname": true,
	"true": true, "false": true, "test": true, "[": true, "md5sum": true,
	"sha1sum": true, "sha256sum": true, "strings": true, "column": true, "od": true, "hexdump": true,
	"date": true, "hostname": true, "tac": true, "rev": true, "fold": true, "expand": true,
	"sort": true, "uniq": true, "xargs": true, "go": true,
}

// gitReadCommands are the git subcommands that only read.
var gitReadCommands = map[string]bool{
	"log": true, "show": true, "diff": true, "status": true, "blame": true, "grep": true,
	"ls-files": true, "ls-tree": true, "rev-parse": true, "describe": true, "shortlog": true,
	"cat-file": true, "rev-list": true, "show-ref": true, "branch": true, "remote": true,
}

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
// log/show/diff/status/blame/grep, pwd, stat, file, sort, uniq, jq …) with no argument that
// makes it write or run something (find -exec/-delete/-fprint, sort -o, git -c/--output, rg
// --pre …). Programs may be joined by pipes, ";", "&&", "||" and newlines. Every construct
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
		if ok, why := checkCommand(c.Words); !ok {
			if c.RunBy >= 0 {
				why = s.Commands[c.RunBy].Words[0].Text + " runs " + why
			}
			return false, why
		}
	}
	return true, ""
}

// checkCommand checks one simple command (its program and arguments; the programs it runs
// are checked as commands of their own).
func checkCommand(ws []shell.Word) (bool, string) {
	prog := ws[0].Text
	if strings.Contains(prog, "/") {
		return false, fmt.Sprintf("%q is a path to a program; only programs on the read-only list, by name, may run", prog)
	}
	if !readPrograms[prog] {
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

// argCheck refuses the arguments that make a reading program write or run something.
func argCheck(prog string, args []string) string {
	has := func(bad ...string) string {
		for _, a := range args {
			for _, b := range bad {
				if a == b || strings.HasSuffix(b, "=") && strings.HasPrefix(a, b) {
					return fmt.Sprintf("%s %s writes or runs a program", prog, a)
				}
			}
		}
		return ""
	}
	positional := func() []string {
		var out []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") || a == "-" {
				out = append(out, a)
			}
		}
		return out
	}
	switch prog {
	case "find":
		return has("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
	case "rg":
		return has("--pre", "--pre=")
	case "sort":
		for _, a := range args {
			if a == "--output" || strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--compress-program") ||
				!strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.Contains(a, "o") {
				return fmt.Sprintf("sort %s writes a file or runs a program", a)
			}
		}
	case "uniq":
		if len(positional()) > 1 {
			return "uniq with two file names writes the second"
		}
	case "tree":
		return has("-o", "-R")
	case "file":
		return has("-C", "--compile")
	case "date":
		for _, a := range args {
			if a == "-s" || strings.HasPrefix(a, "--set") || strings.HasPrefix(a, "-s") && !strings.HasPrefix(a, "--") {
				return "date " + a + " sets the clock"
			}
		}
	case "hostname":
		if len(positional()) > 0 {
			return "hostname NAME sets the host name"
		}
		return has("-F", "--file", "--file=", "-b", "--boot")
	case "go":
		if len(args) == 0 {
			return "go without a subcommand"
		}
		switch args[0] {
		case "version", "doc":
			return ""
		case "env":
			return has("-w", "-u")
		}
		return fmt.Sprintf("go %s is not a read-only go command (version, doc, env)", args[0])
	case "git":
		return checkGit(args)
	}
	return ""
}

// checkGit allows the reading git subcommands, without options that run programs or write.
func checkGit(args []string) string {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C":
			i++
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks" || strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
		case strings.HasPrefix(a, "-"):
			return fmt.Sprintf("git option %s is not allowed for a read-only command", a)
		default:
			goto sub
		}
	}
	return "git without a subcommand"
sub:
	sub, rest := args[i], args[i+1:]
	if !gitReadCommands[sub] {
		return fmt.Sprintf("git %s is not a read-only git command", sub)
	}
	for _, a := range rest {
		switch {
		case a == "--output" || strings.HasPrefix(a, "--output="), a == "--ext-diff",
			a == "-O" || strings.HasPrefix(a, "-O") && sub == "grep", strings.HasPrefix(a, "--open-files-in-pager"):
			return fmt.Sprintf("git %s %s writes a file or runs a program", sub, a)
		}
	}
	switch sub {
	case "branch":
		for _, a := range rest {
			switch a {
			case "-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "--show-current", "--no-color", "--color":
			default:
				return "git branch " + a + " may change branches; only listing is allowed"
			}
		}
	case "remote":
		for _, a := range rest {
			if a != "-v" && a != "--verbose" {
				return "git remote " + a + " may change remotes; only listing is allowed"
			}
		}
	}
	return ""
}
