package permission

import (
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/shell"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		bad  bool
	}{
		{"Read", Rule{Tool: "Read"}, false},
		{"Bash(go test:*)", Rule{Tool: "Bash", Spec: "go test:*"}, false},
		{"Edit(src/**)", Rule{Tool: "Edit", Spec: "src/**"}, false},
		{"Edit(*)", Rule{Tool: "Edit"}, false},
		{"", Rule{}, true},
		{"Bash(go", Rule{}, true},
		{"(x)", Rule{}, true},
		{"Edit([)", Rule{}, true},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if (err != nil) != tt.bad || !tt.bad && got != tt.want {
			t.Errorf("ParseRule(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestPermissionsCheck(t *testing.T) {
	p, err := New(ModeAsk, []string{"Bash(go test:*)", "Edit(src/**)", "Bash(make)"}, []string{"Bash(go test ./secret:*)", "Read(.env)"}, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		c    Class
		s    Subject
		want Decision
	}{
		{"Bash", ClassExec, Subject{Command: "go test ./..."}, Allow},
		{"Bash", ClassExec, Subject{Command: "go test"}, Allow},
		{"Bash", ClassExec, Subject{Command: "go testing"}, AskUser},
		{"Bash", ClassExec, Subject{Command: "go test ./... && rm -rf /"}, AskUser},
		{"Bash", ClassExec, Subject{Command: "go test ./secret/x"}, Deny},
		{"Bash", ClassExec, Subject{Command: "make"}, Allow},
		{"Bash", ClassExec, Subject{Command: "go test ./x; go test ./secret/y"}, Deny},
		{"Bash", ClassExec, Subject{Command: "make all"}, AskUser},
		{"Edit", ClassEdit, Subject{Path: "/p/src/a/b.go"}, Allow},
		{"Write", ClassEdit, Subject{Path: "/p/src/new.go"}, Allow},
		{"Edit", ClassEdit, Subject{Path: "/p/main.go"}, AskUser},
		{"Read", ClassRead, Subject{Path: "/p/main.go"}, Allow},
		{"Read", ClassRead, Subject{Path: "/p/.env"}, Deny},
		{"Grep", ClassRead, Subject{Path: "/p/.env"}, Deny},
		{"memory_save", ClassMemory, Subject{}, Allow},
		{"TodoWrite", ClassState, Subject{}, Allow},
	}
	for _, tt := range tests {
		if got, _ := p.Check(tt.tool, tt.c, tt.s); got != tt.want {
			t.Errorf("%s %+v = %v, want %v", tt.tool, tt.s, got, tt.want)
		}
	}
	for mode, want := range map[Mode][2]Decision{ModeAsk: {AskUser, AskUser}, ModeAcceptEdits: {Allow, AskUser}, ModeBypass: {Allow, Allow}} {
		p := &Set{Mode: mode, Cwd: "/p"}
		e, _ := p.Check("Edit", ClassEdit, Subject{Path: "/p/x"})
		b, _ := p.Check("Bash", ClassExec, Subject{Command: "ls"})
		if [2]Decision{e, b} != want {
			t.Errorf("mode %s: edit %v, bash %v; want %v", mode, e, b, want)
		}
	}
	// Deny wins even in bypass mode.
	p.Mode = ModeBypass
	if d, _ := p.Check("Read", ClassRead, Subject{Path: "/p/.env"}); d != Deny {
		t.Errorf("bypass overrode a deny rule")
	}
}

// TestPlanMode: in plan mode reads are decided as in ask mode, and edits, shell commands and
// memory writes are denied whatever the allow rules say; the todo list may change.
func TestPlanMode(t *testing.T) {
	p, err := New(ModePlan, []string{"Edit", "Bash(go test:*)"}, nil, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool string
		c    Class
		s    Subject
		want Decision
	}{
		{"Read", ClassRead, Subject{Path: "/p/a.go"}, Allow},
		{"Read", ClassRead, Subject{Path: "/etc/hosts"}, AskUser},
		{"TodoWrite", ClassState, Subject{}, Allow},
		{"Edit", ClassEdit, Subject{Path: "/p/a.go"}, Deny},
		{"Write", ClassEdit, Subject{Path: "/p/.git/config"}, Deny},
		{"Bash", ClassExec, Subject{Command: "go test ./..."}, Deny},
		{"memory_save", ClassMemory, Subject{}, Deny},
	} {
		got, why := p.Check(tt.tool, tt.c, tt.s)
		if got != tt.want || got == Deny && !strings.Contains(why, "plan mode") {
			t.Errorf("%s %+v: %v (%s), want %v", tt.tool, tt.s, got, why, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAsk, "default": ModeAsk, "acceptEdits": ModeAcceptEdits, "accept-edits": ModeAcceptEdits, "bypass": ModeBypass, "bypassPermissions": ModeBypass, "plan": ModePlan} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Errorf("unknown mode accepted")
	}
}

// TestBashAllowCoversOnlyTheCommand: an allow prefix matches a command only when the whole
// command does nothing beyond it (the issue: with only Bash(go test:*), "go test ./... > FILE"
// ran without asking).
func TestBashAllowCoversOnlyTheCommand(t *testing.T) {
	p, err := New(ModeAsk, []string{"Bash(go test:*)", "Bash(make)", "Bash(find:*)", "Bash(xargs grep:*)", "Bash(sh -c 'go vet':*)", "Bash(git log:*)", "Bash(sort:*)", "Bash(curl -o out.json:*)", "Bash(printf:*)", "Bash(test:*)"}, nil, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want Decision
	}{
		{"go test ./...", Allow},
		{"  go test ./...\n", Allow},
		{`"go" 'test' ./...`, Allow},
		{`go test ./pkg\ with\ space`, Allow},
		{"go test ./... # all packages", Allow},
		{"go test ./*", Allow}, // a glob that cannot start with "-" only makes more arguments
		{"go test *", AskUser}, // a file named "-exec=…" would be an option
		// Brace expansion and globs that make an option the words do not show.
		{"go test {-exec,./evil} ./...", AskUser},
		{"go test -e{x,}ec ./evil ./...", AskUser},
		{"go test -exe[c] ./evil", AskUser},
		{"git log {--output=/home/u/.bashrc,-p}", AskUser},
		{"git log --ou{t,}put=/home/u/.bashrc", AskUser},
		{"git log --outp?t=/home/u/.bashrc", AskUser},
		{"git log {a,b}.go", Allow},
		{"git log src/*.go", Allow},
		{"go test ./... > FILE", AskUser},
		{"go test ./... >> FILE", AskUser},
		{"go test ./... < FILE", AskUser},
		{"go test ./... 2> FILE", AskUser},
		{"go test ./... 2>&1", AskUser},
		{"go test ./... &> FILE", AskUser},
		{"go test ./... >| FILE", AskUser},
		{"go test ./... <> FILE", AskUser},
		{"go test ./... <<EOF\nx\nEOF", AskUser},
		{"go test ./... <<< x", AskUser},
		{"go test <(cmd)", AskUser},
		{"go test >(cmd)", AskUser},
		{"go test ./...; rm -rf x", AskUser},
		{"go test ./... && rm -rf x", AskUser},
		{"go test ./... || rm -rf x", AskUser},
		{"go test ./... | tee FILE", AskUser},
		{"go test ./... |& tee FILE", AskUser},
		{"go test ./... &", AskUser},
		{"go test ./... & rm -rf x", AskUser},
		{"go test ./...\nrm -rf x", AskUser},
		{"go test $(rm -rf x)", AskUser},
		{`go test "$(rm -rf x)"`, AskUser},
		{"go test `rm -rf x`", AskUser},
		{"go test ${x:-y}", AskUser},
		{"go test $HOME", AskUser},
		{"go test $((1+1))", AskUser},
		{"go test $'\\x41'", AskUser},
		{"(go test ./...)", AskUser},
		{"{ go test ./...; }", AskUser},
		{"! go test", AskUser},
		{"FOO=1 go test", AskUser},
		{"go testing", AskUser},
		{"go test -exec rm ./...", AskUser},
		{"go test -exec=./evil ./...", AskUser},
		{"go tes?", AskUser},
		{"go test 'unterminated", AskUser},
		{"make", Allow},
		{"make all", AskUser},
		{"make > log", AskUser},
		{"make; make", AskUser},
		{"find . -name '*.go'", Allow},
		{"find . -exec rm {} +", AskUser},
		{"find . -execdir rm {} ;", AskUser},
		{"find . -ok rm {} \\;", AskUser},
		// A command that runs another through its arguments is never covered by a prefix.
		{"xargs grep TODO", AskUser},
		{"xargs grep -l TODO", AskUser},
		{"xargs rm", AskUser},
		{"xargs -0 rm", AskUser},
		{"sh -c 'go vet'", AskUser},
		{"sh -c 'go vet; rm x'", AskUser},
		// Options that make the program write a file it names: not on its known-safe list.
		{"git log --oneline -5", Allow},
		{"git log --output=/home/u/.bashrc", AskUser},
		{"git log --outp /home/u/.bashrc", AskUser},
		{"sort -u names.txt", Allow},
		{"sort -o /home/u/.profile names.txt", AskUser},
		{"sort -uo /home/u/.profile names.txt", AskUser},
		{"curl -o out.json https://example.com", Allow}, // the rule names the option
		{"curl -o out.json -D h https://example.com", AskUser},
		{"printf -v 'a[$(rm -rf y)]' x", AskUser}, // bash evaluates the subscript: the rm runs
		{"test -v 'a[`rm -rf y`]'", AskUser},
		{"printf '%s\\n' x", Allow},
		{"go test -o /home/u/.bashrc ./...", AskUser},
		{"go test -coverprofile=/home/u/.profile ./...", AskUser},
		{"go test ./... -args -test.outputdir=/home/u", AskUser},
		{"go test -json -count=1 ./...", Allow},
	} {
		if got, _ := p.Check("Bash", ClassExec, Subject{Command: tt.cmd}); got != tt.want {
			t.Errorf("%q = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

// TestBashDenyMatchesEveryCommand: a deny prefix matches any simple command anywhere in the
// whole command; when the command cannot be read it falls back to matching text pieces.
func TestBashDenyMatchesEveryCommand(t *testing.T) {
	p, err := New(ModeBypass, nil, []string{"Bash(rm:*)", "Bash(git push)"}, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want Decision
	}{
		{"rm -rf x", Deny},
		{"rmdir x", Deny}, // the last word matches as a string prefix, as before
		{"ls; rm x", Deny},
		{"ls && rm x", Deny},
		{"ls || rm x", Deny},
		{"ls | rm x", Deny},
		{"ls & rm x", Deny},
		{"ls\nrm x", Deny},
		{"echo $(rm x)", Deny},
		{`echo "$(rm x)"`, Deny},
		{"echo `rm x`", Deny},
		{"echo ${x:-$(rm x)}", Deny},
		{"echo $((1 + $(rm x)))", Deny},
		{"(rm x)", Deny},
		{"{ rm x; }", Deny},
		{"if true; then rm x; fi", Deny},
		{"cat <(rm x)", Deny},
		{"tee >(rm x)", Deny},
		{"cat <<EOF\n$(rm x)\nEOF", Deny},
		{`\rm x`, Deny},
		{`'rm' x`, Deny},
		{`r"m" x`, Deny},
		{"$'rm' x", Deny},
		{"/bin/rm x", Deny},
		{"FOO=1 rm x", Deny},
		{"command rm x", Deny},
		{"builtin rm x", Deny},
		{"env -i FOO=1 rm x", Deny},
		{"sudo -u root rm x", Deny},
		{"nohup nice -n 5 rm x", Deny},
		{"timeout 5 rm x", Deny},
		{"exec rm x", Deny},
		{"nohup rm x", Deny},
		{"time rm x", Deny},
		{"time -p rm x", Deny},
		{"env rm x", Deny},
		{"( rm x )", Deny},
		{`\command \rm x`, Deny},
		{"builtin command rm x", Deny},
		{"echo x | xargs rm", Deny},
		{"xargs rm", Deny},
		{"xargs -0 -n 1 rm", Deny},
		{"find . -exec rm {} \\;", Deny},
		{"sh -c 'rm x'", Deny},
		{`bash -lc "ls; rm x"`, Deny},
		{"eval 'rm x'", Deny},
		{"go test -exec 'rm -rf' ./...", Deny},
		{"git rebase --exec 'rm x' main", Deny},
		{"rm 'x", Deny},                            // cannot be read: the text pieces match
		{"ls; rm \"x", Deny},                       // the same after a separator
		{"ls $(rm x", Deny},                        // and after $(
		{`f() { \rm -rf x; }; f`, Deny},            // cannot be read: wrappers seen through in the pieces
		{"case y in *) command rm x;; esac", Deny}, // the same
		{`case y in *) "/bin/rm" x;; esac`, Deny},  // a path, quoted
		{"case y in *) ls;; esac", Allow},
		{"function f { rm x; }; f", Deny}, // a function definition cannot be read: the pieces
		// Brace expansion and globs make the words the shell runs.
		{"{rm,-rf,x}", Deny},
		{"{sudo,rm,x}", Deny},
		{"git {push,}", Deny},
		{"git pu{s,}h", Deny},
		{"/bin/r? x", Deny},
		{"/bin/r[m] x", Deny},
		{"r* x", Deny},
		{"echo {a,b}", Allow},
		{"l? x", Allow},
		// A program or subcommand named by a substitution or expansion may be any.
		{"$(echo rm) x", Deny},
		{"${X:-rm} x", Deny},
		{"git $(echo push)", Deny},
		{"G=git; $G push", Deny},
		{"git status $(echo x)", Allow},
		// A shell given no script it reads: its input is looked through as text.
		{"echo rm x | sh", Deny},
		{"sh <<< 'rm x'", Deny},
		{"echo ls | sh", Deny}, // a shell reading its script from stdin: nothing to check
		// Programs that run what their arguments say, which the analyser does not read:
		// the words of the whole command are looked through, as for one it cannot read.
		{"ionice -c 3 rm -rf x", Deny},
		{"flock /tmp/l rm -rf x", Deny},
		{"taskset 1 rm x", Deny},
		{"chrt 0 rm x", Deny},
		{"strace rm x", Deny},
		{"unshare rm x", Deny},
		{"busybox rm x", Deny},
		{"chroot / rm x", Deny},
		{"script -c 'rm x'", Deny},
		{"su -c 'rm x'", Deny},
		{"watch rm x", Deny},
		{"ssh h rm x", Deny},
		{"setpriv rm x", Deny},
		{"awk 'BEGIN{system(\"rm x\")}'", Deny},
		{"parallel rm ::: x", Deny},
		{"git -c alias.x='!rm -rf y' x", Deny}, // configuration that names a program
		{"git -c core.pager='rm y' log", Deny},
		{"P='rm y' git --config-env=core.pager=P log", Deny},
		{"make --eval='all: ; rm y'", Deny},
		{"make --eval=all:;rm y", Deny},
		{"make -E 'all:;rm y'", Deny},
		{"docker exec c rm y", Deny},
		{"kubectl exec p -- rm y", Deny},
		{"podman run img rm -rf /", Deny},
		{"docker compose run app rm y", Deny},
		{"poetry run rm -rf y", Deny}, // package runners run the command after them
		{"uv run rm y", Deny},
		{"npm exec -- rm y", Deny},
		{"pnpm dlx rm y", Deny},
		{"bundle exec rm y", Deny},
		{"pipenv run rm y", Deny},
		{"nix shell nixpkgs#hello -c rm y", Deny},
		{"git submodule foreach rm y", Deny},
		{"git bisect run rm y", Deny},
		{"poetry run pytest", Allow},
		{"shopt -s expand_aliases\nalias ls='rm'\nls -rf y", Deny}, // the alias runs rm
		{"alias ll='ls -l'", Allow},
		{"hash -p /bin/rm ls; ls -rf y", Deny},
		{"trap 'rm -rf y' EXIT; ls", Deny},
		// Text bash evaluates as arithmetic later runs the substitutions in it.
		{"let 'x[$(rm y)]=1'", Deny},
		{"[[ 'a[$(rm y)]' -eq 0 ]]", Deny},
		{"test -v 'a[`rm y`]'", Deny},
		{"echo 1 | read 'a[$(rm y)]'", Deny},
		{"printf -v 'a[$(rm y)]' x", Deny},
		{"declare -i x; x='a[$(rm y)]'", Deny},
		{"git commit -m \"$(cat msg)\"", Allow},
		{"npm run build", Allow},
		{"ionice -c 3 ls", Allow},
		{"ssh h ls", Allow},
		{"git -c color.ui=never log", Allow},
		{"docker exec c ls", Allow},
		{"make all", Allow},
		{"git push", Deny}, // an exact rule matches the same command
		{"ls && git push", Deny},
		{"git push origin", Allow},
		{"git -c x=y push", Deny}, // git's global options before the subcommand
		{"git -C /r push", Deny},
		{"/usr/bin/git --no-pager -c a=b push", Deny},
		{"git --git-dir=/r/.git --work-tree /r push", Deny},
		{"git -c x=y push origin", Allow},
		{"git -C /r status", Allow},
		{"git -c", Allow},
		{"echo rm", Allow},
		{"git rm x", Allow},
		{"echo 'a; rm x'", Allow}, // quoted: no rm runs
		{"command -v rm", Allow},
	} {
		if got, _ := p.Check("Bash", ClassExec, Subject{Command: tt.cmd}); got != tt.want {
			t.Errorf("%q = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	// A rule the analyser cannot read matches as text, as before.
	q, err := New(ModeBypass, nil, []string{"Bash(echo 'x:*)"}, "/p", "")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := q.Check("Bash", ClassExec, Subject{Command: "ls; echo 'x y'"}); d != Deny {
		t.Errorf("an unreadable deny rule did not match its text")
	}
}

func TestSuggestBash(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./...":                    "Bash(go test:*)",
		"make":                             "Bash(make:*)",
		"ls -la":                           "Bash(ls:*)",
		"cat ./x":                          "Bash(cat:*)",
		"xargs grep TODO":                  "Bash(xargs grep TODO)",
		"find . -name x -exec grep y {} +": "Bash(find . -name x -exec grep y '{}' +)",
		"sh -c 'go vet ./...'":             "Bash(sh -c 'go vet ./...')",
		"go test ./... > out":              "Bash(go test:*)",
		"'unterminated":                    "Bash",
		"":                                 "Bash",
	} {
		if got := Suggest("Bash", Subject{Command: cmd}, "/p"); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", cmd, got, want)
		}
		// The suggestion for one simple command allows it.
		if s, err := shell.Parse(cmd); err == nil {
			if _, simple := s.Simple(); simple {
				p, err := New(ModeAsk, []string{Suggest("Bash", Subject{Command: cmd}, "/p")}, nil, "/p", "")
				if err != nil {
					t.Fatal(err)
				}
				if d, _ := p.Check("Bash", ClassExec, Subject{Command: cmd}); d != Allow {
					t.Errorf("the suggestion for %q does not allow it", cmd)
				}
			}
		}
	}
}

func TestAlwaysRule(t *testing.T) {
	cases := []struct {
		tool, cmd, want string
		saved           bool
	}{
		// A prefix rule where the table knows the program (and subcommand) and every option.
		{"Bash", "echo one", "Bash(echo:*)", true},
		{"Bash", "echo two", "Bash(echo:*)", true},
		{"Bash", "git commit -m x", "Bash(git commit:*)", true},
		{"Bash", "go test ./...", "Bash(go test:*)", true},
		{"Bash", "ls -la", "Bash(ls:*)", true},
		{"Bash", "git log ./*", "Bash(git log:*)", true},
		{"Bash", "npm run build", "Bash(npm run:*)", true},
		{"Bash", "git status", "Bash(git status:*)", true},
		{"Bash", "git ls-remote .", "Bash(git ls-remote:*)", true},
		{"Bash", "grep -n x f", "Bash(grep:*)", true},
		{"Bash", "cat f", "Bash(cat:*)", true},
		{"Bash", "find . -name x", "Bash(find:*)", true}, // the table refuses -delete, -exec, -fprint
		{"Bash", "tar cf x.tar .", "Bash(tar:*)", true},  // and --checkpoint-action, -I, --to-command
		// Nothing: not one simple command, a glob that is not covered, or words a terminal
		// would not show as written (the rule is shown before it is chosen).
		{"Bash", "echo one > out.txt", "", false},
		{"Bash", "echo $(rm -rf x)", "", false},
		{"Bash", "echo one | sh", "", false},
		{"Bash", "curl x | bash", "", false},
		{"Bash", "echo one && rm x", "", false},
		{"Bash", "FOO=1 make", "", false},
		{"Bash", "'unterminated", "", false},
		{"Bash", "*.sh", "", false},
		{"Bash", "go test {-exec,./evil} ./...", "", false}, // a word that may be an option that runs
		{"Bash", "x\x1b[2Jy a", "", false},
		{"Bash", "\u202eohce x", "", false},
		{"Bash", "git \u200bcommit -m x", "", false},
		{"Bash", "ls\u00ad -l", "", false},
		{"Edit", "", "Edit", false},
		{"Write", "", "Edit", false},
		{"Read", "", "", false},
	}
	// The exact command, for a program the table does not know (a path, an interpreter, a
	// runner, a package runner), or with an option not on its program's known-safe list.
	for _, cmd := range []string{
		"/usr/bin/git status", "git -C dir status", "sh -c 'echo one'", "xargs rm", "sudo ls", "python3 x.py",
		"find . -exec rm '{}' +", "go run example.com/tool@latest", "poetry run pytest", "uv run pytest",
		"bundle exec rspec", "nix run 'nixpkgs#hello'", "docker compose run app", "bundle install",
		"go test -coverprofile=c.out ./...", "python3.12 x.py", "SH -c x", "Python.exe x.py", "awk '{print}' f",
		"busybox ls", "ssh host ls", "flock f ls", "ionice ls", "taskset 1 ls", "strace ls", "gdb -ex r ls",
		"chroot / ls", "unshare ls", "java -jar x", "irb", "uvx tool", "vim f", "sed -n 1p f", "npx x",
		"npm exec x", "docker exec c ls", "git log --output=f", "sort -o f in", "kubectl exec p -- ls",
		"python3 -m http.server", "git config user.name x", "git submodule foreach ls", "git difftool -x sh",
		"prlimit --nofile=10 ls", "setarch x86_64 ls", "/lib64/ld-linux-x86-64.so.2 /bin/ls", "ex -c q f",
		"git ls-remote --upload-pack=x .", "go vet --vettool=x ./...", "scp -o ProxyCommand=x a b:",
		"curl -K cfg https://x", "make --eval=x all", "git grep -O x foo",
	} {
		cases = append(cases, struct {
			tool, cmd, want string
			saved           bool
		}{"Bash", cmd, "Bash(" + cmd + ")", true})
	}
	for _, c := range cases {
		got, saved := AlwaysRule(c.tool, c.cmd)
		if got != c.want || saved != c.saved {
			t.Errorf("AlwaysRule(%s, %q) = %q, %v; want %q, %v", c.tool, c.cmd, got, saved, c.want, c.saved)
		}
		if got == "" || c.tool != "Bash" {
			continue
		}
		// The rule allows the command it came from, through the one matcher.
		p, err := New(ModeAsk, []string{got}, nil, "/p", "")
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := p.Check("Bash", ClassExec, Subject{Command: c.cmd}); d != Allow {
			t.Errorf("%s does not allow %q", got, c.cmd)
		}
		if d, _ := p.Check("Bash", ClassExec, Subject{Command: c.cmd + " > /etc/x"}); d == Allow {
			t.Errorf("%s allows %q with a redirection", got, c.cmd)
		}
	}
}

// A yes with "don't ask again" to a read outside the project allows reads in that directory
// for the session, and the rule it offers matches the call asked about (a directory name that
// looks like a glob is escaped), but not the directory next to it.
func TestReadAlways(t *testing.T) {
	for _, tt := range []struct {
		tool, path, want string
		matches, not     string
	}{
		{"Read", "/home/u/notes/a.md", "Read(/home/u/notes/**)", "/home/u/notes/b/c.md", "/home/u/notes2/a.md"},
		{"Grep", "/home/u/notes", "Read(/home/u/notes/**)", "/home/u/notes/x", "/home/u/other"},
		{"Glob", "/srv/[a]{b}", `Read(/srv/\[a\]\{b\}/**)`, "/srv/[a]{b}/x", "/srv/a/x"},
		{"Read", "/etc", "", "", ""},
		{"Edit", "/home/u/notes/a.md", "", "", ""},
	} {
		got := ReadAlways(tt.tool, Subject{Path: tt.path})
		if got != tt.want {
			t.Errorf("ReadAlways(%s, %s) = %q, want %q", tt.tool, tt.path, got, tt.want)
		}
		if got == "" {
			continue
		}
		p, err := New(ModeAsk, []string{got}, nil, "/p", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]Decision{tt.path: Allow, tt.matches: Allow, tt.not: AskUser} {
			if d, _ := p.Check("Read", ClassRead, Subject{Path: path}); d != want {
				t.Errorf("with %s, Read of %s = %v, want %v", got, path, d, want)
			}
		}
	}
}
