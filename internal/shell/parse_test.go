package shell

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// summary renders a script compactly: commands as [words] (^N when run by command N, ~ for a
// glob word, = before assignments), then the constructs' texts, then the operators.
func summary(s *Script) string {
	var cmds []string
	for _, c := range s.Commands {
		var ws []string
		for _, w := range c.Assigns {
			ws = append(ws, "="+w.Text)
		}
		for _, w := range c.Words {
			if w.Glob {
				ws = append(ws, "~"+w.Text)
			} else {
				ws = append(ws, w.Text)
			}
		}
		cmd := "[" + strings.Join(ws, " ") + "]"
		if c.RunBy >= 0 {
			cmd += fmt.Sprintf("^%d", c.RunBy)
		}
		if len(c.Runs) > 0 {
			cmd += fmt.Sprint(c.Runs)
		}
		cmds = append(cmds, cmd)
	}
	var cons []string
	for _, c := range s.Constructs {
		cons = append(cons, c.Text)
	}
	return strings.Join(cmds, " ") + " | " + strings.Join(cons, " ")
}

func TestParse(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"go test ./...", "[go test ./...] | "},
		{"\"go\" 'test' ./\\...", "[go test ./...] | "},
		{"go test ./... > FILE", "[go test ./...] | >"},
		{"go test ./... >> FILE", "[go test ./...] | >>"},
		{"go test < in", "[go test] | <"},
		{"go test 2>/dev/null", "[go test] | >"},
		{"go test &> log", "[go test] | &>"},
		{"go test >| log", "[go test] | >|"},
		{"go test 2>&1", "[go test] | >&"},
		{"go test <<< word", "[go test] | <<<"},
		{"go test <(cmd)", "[go test <(cmd)] [cmd] | <("},
		{"go test >(tee x)", "[go test >(tee x)] [tee x] | >("},
		{"cat < <(ls)", "[cat] [ls] | < <("},
		{"cat <<EOF\n$(rm a)\nEOF\nls", "[cat] [rm a] [ls] | ; << $("},
		{"cat <<'EOF'\n$(rm a) ) '\nEOF\nls", "[cat] [ls] | ; <<"},
		{"cat <<-EOF\n\t`rm a`\n\tEOF", "[cat] [rm a] | <<- `"},
		{"a; b", "[a] [b] | ;"},
		{"a && b || c", "[a] [b] [c] | || &&"},
		{"a | b |& c", "[a] [b] [c] | |& |"},
		{"a & b", "[a] [b] | ; &"},
		{"a &", "[a] | &"},
		{"a\nb\n", "[a] [b] | ;"},
		{"a;", "[a] | "},
		{"a &&\n b", "[a] [b] | &&"},
		{"echo $(rm -rf x)", "[echo $(rm -rf x)] [rm -rf x] | $("},
		{"echo `rm -rf x`", "[echo `rm -rf x`] [rm -rf x] | `"},
		{"echo \"`echo \\`rm x\\``\"", "[echo `echo \\`rm x\\``] [echo `rm x\\`] [rm x] | ` `"},
		{"echo ${x:-$(rm y)}", "[echo ${x:-$(rm y)}] [rm y] | ${ $("},
		{"echo $((1 + $(rm y)))", "[echo $((1 + $(rm y)))] [rm y] | $(( $("},
		{"echo $HOME $1 $? \"$PATH\"", "[echo $HOME $1 $? $PATH] | $HOME $1 $? $PATH"},
		{"echo 'end$' \"a $ b\" $", "[echo end$ a $ b $] | "},
		{"(cd x && rm y)", "[cd x] [rm y] | ( &&"},
		{"{ rm y; }", "[rm y] | {"},
		{"if true; then rm x; fi", "[true] [rm x] | if"},
		{"! rm x", "[rm x] | !"},
		{"FOO=1 BAR=\"a b\" go test", "[=FOO=1 =BAR=a b go test] | FOO=1 BAR=a b"},
		{"FOO=1", "[=FOO=1] | FOO=1"},
		{"go test # > x; rm -rf /", "[go test] | "},
		{"\\rm -rf x", "[rm -rf x] | "},
		{"ls \\\n -la", "[ls -la] | "},
		{"echo $'\\x72m' $'a\\'b'", "[echo rm a'b] | $' $'"},
		{"ls *.go {a,b} {1..3} x{} '*'", "[ls ~*.go ~{a,b} ~{1..3} x{} *] | "},
		{"2>x ls", "[ls] | >"},
		{"ls {fd}>x", "[ls] | >"},
		{"find . -name x -exec rm {} \\; -print", "[find . -name x -exec rm {} ; -print][5] [rm {}]^0 | "},
		{"find . -execdir rm {} +", "[find . -execdir rm {} +][3] [rm {}]^0 | "},
		{"xargs -0 -n 1 wc -c", "[xargs -0 -n 1 wc -c][4] [wc -c]^0 | "},
		{"xargs -I{} sh -c 'x {}'", "[xargs -I{} sh -c x {}][2 4] [sh -c x {}]^0[2] [x {}]^1 | "},
		{"xargs", "[xargs] | "},
		{"sudo -u root env -i FOO=1 rm -rf /", "[sudo -u root env -i FOO=1 rm -rf /][3 6] [env -i FOO=1 rm -rf /]^0[3] [rm -rf /]^1 | "},
		{"sudo -X rm x", "[sudo -X rm x][2 3] [rm x]^0 [x]^0 | "},
		{"command rm x", "[command rm x][1] [rm x]^0 | "},
		{"command -v rm", "[command -v rm] | "},
		{"builtin cd x", "[builtin cd x][1] [cd x]^0 | "},
		{"/usr/bin/env rm x", "[/usr/bin/env rm x][1] [rm x]^0 | "},
		{"timeout -s KILL 5 rm x", "[timeout -s KILL 5 rm x][4] [rm x]^0 | "},
		{"nice -n 5 nohup rm x", "[nice -n 5 nohup rm x][3 4] [nohup rm x]^0[1] [rm x]^1 | "},
		{"env -S 'rm -rf x'", "[env -S rm -rf x][2] [rm -rf x]^0 | "},
		{"bash -lc 'rm -rf x; ls'", "[bash -lc rm -rf x; ls][2] [rm -rf x]^0 [ls]^0 | ;"},
		{"bash -o pipefail -c 'rm x'", "[bash -o pipefail -c rm x][4] [rm x]^0 | "},
		{"bash script.sh", "[bash script.sh] | "},
		{"eval rm '-rf x'", "[eval rm -rf x][1] [rm -rf x]^0 | "},
		{"rg --pre=./conv foo", "[rg --pre=./conv foo][1] [./conv]^0 | "},
		{"rg --pre ./conv foo", "[rg --pre ./conv foo][2] [./conv]^0 | "},
		{"go test -exec 'rm -rf' ./...", "[go test -exec rm -rf ./...][3] [rm -rf]^0 | "},
		{"go vet -vettool=./v ./...", "[go vet -vettool=./v ./...][2] [./v]^0 | "},
		{"git rebase -x 'make test' main", "[git rebase -x make test main][3] [make test]^0 | "},
		{"git cherry-pick -x abc", "[git cherry-pick -x abc] | "},
		{"rsync -e 'ssh -p 2' a b:", "[rsync -e ssh -p 2 a b:][2] [ssh -p 2]^0 | "},
		{"prlimit --nofile=10 rm x", "[prlimit --nofile=10 rm x][2] [rm x]^0 | "},
		{"prlimit -n10 rm x", "[prlimit -n10 rm x][2] [rm x]^0 | "},
		{"setarch x86_64 -R rm x", "[setarch x86_64 -R rm x][3] [rm x]^0 | "},
		{"linux32 rm x", "[linux32 rm x][1] [rm x]^0 | "},
		{"/lib64/ld-linux-x86-64.so.2 /bin/rm x", "[/lib64/ld-linux-x86-64.so.2 /bin/rm x][1] [/bin/rm x]^0 | "},
		{"ld.so --library-path /l rm x", "[ld.so --library-path /l rm x][3] [rm x]^0 | "},
		{"taskset -c 0 rm x", "[taskset -c 0 rm x][3] [rm x]^0 | "},
		{"go test --exec 'rm -rf' ./...", "[go test --exec rm -rf ./...][3] [rm -rf]^0 | "},
		{"git ls-remote --upload-pack='rm x' .", "[git ls-remote --upload-pack=rm x .][2] [rm x]^0 | "},
		{"git grep -O'rm x' foo", "[git grep -Orm x foo] | "},
		{"git grep --open-files-in-pager='rm x' foo", "[git grep --open-files-in-pager=rm x foo][2] [rm x]^0 | "},
		{"tar -cf a.tar --checkpoint-action=exec='rm x' .", "[tar -cf a.tar --checkpoint-action=exec=rm x .][3] [rm x]^0 | "},
		{"f() { rm x; }; f", "[rm x] [f] | ; function {"},
		{"case x in a) rm y;; esac", "[rm y] | case"},
	} {
		s, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := summary(s); got != tt.want {
			t.Errorf("Parse(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		in     string
		offset int
	}{
		{"ls 'x", 3}, {`ls "x`, 3}, {"ls `x", 3}, {"ls $(x", 3}, {"ls ${x", 3}, {"ls $((1", 3}, {"ls $'x", 3},
		{"(ls", 0}, {"ls )", 3}, {"ls |", 3}, {"ls &&", 3}, {"| ls", 0}, {"ls && && ls", 3}, {"& ls", 0},
		{"ls >", 3}, {"ls > ;", 3},
		{"sh -c 'rm \"x'", 9},
		{strings.Repeat("xargs ", 40), 0},
		{"sudo" + strings.Repeat(" -X a", 10), 0},
	} {
		_, err := Parse(tt.in)
		var se *SyntaxError
		if !asSyntax(err, &se) || se == nil || se.Offset != tt.offset {
			t.Errorf("Parse(%q) = %v, want a SyntaxError at byte %d", tt.in, err, tt.offset)
		}
	}
}

func TestSimple(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // the words of the simple command, "" when it is not one
	}{
		{"go test ./...", "go test ./..."},
		{"go test ./... # all of them", "go test ./..."},
		{`go test ./pkg\ x`, "go test ./pkg x"},
		{"go test;", "go test"},
		{"xargs grep x", "xargs grep x"},
		{"go test > f", ""},
		{"go test; ls", ""},
		{"go test &", ""},
		{"FOO=1 go test", ""},
		{"go test $(x)", ""},
		{"go test $X", ""},
		{"(go test)", ""},
		{"{ go test; }", ""},
		{"! go test", ""},
		{"go test $'x'", ""},
		{"# only a comment", ""},
		{"", ""},
	} {
		s, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		c, ok := s.Simple()
		var got []string
		for _, w := range c.Words {
			got = append(got, w.Text)
		}
		if ok != (tt.want != "") || strings.Join(got, " ") != tt.want {
			t.Errorf("Parse(%q).Simple() = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestConstructString(t *testing.T) {
	s, err := Parse(`echo "$(id)" ${x} $y >f &`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range s.Constructs {
		got[c.String()] = c.Offset
	}
	want := map[string]int{"command substitution ($() inside quotes": 6, "parameter expansion (${)": 13,
		"parameter expansion ($y)": 18, "redirection (>)": 21, "background job (&)": 24}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// unquoted reports whether s has one of chars (or "$(") outside quotes and escapes, before
// any '#'.
func unquoted(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return true
			}
			i += j + 1
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '#':
			return false
		case c == ';' && strings.HasPrefix(strings.TrimLeft(s[i+1:], " \t;"), "#"):
			return false // a trailing ; before a comment
		case strings.IndexByte(chars, c) >= 0 || strings.HasPrefix(s[i:], "$("):
			return true
		}
	}
	return false
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"go test ./...", "ls > x", `echo "a>b"`, "a && b | c; d &", "echo $(id) `id` ${x}",
		"cat <<EOF\nx\nEOF\n", "find . -exec rm {} \\;", "sudo env FOO=1 xargs sh -c 'rm x'", `\rm -rf x`, "(a) && { b; }",
		"echo $'\\x41'", "ls # c", "git {push,} {a..z..3}", "'", `"`, "$((1+2))", "go test 2>&1 | tee log", "0;\n#", "ls #;x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !strings.HasPrefix(err.Error(), "shell: ") || !asSyntax(err, &se) {
				t.Fatalf("Parse(%q): error %v is not a SyntaxError", src, err)
			}
			return
		}
		for i, c := range s.Commands {
			if c.RunBy >= i {
				t.Fatalf("Parse(%q): command %d run by a later command %d", src, i, c.RunBy)
			}
			for _, r := range c.Runs {
				if r < 1 || r >= len(c.Words) {
					t.Fatalf("Parse(%q): command %d runs word %d of %d", src, i, r, len(c.Words))
				}
			}
			if exp, ok := Expand(c.Words); ok && len(exp) > MaxExpand {
				t.Fatalf("Parse(%q): Expand made %d words", src, len(exp))
			}
		}
		c, ok := s.Simple()
		if !ok {
			return
		}
		// An empty command around the one command; a backslash-newline is a line continuation,
		// nothing at all.
		body := strings.Trim(strings.ReplaceAll(src, "\\\n", ""), " \t\n;")
		if !commentRE.MatchString(src) && unquoted(body, "<>;|&`()") { // "ls # ; x", "0;\n#": comments
			t.Fatalf("Parse(%q) is a simple command, but the source has an operator or substitution", src)
		}
		// With nothing quoted, escaped, commented or expanded, the words are the fields.
		if !strings.ContainsAny(src, "'\"\\#$`{}") && !strings.ContainsAny(src, "\n") {
			var got []string
			for _, w := range c.Words {
				got = append(got, w.Text)
			}
			if want := strings.FieldsFunc(body, func(r rune) bool { return r == ' ' || r == '\t' }); !slices.Equal(got, want) {
				t.Fatalf("Parse(%q) words %q, want %q", src, got, want)
			}
		}
	})
}

