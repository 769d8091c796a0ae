package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/shell"
	"github.com/strata-mem/strata/llm/llmtest"
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
	p, err := NewPermissions(ModeAsk, []string{"Bash(go test:*)", "Edit(src/**)", "Bash(make)"}, []string{"Bash(go test ./secret:*)", "Read(.env)"}, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		c    class
		s    subject
		want Decision
	}{
		{"Bash", classExec, subject{command: "go test ./..."}, Allow},
		{"Bash", classExec, subject{command: "go test"}, Allow},
		{"Bash", classExec, subject{command: "go testing"}, AskUser},
		{"Bash", classExec, subject{command: "go test ./... && rm -rf /"}, AskUser},
		{"Bash", classExec, subject{command: "go test ./secret/x"}, Deny},
		{"Bash", classExec, subject{command: "make"}, Allow},
		{"Bash", classExec, subject{command: "go test ./x; go test ./secret/y"}, Deny},
		{"Bash", classExec, subject{command: "make all"}, AskUser},
		{"Edit", classEdit, subject{path: "/p/src/a/b.go"}, Allow},
		{"Write", classEdit, subject{path: "/p/src/new.go"}, Allow},
		{"Edit", classEdit, subject{path: "/p/main.go"}, AskUser},
		{"Read", classRead, subject{path: "/p/main.go"}, Allow},
		{"Read", classRead, subject{path: "/p/.env"}, Deny},
		{"Grep", classRead, subject{path: "/p/.env"}, Deny},
		{"memory_save", classMemory, subject{}, Allow},
		{"TodoWrite", classState, subject{}, Allow},
	}
	for _, tt := range tests {
		if got, _ := p.check(tt.tool, tt.c, tt.s); got != tt.want {
			t.Errorf("%s %+v = %v, want %v", tt.tool, tt.s, got, tt.want)
		}
	}
	for mode, want := range map[Mode][2]Decision{ModeAsk: {AskUser, AskUser}, ModeAcceptEdits: {Allow, AskUser}, ModeBypass: {Allow, Allow}} {
		p := &Permissions{Mode: mode, Cwd: "/p"}
		e, _ := p.check("Edit", classEdit, subject{path: "/p/x"})
		b, _ := p.check("Bash", classExec, subject{command: "ls"})
		if [2]Decision{e, b} != want {
			t.Errorf("mode %s: edit %v, bash %v; want %v", mode, e, b, want)
		}
	}
	// Deny wins even in bypass mode.
	p.Mode = ModeBypass
	if d, _ := p.check("Read", classRead, subject{path: "/p/.env"}); d != Deny {
		t.Errorf("bypass overrode a deny rule")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAsk, "default": ModeAsk, "acceptEdits": ModeAcceptEdits, "accept-edits": ModeAcceptEdits, "bypass": ModeBypass, "bypassPermissions": ModeBypass} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Errorf("unknown mode accepted")
	}
}

