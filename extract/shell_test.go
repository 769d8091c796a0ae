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
		{cmd: "git -C sub diff HEAD~1", why: "points git at another repository"},
		{cmd: "find . -name '*.go' -newer go.mod", ok: true},
		{cmd: "ls; pwd;", ok: true},
		{cmd: "find . -name '*.md' | xargs grep -l TODO", why: "xargs runs a command with words read from its standard input"},
		// issue 26: xargs's words come from stdin, which the check never saw.
		{cmd: "echo . -maxdepth 0 -exec touch X ';' | xargs find", why: "xargs runs a command with words read from its standard input"},
		{cmd: "printf -- '--output=X' | xargs git log -1", why: "xargs runs a command with words read from its standard input"},
		{cmd: "sort -u names.txt | uniq -c", ok: true},
		{cmd: "echo $HOME", why: "parameter expansion"},
		{cmd: `cat "$AWS_SECRET_ACCESS_KEY"`, why: "parameter expansion"},
		{cmd: "echo $?", why: "parameter expansion"},
		{cmd: "grep 'end$' a.txt", ok: true},
		{cmd: `grep "cost: $ 5" a.txt`, ok: true},
		{cmd: "git branch --show-current", ok: true},
		{cmd: "stat -c '%s' go.mod\nfile go.mod", ok: true},
		{cmd: "ls > out.txt", why: "redirection"},
		{cmd: "ls 2>/dev/null", why: "redirection"},
		{cmd: "cat < in.txt", why: "redirection"},
		{cmd: "ls | tee out.txt", why: `"tee"`},
		{cmd: "echo $(rm -rf /)", why: "command substitution"},
		{cmd: "echo `id`", why: "command substitution"},
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
		{cmd: "sort -o out.txt in.txt", why: "sort option -o"},
		{cmd: "uniq in.txt out.txt", why: "writes the last one"},
		{cmd: "git commit -m x", why: "git commit"},
		{cmd: "git -c core.pager=sh log", why: "git option -c"},
		{cmd: "git diff --output=patch", why: "--output"},
		{cmd: "git branch -D main", why: "git branch option -D"},
		{cmd: "rg --pre ./script foo", why: "--pre"},
		{cmd: "printf -v 'a[$(touch x)]' y", why: "command substitution's text"}, // bash runs the subscript
		{cmd: "test -v 'a[`touch x`]'", why: "command substitution's text"},
		{cmd: "[ -v 'a[$(touch x)]' ]", why: "command substitution's text"},
		{cmd: "printf -v PATH ./bin; ls", why: "printf -v"}, // ls would be the repository's ./bin/ls
		{cmd: "printf '%s\\n' x", ok: true},
		{cmd: "test -f go.mod", ok: true},
		{cmd: "test -v 'a[PATH=0]'; ls", why: "test -v"}, // PATH=0: ls would be the repository's 0/ls
		{cmd: "[ ! -v 'a[PATH=0]' ]", why: "test -v"},
		{cmd: "./ls", why: "path to a program"},
		{cmd: "/bin/ls", why: "path to a program"},
		{cmd: "ls &", why: "background"},
		{cmd: "ls |& cat", why: "&"},
		{cmd: "(ls)", why: "subshell"},
		{cmd: "{ ls; }", why: "group"},
		{cmd: "ls # comment", ok: true},
		{cmd: "ls 'unterminated", why: "without closing quote"},
		{cmd: "ls |", why: "must be followed by a statement"},
		{cmd: "| ls", why: "can only immediately follow a statement"},
		{cmd: "ls && && ls", why: "must be followed by a statement"},
		{cmd: "", why: "empty"},
		{cmd: "go env -w GOFLAGS=x", why: "-w"},
		{cmd: "go build ./...", why: "go build"},
		{cmd: "date -s 2020-01-01", why: "date option -s"},
		{cmd: "date 0101000020", why: "sets the clock"},
		{cmd: "date +%F", ok: true},
		{cmd: "tree -o out", why: "-o"},
		{cmd: strings.Repeat("ls;", 5000), why: "too long"},
		{cmd: "ls *.md && wc -l docs/*.md", ok: true},
		{cmd: "find *", why: "find *"},
		{cmd: "git log *.go", why: "could expand into an option"},
		{cmd: "git log -- *.go", ok: true}, // after --, a file named --output=x.go is an operand
		{cmd: "git log -- '*.go'", ok: true},
		{cmd: "tree -R", why: "-R"},
		{cmd: "go list ./...", why: "go list"},
		{cmd: "printenv", why: `"printenv"`},
		{cmd: "find {.,-delete}", why: "-delete"}, // brace expansion makes -delete an option
		{cmd: "cat {a,b}.md", ok: true},
		{cmd: "cat <(ls)", why: "process substitution"},
		{cmd: "cat <<EOF\nx\nEOF", why: "redirection"},
		{cmd: "cat <<< x", why: "redirection"},
		{cmd: "if true; then ls; fi", why: "compound command"},
		{cmd: "! ls", why: "compound command"},
		{cmd: "find . | xargs -0 env ls", why: "xargs runs"},
		{cmd: "find . | xargs -I{} grep x {}", why: "xargs runs"},
		{cmd: "sudo ls", why: `"sudo" is not`},
		{cmd: "env ls", why: `"env" is not`},
		{cmd: "ls # > x", ok: true},
		{cmd: `ls \> x`, ok: true},
		{cmd: "rg foo src/*", ok: true},
		{cmd: "rg foo *", why: "could expand into an option"},
		{cmd: "find . -name x -exec grep y {} +", why: "-exec"},
		// A glob as an option's value may be several words, the later ones options.
		{cmd: `find . -name {x,-o,-exec,sh,-c,id,\;}`, why: "an option's value"},
		{cmd: "find . -name *", why: "an option's value"},
		{cmd: "find . -newermt {x,-delete}", why: "an option's value"},
		{cmd: "rg -e {x,--pre=sh} notes.txt", why: "an option's value"},
		{cmd: "sort -k {1,--compress-program=sh,-S,1K} data", why: "an option's value"},
		{cmd: "git log -n {1,--output=x} --oneline", why: "an option's value"},
		{cmd: "git grep -e {x,--open-files-in-pager=x} .", why: "an option's value"},
		{cmd: "git log --format=%G? -1", why: "gpg"},
		{cmd: "git show --pretty=format:%GS HEAD", why: "gpg"},
		{cmd: "find . -name '*.go' -newer go.mod -maxdepth 2", ok: true},
		{cmd: "sort -k 2 -t , data.csv", ok: true},
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