// commentRE finds a comment: a # that starts a word.
var commentRE = regexp.MustCompile(`(^|[\s;&|()])#`)

func asSyntax(err error, se **SyntaxError) bool {
	e, ok := err.(*SyntaxError)
	*se = e
	return ok
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "go", "a b", "it's", "$(x)", "*", "-rf", "{a,b}", "\n", "\xba", "a\x01'\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		sc, err := Parse("x " + q)
		if strings.ContainsAny(s, "\x00") {
			return
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v", "x "+q, err)
		}
		if strings.HasPrefix(q, "$'") { // ANSI-C quotes: one word, but not a plain one
			if len(sc.Commands) != 1 || len(sc.Commands[0].Words) != 2 || sc.Commands[0].Words[1].Text != s {
				t.Fatalf("Quote(%q) = %q reads back as %+v", s, q, sc.Commands)
			}
			return
		}
		c, ok := sc.Simple()
		if !ok || len(c.Words) != 2 || c.Words[1].Text != s || c.Words[1].Glob {
			t.Fatalf("Quote(%q) = %q reads back as %+v (simple %v)", s, q, c.Words, ok)
		}
	})
}

func TestReadsRuns(t *testing.T) {
	for name, want := range map[string]bool{
		"sh": true, "/usr/bin/env": true, "xargs": true, "find": true, "eval": true, "git": true,
		"ssh": false, "flock": false, "awk": false, "ls": false,
	} {
		if got := ReadsRuns(name); got != want {
			t.Errorf("ReadsRuns(%q) = %v, want %v", name, got, want)
		}
	}
}