func TestNonInteractiveDenialsReachTheModel(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("src/a.txt", "a\n")
	f.write("b.txt", "b\n")
	f.srv.Script(
		llmtest.Blocks(
			llmtest.ToolUse("t1", "Bash", `{"command":"echo hi"}`),
			llmtest.ToolUse("t2", "Bash", `{"command":"rm -rf build"}`),
			llmtest.ToolUse("t3", "Read", `{"file_path":"src/a.txt"}`),
			llmtest.ToolUse("t4", "Edit", `{"file_path":"src/a.txt","old_string":"a","new_string":"A"}`),
			llmtest.ToolUse("t5", "Write", `{"file_path":"b.txt","content":"B"}`),
		),
		llmtest.Text("done"),
	)
	settings := &config.Settings{Permissions: config.Permissions{Allow: []string{"Edit(src/**)"}, Deny: []string{"Bash(rm:*)"}}}
	a := f.agent(Options{Settings: settings, Allow: []string{"Bash(echo:*)"}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	checks := []string{"hi\n", `denied by the permission rule "Bash(rm:*)"`, "     1\ta", "Edited", "--allow 'Edit(b.txt)'"}
	for i, want := range checks {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want it to contain %q", i+1, at(got, i), want)
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

func TestApproverIsAskedInAskMode(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo yes"}`), llmtest.ToolUse("t2", "Bash", `{"command":"echo no"}`)),
		llmtest.Text("done"),
	)
	var asked []string
	approver := func(_ context.Context, r PermissionRequest) (Answer, error) {
		var in struct{ Command string }
		json.Unmarshal(r.Input, &in)
		asked = append(asked, r.Summary+" | "+r.Suggest)
		return Answer{Allow: in.Command == "echo yes"}, nil
	}
	a := f.agent(Options{Approver: approver})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "Bash(echo:*)") {
		t.Errorf("asked = %q", asked)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != 2 || got[0] != "yes\n" || !strings.Contains(got[1], "the user declined") {
		t.Errorf("results = %q", got)
	}
}

// TestBashAllowCoversOnlyTheCommand: an allow prefix matches a command only when the whole
// command does nothing beyond it (the issue: with only Bash(go test:*), "go test ./... > FILE"
// ran without asking).
func TestBashAllowCoversOnlyTheCommand(t *testing.T) {
	p, err := NewPermissions(ModeAsk, []string{"Bash(go test:*)", "Bash(make)", "Bash(find:*)", "Bash(xargs grep:*)", "Bash(sh -c 'go vet':*)", "Bash(git log:*)", "Bash(sort:*)", "Bash(curl -o out.json:*)", "Bash(printf:*)", "Bash(test:*)"}, nil, "/p", "/home/u")
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
		if got, _ := p.check("Bash", classExec, subject{command: tt.cmd}); got != tt.want {
			t.Errorf("%q = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

// TestBashDenyMatchesEveryCommand: a deny prefix matches any simple command anywhere in the
// whole command; when the command cannot be read it falls back to matching text pieces.
func TestBashDenyMatchesEveryCommand(t *testing.T) {
	p, err := NewPermissions(ModeBypass, nil, []string{"Bash(rm:*)", "Bash(git push)"}, "/p", "/home/u")
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
		if got, _ := p.check("Bash", classExec, subject{command: tt.cmd}); got != tt.want {
			t.Errorf("%q = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	// A rule the analyser cannot read matches as text, as before.
	q, err := NewPermissions(ModeBypass, nil, []string{"Bash(echo 'x:*)"}, "/p", "")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := q.check("Bash", classExec, subject{command: "ls; echo 'x y'"}); d != Deny {
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
		if got := suggest("Bash", subject{command: cmd}, "/p"); got != want {
			t.Errorf("suggest(%q) = %q, want %q", cmd, got, want)
		}
		// The suggestion for one simple command allows it.
		if s, err := shell.Parse(cmd); err == nil {
			if _, simple := s.Simple(); simple {
				p, err := NewPermissions(ModeAsk, []string{suggest("Bash", subject{command: cmd}, "/p")}, nil, "/p", "")
				if err != nil {
					t.Fatal(err)
				}
				if d, _ := p.check("Bash", classExec, subject{command: cmd}); d != Allow {
					t.Errorf("the suggestion for %q does not allow it", cmd)
				}
			}
		}
	}
}

// TestAllowPrefixEndToEnd drives the agent through the fake model server: with only
// Bash(echo:*) and Bash(find:*) allowed, every command that does more than echo or find is
// refused (the session cannot ask), and none of them creates its file.
func TestAllowPrefixEndToEnd(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("in.txt", "in\n")
	cmds := []string{
		"echo x > out1",
		"echo x >> out2",
		"echo x 2> out3",
		"echo x &> out4",
		"echo x >| out5",
		"echo x <> out6",
		"echo x <(touch out7)",
		"echo x >(touch out8)",
		"echo x; touch out9",
		"echo x && touch out10",
		"false || touch out11",
		"echo x | tee out12",
		"echo x & touch out13",
		"echo x\ntouch out14",
		"echo $(touch out15)",
		"echo `touch out16`",
		"echo ${x:-$(touch out17)}",
		"(echo x; touch out18)",
		"{ echo x; touch out19; }",
		"find . -maxdepth 0 -exec touch out20 \\;",
		"echo x 2>&1 >out21",
		"echo x <<EOF > out22\nx\nEOF",
		"echo x <<< x > out23",
		"echo x < in.txt",
		"echo $HOME",
	}
	var uses []conversation.Block
	for i, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		uses = append(uses, llmtest.ToolUse("t"+strconv.Itoa(i), "Bash", string(in)))
	}
	uses = append(uses, llmtest.ToolUse("ok", "Bash", `{"command":"echo ok"}`))
	f.srv.Script(llmtest.Blocks(uses...), llmtest.Text("done"))
	a := f.agent(Options{Allow: []string{"Bash(echo:*)", "Bash(find:*)", "Bash(false:*)"}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != len(cmds)+1 {
		t.Fatalf("%d results for %d calls", len(got), len(cmds)+1)
	}
	for i, c := range cmds {
		if !strings.Contains(got[i], "needs the user's approval") {
			t.Errorf("%q ran without asking: %q", c, got[i])
		}
	}
	if got[len(cmds)] != "ok\n" {
		t.Errorf("the allowed command: %q", got[len(cmds)])
	}
	for i := 1; i <= 23; i++ {
		if _, err := os.Stat(filepath.Join(f.dir, "out"+strconv.Itoa(i))); err == nil {
			t.Errorf("out%d was created", i)
		}
	}
}

// TestDenyEverywhereEndToEnd: in bypass mode a deny rule stops the command it names wherever
// it stands in the command the model sends.
func TestDenyEverywhereEndToEnd(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	cmds := []string{
		"echo x; touch d1",
		"echo $(touch d2)",
		"echo `touch d3`",
		"sh -c 'touch d4'",
		"env FOO=1 touch d5",
		`\touch d6`,
		"find . -maxdepth 0 -exec touch d7 \\;",
		"echo x | xargs touch d8",
		"(touch d9)",
		"cat <(touch d10)",
		"command touch d11",
		"/usr/bin/env touch d12",
	}
	var uses []conversation.Block
	for i, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		uses = append(uses, llmtest.ToolUse("t"+strconv.Itoa(i), "Bash", string(in)))
	}
	uses = append(uses, llmtest.ToolUse("ok", "Bash", `{"command":"touch ok; echo made"}`))
	f.srv.Script(llmtest.Blocks(uses...), llmtest.Text("done"))
	a := f.agent(Options{Mode: ModeBypass, Deny: []string{"Bash(touch d:*)"}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != len(cmds)+1 {
		t.Fatalf("%d results for %d calls", len(got), len(cmds)+1)
	}
	for i, c := range cmds {
		if !strings.Contains(got[i], `denied by the permission rule "Bash(touch d:*)"`) {
			t.Errorf("%q was not denied: %q", c, got[i])
		}
	}
	if got[len(cmds)] != "made\n" {
		t.Errorf("the command the rule does not name: %q", got[len(cmds)])
	}
	for i := 1; i <= len(cmds); i++ {
		if _, err := os.Stat(filepath.Join(f.dir, "d"+strconv.Itoa(i))); err == nil {
			t.Errorf("d%d was created", i)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "ok")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}