// shellText reads s by shell quoting rules (single quotes literal, double quotes with
// backslash escapes, backslash escapes outside quotes, '#' starting a word opens a comment):
// code is s up to its comment, bare the bytes of code outside quotes (the rest of an unclosed
// single quote counts as bare, to stay on the safe side).
func shellText(s string) (code, bare string) {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				out.WriteString(s[i+1:])
				return s, out.String()
			}
			i += j + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '#':
			if i == 0 || strings.IndexByte(" \t\n;|&(", s[i-1]) >= 0 {
				return s[:i], out.String()
			}
			out.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	return s, out.String()
}

// unquotedGT reports whether s has a '>' outside quotes and comments.
func unquotedGT(s string) bool {
	_, bare := shellText(s)
	return strings.Contains(bare, ">")
}

// beforeComment returns s up to its first comment.
func beforeComment(s string) string {
	code, _ := shellText(s)
	return code
}

func FuzzReadOnlyCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "cat a | head", "ls > x", `echo "a>b"`, "echo 'a>b'", `echo "\">"`,
		"git log && git diff", "find . -exec rm {} ;", "xargs grep x", "a=1 ls", "ls\n>x", `"`, "'", "ls #>x", "ls # >x"} {
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
		code := beforeComment(cmd)
		if ok && (strings.Contains(code, "`") && !strings.Contains(code, "'") || strings.Contains(code, "$(") && !strings.ContainsAny(code, `'`)) {
			t.Fatalf("ReadOnlyCommand(%q) = ok with a command substitution", cmd)
		}
	})
}

