package extract

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
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

var envAssignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// word is one shell word after quote removal; quoted reports whether any of it was quoted,
// glob whether it has an unquoted *, ? or [ (the shell would expand it to file names).
type word struct {
	text   string
	quoted bool
	glob   bool
}

// globRisky are the programs with options that write or run something: a file name expanded
// from a glob could be such an option ("-delete", "--pre=sh"), so their globs are refused.
var globRisky = map[string]bool{
	"find": true, "git": true, "sort": true, "rg": true, "tree": true, "file": true, "date": true,
	"hostname": true, "uniq": true, "go": true, "xargs": true,
}

// ReadOnlyCommand reports whether a shell command only reads, so the extractor may run it
// anywhere. It is conservative: a command is ok only when every program in it is on a list of
// reading programs (ls, cat, head, tail, wc, grep, rg, find, git log/show/diff/status/blame/grep,
// pwd, stat, file, sort, uniq, jq …) with no argument that makes it write or run something
// (find -exec/-delete/-fprint, sort -o, git -c/--output, rg --pre …). Programs may be joined
// by pipes, ";", "&&", "||" and newlines. Redirections (> and <), tee, command substitution
// ($(…), backticks), ${…}, subshells and groups, background jobs, comments, backslash escapes
// outside quotes, environment assignments, paths to programs, sudo, xargs with a program
// not on the list, and unquoted globs for programs that have writing options (a file named
// "-delete" would become one) all make it false; why says which.
func ReadOnlyCommand(cmd string) (ok bool, why string) {
	if strings.TrimSpace(cmd) == "" {
		return false, "empty command"
	}
	if len(cmd) > maxCommandBytes {
		return false, fmt.Sprintf("command of %d bytes is too long to check", len(cmd))
	}
	segs, why := splitCommand(cmd)
	if why != "" {
		return false, why
	}
	for _, seg := range segs {
		if ok, why := checkCommand(seg); !ok {
			return false, why
		}
	}
	return true, ""
}

// splitCommand tokenises cmd into simple commands (split at |, ||, &&, ; and newlines), or
// says why it will not.
func splitCommand(cmd string) (segs [][]word, why string) {
	var cur []word
	var w strings.Builder
	inWord, quoted, glob := false, false, false
	endWord := func() {
		if inWord {
			cur = append(cur, word{w.String(), quoted, glob})
		}
		w.Reset()
		inWord, quoted, glob = false, false, false
	}
	// endSeg closes a command; an empty one is allowed only after ";" or a newline (and at
	// the end), never around a pipe or && / ||.
	lastOp := ""
	endSeg := func(op string) string {
		endWord()
		if len(cur) == 0 {
			if op == ";" && (lastOp == "" || lastOp == ";") {
				lastOp = op
				return ""
			}
			return "empty command next to " + strings.TrimSpace(op+" "+lastOp)
		}
		segs = append(segs, cur)
		cur = nil
		lastOp = op
		return ""
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch c {
		case '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, "unterminated single quote"
			}
			w.WriteString(cmd[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 1
		case '"':
			inWord, quoted = true, true
			i++
			for ; i < len(cmd) && cmd[i] != '"'; i++ {
				switch cmd[i] {
				case '\\':
					if i+1 < len(cmd) {
						i++
					}
					w.WriteByte(cmd[i])
					continue
				case '`':
					return nil, "command substitution (backticks)"
				case '$':
					if i+1 < len(cmd) && (cmd[i+1] == '(' || cmd[i+1] == '{') {
						return nil, "command substitution or expansion ($( or ${) inside quotes"
					}
					if expands(cmd, i) {
						return nil, "variable expansion ($NAME): the environment may hold secrets"
					}
				}
				w.WriteByte(cmd[i])
			}
			if i >= len(cmd) {
				return nil, "unterminated double quote"
			}
		case '\\':
			return nil, "backslash outside quotes (quote the argument instead)"
		case '`':
			return nil, "command substitution (backticks)"
		case '$':
			if i+1 < len(cmd) && (cmd[i+1] == '(' || cmd[i+1] == '{') {
				return nil, "command substitution or expansion ($( or ${)"
			}
			if expands(cmd, i) {
				return nil, "variable expansion ($NAME): the environment may hold secrets"
			}
			w.WriteByte(c)
			inWord = true
		case '>':
			return nil, "redirection to a file (>)"
		case '<':
			return nil, "redirection or process substitution (<)"
		case '(', ')':
			return nil, "subshell or grouping (parentheses)"
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				if why := endSeg("&&"); why != "" {
					return nil, why
				}
				i++
				continue
			}
			return nil, "background job or |& (&)"
		case '|':
			op := "|"
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				op = "||"
				i++
			}
			if why := endSeg(op); why != "" {
				return nil, why
			}
		case ';', '\n':
			if why := endSeg(";"); why != "" {
				return nil, why
			}
		case ' ', '\t', '\r':
			endWord()
		case '#':
			if !inWord {
				return nil, "comment (#)"
			}
			w.WriteByte(c)
		default:
			if c < 0x20 || c == 0x7f {
				return nil, fmt.Sprintf("control character %#x", c)
			}
			if c == '*' || c == '?' || c == '[' {
				glob = true
			}
			w.WriteByte(c)
			inWord = true
		}
	}
	endWord()
	if len(cur) > 0 {
		segs = append(segs, cur)
	} else if lastOp != "" && lastOp != ";" {
		return nil, "command ends with " + lastOp
	}
	if len(segs) == 0 {
		return nil, "empty command"
	}
	return segs, ""
}

