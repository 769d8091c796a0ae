package extract

import (
	"strings"
	"testing"
)

func TestReadOnlyCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		ok  bool
		why string // substring of the reason when !ok
	}{
		{cmd: "ls -la", ok: true},
		{cmd: "cat README.md | head -20", ok: true},
		{cmd: "grep -rn 'foo > bar' . | wc -l", ok: true},
		{cmd: `rg "部署" docs/`, ok: true},
		{cmd: "git log --oneline -5 && git status", ok: true},
		{cmd: "git -C sub diff HEAD~1", ok: true},
		{cmd: "find . -name '*.go' -newer go.mod", ok: true},
		{cmd: "ls; pwd;", ok: true},
		{cmd: "find . -name '*.md' | xargs grep -l TODO", ok: true},
		{cmd: "find . -print0 | xargs -0 -n 1 wc -c", ok: true},
		{cmd: "sort -u names.txt | uniq -c", ok: true},
		{cmd: "echo $HOME", why: "variable expansion"},
		{cmd: `cat "$AWS_SECRET_ACCESS_KEY"`, why: "variable expansion"},
		{cmd: "echo $?", why: "variable expansion"},
		{cmd: "grep 'end$' a.txt", ok: true},
		{cmd: `grep "cost: $ 5" a.txt`, ok: true},
		{cmd: "git branch --show-current", ok: true},
		{cmd: "stat -c '%s' go.mod\nfile go.mod", ok: true},
		{cmd: "ls > out.txt", why: "redirection"},
		{cmd: "ls 2>/dev/null", why: "redirection"},
		{cmd: "cat < in.txt", why: "redirection"},
		{cmd: "ls | tee out.txt", why: `"tee"`},
		{cmd: "echo $(rm -rf /)", why: "command substitution"},
		{cmd: "echo `id`", why: "backticks"},
		{cmd: `echo "$(id)"`, why: "inside quotes"},
		{cmd: "echo ${HOME:=x}", why: "${"},
		{cmd: "ls; rm -rf x", why: `"rm"`},
		{cmd: "ls && touch x", why: `"touch"`},
		{cmd: "false || sed -i s/a/b/ f", why: `"sed"`},
		{cmd: "FOO=1 ls", why: "environment assignment"},
		{cmd: "sudo ls", why: `"sudo"`},
		{cmd: "env ls", why: `"env"`},
		{cmd: "find . | xargs rm", why: "xargs runs"},
		{cmd: "xargs -I{} sh -c 'x {}'", why: "xargs runs"},
		{cmd: "find . -delete", why: "-delete"},
		{cmd: "find . -exec rm {} ;", why: "-exec"},
		{cmd: "find . -fprint out", why: "-fprint"},
		{cmd: "sort -o out.txt in.txt", why: "sort -o"},
		{cmd: "uniq in.txt out.txt", why: "uniq with two"},
		{cmd: "git commit -m x", why: "git commit"},
		{cmd: "git -c core.pager=sh log", why: "git option -c"},
		{cmd: "git diff --output=patch", why: "--output"},
		{cmd: "git branch -D main", why: "git branch -D"},
		{cmd: "rg --pre ./script foo", why: "--pre"},
		{cmd: "./ls", why: "path to a program"},
		{cmd: "/bin/ls", why: "path to a program"},
		{cmd: "ls &", why: "background"},
		{cmd: "ls |& cat", why: "&"},
		{cmd: "(ls)", why: "subshell"},
		{cmd: "{ ls; }", why: "group"},
		{cmd: "ls # > x", why: "comment"},
		{cmd: "ls # comment", why: "comment"},
		{cmd: `ls \> x`, why: "backslash"},
		{cmd: "ls 'unterminated", why: "unterminated"},
		{cmd: "ls |", why: "ends with |"},
		{cmd: "| ls", why: "empty command"},
		{cmd: "ls && && ls", why: "empty command"},
		{cmd: "", why: "empty"},
		{cmd: "go env -w GOFLAGS=x", why: "-w"},
		{cmd: "go build ./...", why: "go build"},
		{cmd: "date -s 2020-01-01", why: "sets the clock"},
		{cmd: "tree -o out", why: "-o"},
		{cmd: strings.Repeat("ls;", 5000), why: "too long"},
		{cmd: "ls *.md && wc -l docs/*.md", ok: true},
		{cmd: "find *", why: "unquoted glob"},
		{cmd: "rg foo src/*", why: "unquoted glob"},
		{cmd: "git log -- *.go", why: "unquoted glob"},
		{cmd: "git log -- '*.go'", ok: true},
		{cmd: "tree -R", why: "-R"},
		{cmd: "go list ./...", why: "go list"},
		{cmd: "printenv", why: `"printenv"`},
		{cmd: "find {.,-delete}", why: "unquoted glob"}, // brace expansion makes -delete an option
		{cmd: "cat {a,b}.md", ok: true},
		{cmd: "cat <(ls)", why: "process substitution"},
		{cmd: "cat <<EOF\nx\nEOF", why: "redirection"},
		{cmd: "cat <<< x", why: "redirection"},
		{cmd: "if true; then ls; fi", why: "compound command"},
		{cmd: "! ls", why: "compound command"},
		{cmd: "find . | xargs -0 env ls", why: `xargs runs "env"`},
		{cmd: "find . | xargs -I{} grep x {}", ok: true},
		{cmd: "xargs --foo grep x", why: `xargs runs "x"`}, // an unknown option may take "grep"
		{cmd: "find . -name x -exec grep y {} +", why: "-exec"},
		{cmd: "ls $'\\x3e' x", why: "ANSI-C"},
		{cmd: "ls $((1+1))", why: "arithmetic"},
		{cmd: "ls\r", why: "control character"},
	} {
		ok, why := ReadOnlyCommand(tc.cmd)
		if ok != tc.ok || !tc.ok && !strings.Contains(why, tc.why) {
			t.Errorf("ReadOnlyCommand(%q) = %v, %q; want %v, %q", tc.cmd, ok, why, tc.ok, tc.why)
		}
		if ok && why != "" {
			t.Errorf("ReadOnlyCommand(%q) ok with a reason %q", tc.cmd, why)
		}
	}
}

// unquotedGT reports whether s has a '>' outside quotes, by shell quoting rules (single quotes
// literal, double quotes with backslash escapes, backslash escapes outside quotes).
func unquotedGT(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return strings.Contains(s[i+1:], ">")
			}
			i += j + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '>':
			return true
		}
	}
	return false
}

func FuzzReadOnlyCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "cat a | head", "ls > x", `echo "a>b"`, "echo 'a>b'", `echo "\">"`,
		"git log && git diff", "find . -exec rm {} ;", "xargs grep x", "a=1 ls", "ls\n>x", `"`, "'", "ls #>x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		ok, why := ReadOnlyCommand(cmd)
		if ok && unquotedGT(cmd) {
			t.Fatalf("ReadOnlyCommand(%q) = ok, but it has > outside quotes", cmd)
		}
		if !ok && why == "" {
			t.Fatalf("ReadOnlyCommand(%q) refused without a reason", cmd)
		}
		if ok && (strings.Contains(cmd, "`") && !strings.Contains(cmd, "'") || strings.Contains(cmd, "$(") && !strings.ContainsAny(cmd, `'`)) {
			t.Fatalf("ReadOnlyCommand(%q) = ok with a command substitution", cmd)
		}
	})
}