// TestReadOnlyCommandAllowList: options are allowed by list, not refused by list: everything
// that points a program at another repository, configuration or program is refused, and so
// is any option nobody listed (an abbreviation included), while the common reading ones pass.
func TestReadOnlyCommandAllowList(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		ok  bool
		why string
	}{
		{cmd: "git --git-dir=evil --work-tree=. status", why: "--git-dir=evil points git"},
		{cmd: "git --git-dir evil status", why: "--git-dir points git"},
		{cmd: "git --work-tree=. status", why: "--work-tree=. points git"},
		{cmd: "git -C evil status", why: "-C points git"},
		{cmd: "git -Cevil status", why: "points git"},
		{cmd: "git -c core.fsmonitor=x status", why: "-c points git"},
		{cmd: "git --exec-path=evil log", why: "--exec-path=evil points git"},
		{cmd: "git --config-env=core.pager=X log", why: "points git"},
		{cmd: "git --namespace=x log", why: "points git"},
		{cmd: "git -p log", why: "git option -p"},
		{cmd: "git --paginate log", why: "git option --paginate"},
		{cmd: "GIT_DIR=evil git status", why: "environment assignment"},
		{cmd: "GIT_CONFIG_GLOBAL=evil git log", why: "environment assignment"},
		{cmd: "git ls-remote --upload-pack=evil origin", why: "git ls-remote is not a read-only"},
		{cmd: "git log --upload-pack=evil", why: "--upload-pack"},
		{cmd: "git diff --output=x", why: "--output"},
		{cmd: "git diff --outp=x", why: "--outp"},
		{cmd: "git diff --ext-diff", why: "--ext-diff"},
		{cmd: "git log -p --textconv", why: "--textconv"},
		{cmd: "git log --show-signature", why: "--show-signature"},
		{cmd: "git cat-file --filters HEAD:x", why: "--filters"},
		{cmd: "git cat-file --textconv HEAD:x", why: "--textconv"},
		{cmd: "git grep -O evil x", why: "-O"},
		{cmd: "git grep --open-files-in-pager=evil x", why: "--open-files-in-pager"},
		{cmd: "git branch newbranch", why: "takes no operands"},
		{cmd: "git remote add x y", why: "takes no operands"},
		{cmd: "git help log", why: "git help is not"},
		{cmd: "git config --list", why: "git config is not"},
		{cmd: "git", why: "without a subcommand"},
		{cmd: "sort --outp=x in", why: "--outp"},
		{cmd: "sort --compress-program=sh in", why: "--compress-program"},
		{cmd: "rg --pre=./x foo", why: "--pre"},
		{cmd: "rg -z foo", why: "-z"},
		{cmd: "tail -f log", why: "-f"},
		{cmd: "find . -fls out", why: "find -fls"},
		{cmd: "find . -newerXY x -quit", ok: true},
		{cmd: "hostname evil", why: "no operands"},
		{cmd: "xargs -a list grep x", why: "xargs runs"},
		{cmd: "jq --rawfile x /etc/passwd .", why: "--rawfile"},
		{cmd: "go env -w X=1", why: "go env option -w"},
		{cmd: "git status", ok: true},
		{cmd: "git --no-pager log -n 5 --oneline --stat", ok: true},
		{cmd: "git log -M50% -S needle --since=2.weeks -- docs", ok: true},
		{cmd: "git log -L 1,5:go.mod", ok: true},
		{cmd: "git diff --stat HEAD~1 -- '*.go'", ok: true},
		{cmd: "git show HEAD:go.mod", ok: true},
		{cmd: "git grep -n -i 'func main' -- '*.go'", ok: true},
		{cmd: "git ls-files -z --others --exclude-standard", ok: true},
		{cmd: "git rev-parse --show-toplevel --abbrev-ref HEAD", ok: true},
		{cmd: "git blame -L 1,20 -w go.mod", ok: true},
		{cmd: "git branch -a -v", ok: true},
		{cmd: "git remote -v", ok: true},
		{cmd: "head -5 go.mod | tail -n 2", ok: true},
		{cmd: "ls -la --color=never docs", ok: true},
		{cmd: "grep -rn -A3 --include='*.go' TODO .", ok: true},
		{cmd: "rg -n -g '*.md' --max-depth 2 결정", ok: true},
		{cmd: "find . -maxdepth 2 -type f -name '*.go' -print0 | wc -l", ok: true},
		{cmd: "sort -k 2 -t , -n data.csv | uniq -c", ok: true},
		{cmd: "go version -m ./strata", ok: true},
		{cmd: "echo -n --output=x", ok: true}, // echo's words are text
	} {
		ok, why := ReadOnlyCommand(tc.cmd)
		if ok != tc.ok || !tc.ok && !strings.Contains(why, tc.why) {
			t.Errorf("ReadOnlyCommand(%q) = %v, %q; want %v, %q", tc.cmd, ok, why, tc.ok, tc.why)
		}
	}
}