// checkCommand checks one simple command.
func checkCommand(ws []word) (bool, string) {
	first := ws[0]
	if !first.quoted && envAssignment().MatchString(first.text) {
		return false, "environment assignment (" + first.text + ")"
	}
	for _, w := range ws {
		if !w.quoted && (w.text == "{" || w.text == "}") {
			return false, "command group ({ })"
		}
	}
	prog := first.text
	if strings.Contains(prog, "/") {
		return false, fmt.Sprintf("%q is a path to a program; only programs on the read-only list, by name, may run", prog)
	}
	if !readPrograms[prog] {
		return false, fmt.Sprintf("%q is not on the list of read-only programs", prog)
	}
	args := make([]string, 0, len(ws)-1)
	for _, w := range ws[1:] {
		if w.glob && globRisky[prog] {
			return false, fmt.Sprintf("unquoted glob %q for %s: an expanded file name could be an option; quote it", w.text, prog)
		}
		args = append(args, w.text)
	}
	if prog == "xargs" {
		return checkXargs(ws[1:])
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

// checkXargs allows xargs when the program it runs is allowed (echo when none is named).
func checkXargs(ws []word) (bool, string) {
	withArg := map[string]bool{"-I": true, "-L": true, "-n": true, "-P": true, "-d": true, "-s": true, "-E": true, "-a": true}
	flags := map[string]bool{"-0": true, "-r": true, "-t": true, "-x": true, "--null": true, "--no-run-if-empty": true, "--verbose": true, "--exit": true}
	i := 0
	for ; i < len(ws); i++ {
		a := ws[i].text
		switch {
		case a == "--":
			i++
			goto prog
		case withArg[a]:
			i++
		case flags[a]:
		case len(a) > 2 && withArg[a[:2]]:
		case strings.HasPrefix(a, "--max-args=") || strings.HasPrefix(a, "--max-lines=") || strings.HasPrefix(a, "--max-procs=") || strings.HasPrefix(a, "--delimiter=") || strings.HasPrefix(a, "--arg-file="):
		case strings.HasPrefix(a, "-"):
			return false, fmt.Sprintf("xargs option %s is not allowed for a read-only command", a)
		default:
			goto prog
		}
	}
prog:
	if i >= len(ws) {
		return true, "" // xargs alone runs echo
	}
	if ok, why := checkCommand(ws[i:]); !ok {
		return false, "xargs runs " + why
	}
	return true, ""
}

// expands reports whether the '$' at cmd[i] starts a parameter expansion ($NAME, $1, $?, $$,
// …) rather than standing for itself (at the end, or before a space or quote).
func expands(cmd string, i int) bool {
	if i+1 >= len(cmd) {
		return false
	}
	c := cmd[i+1]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("?$!@*#-", c) >= 0
}
