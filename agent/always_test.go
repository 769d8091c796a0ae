package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
)

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
		p, err := NewPermissions(ModeAsk, []string{got}, nil, "/p", "")
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := p.check("Bash", classExec, subject{command: c.cmd}); d != Allow {
			t.Errorf("%s does not allow %q", got, c.cmd)
		}
		if d, _ := p.check("Bash", classExec, subject{command: c.cmd + " > /etc/x"}); d == Allow {
			t.Errorf("%s allows %q with a redirection", got, c.cmd)
		}
	}
}

// TestDontAskAgain: "yes, don't ask again" for "echo one" allows "echo two" in the same
// session without asking, is saved to the project's settings.local.json (merged, other keys
// kept) and to the user's approvals, and holds in the next session; a clone's unapproved
// local rule does not. "No, and tell the model" sends the user's words back.
func TestDontAskAgain(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	local := config.LocalSettingsPath(f.dir)
	f.write(".claude/settings.local.json", "{\n  \"model\": \"kept\"\n}\n")
	var asked []PermissionRequest
	approver := func(_ context.Context, r PermissionRequest) (Answer, error) {
		asked = append(asked, r)
		if strings.Contains(r.Summary, "rm") {
			return Answer{Feedback: "use git clean instead"}, nil
		}
		return Answer{Allow: true, Always: true}, nil
	}
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo one"}`)),
		llmtest.Blocks(llmtest.ToolUse("t2", "Bash", `{"command":"echo two"}`)),
		llmtest.Blocks(llmtest.ToolUse("t3", "Bash", `{"command":"rm -r build"}`)),
		llmtest.Text("done"),
	)
	// Settings read from the files (nil Settings would use the fixture's empty ones).
	open := func() *Agent {
		ws := f.env
		a, err := New(context.Background(), Options{Provider: f.prov, Cwd: f.dir, Env: ws, Approver: approver, NoBackground: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(context.Background()) })
		return a
	}
	a := open()
	if _, err := a.Run(t.Context(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0].Always != "Bash(echo:*)" || !asked[0].AlwaysSaved {
		t.Fatalf("asked %+v; want echo one (offering Bash(echo:*)) and rm, not echo two", asked)
	}
	results := toolResults(f.srv.Requests()[3])
	if len(results) != 1 || !strings.Contains(results[0], "use git clean instead") {
		t.Errorf("the declined call's result = %q, want the user's words", results)
	}
	data, _ := os.ReadFile(local)
	var v struct {
		Model       string
		Permissions struct{ Allow []string }
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Model != "kept" || len(v.Permissions.Allow) != 1 || v.Permissions.Allow[0] != "Bash(echo:*)" {
		t.Errorf("settings.local.json = %s (%v)", data, err)
	}
	if got, _ := f.env.Approvals(f.dir); len(got) != 1 || got[0] != "Bash(echo:*)" {
		t.Errorf("approvals = %q", got)
	}
	a.Close(t.Context())

	// The next session: echo three runs without asking.
	asked = nil
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t4", "Bash", `{"command":"echo three"}`)), llmtest.Text("done"))
	b := open()
	if _, err := b.Run(t.Context(), "again", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 0 {
		t.Errorf("the next session asked about %+v", asked)
	}

	// Without the user's approval, the same local rule (a clone's) allows nothing.
	os.Remove(f.env.ApprovalsPath(f.dir))
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t5", "Bash", `{"command":"echo four"}`)), llmtest.Text("done"))
	c := open()
	if _, err := c.Run(t.Context(), "once more", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 {
		t.Errorf("an unapproved local rule was honoured (asked %d times)", len(asked))
	}
}

// TestEditDontAskAgain: "don't ask again" for an edit allows every edit for the rest of the
// session, and saves nothing.
func TestEditDontAskAgain(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	n := 0
	approver := func(_ context.Context, r PermissionRequest) (Answer, error) {
		n++
		if r.Always != "Edit" || r.AlwaysSaved {
			t.Errorf("edit request offers %q (saved %v)", r.Always, r.AlwaysSaved)
		}
		return Answer{Allow: true, Always: true}, nil
	}
	a := f.agent(Options{Approver: approver})
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`)),
		llmtest.Blocks(llmtest.ToolUse("w2", "Write", `{"file_path":"sub/b.txt","content":"b"}`)),
		llmtest.Text("done"),
	)
	if _, err := a.Run(t.Context(), "write", nil); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "sub", "b.txt")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(config.LocalSettingsPath(f.dir)); err == nil {
		t.Error("an edit allowance was saved")
	}
}
