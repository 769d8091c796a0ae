package agent

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/sandbox"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/toolcall"
	"github.com/strata-mem/strata/workspace"
)

// needSandbox skips where shell commands cannot be confined, saying why.
func needSandbox(t *testing.T, namespaces bool) {
	t.Helper()
	st := sandbox.Probe()
	if !st.Active() {
		t.Skipf("sandbox not active here: %s", st.Why())
	}
	if namespaces && !st.Namespaces {
		t.Skipf("no namespaces here: %s", st.NamespacesWhy)
	}
}

// bash runs command in e and returns its output and error text together.
func bash(t *testing.T, e tool.Env, command string) string {
	t.Helper()
	out, err := bashTool().Run(t.Context(), e, &toolcall.Bash{Command: command})
	if err != nil {
		out += err.Error()
	}
	return out
}

// bashTool is the Bash tool.
func bashTool() *tool.Tool {
	for _, t := range tool.Set(false) {
		if t.Name == "Bash" {
			return t
		}
	}
	panic("no Bash tool")
}

// loopback starts a TCP listener on loopback that accepts and closes, and returns its port.
func loopback(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// A background fork's commands (the memory extractor's) run where the kernel lets them write
// the memory dir and nothing else, connect nowhere, and see no secrets — whatever its shell
// policy let through. Issue 26's extractor escapes are run here as commands, past the policy.
func TestForkCommandsConfinedByTheKernel(t *testing.T) {
	needSandbox(t, false)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-test-secret")
	project, mem := t.TempDir(), t.TempDir()
	fe := tool.NewForkEnv(project, "", slog.New(slog.DiscardHandler), time.Now, time.Minute, nil, nil, mem)
	if _, err := exec.LookPath("git"); err == nil {
		gitIn(t, project, "init", "-q")
		gitIn(t, project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "one")
	}
	x := filepath.Join(project, "X")
	out := bash(t, fe, "echo . -maxdepth 0 -exec touch "+x+" ';' | xargs find")
	if _, err := os.Stat(x); err == nil || !strings.Contains(out, "Permission denied") {
		t.Errorf("xargs find -exec touch: X exists %v, output %q; want the kernel's refusal", err == nil, out)
	}
	if out := bash(t, fe, "printf -- '--output="+x+"' | xargs git log -1"); fileExists(x) {
		t.Errorf("git log --output through xargs wrote %s: %q", x, out)
	}
	if out := bash(t, fe, "echo note > "+filepath.Join(mem, "n.md")+" && cat "+filepath.Join(mem, "n.md")); out != "note\n" {
		t.Errorf("write in the memory dir: %q", out)
	}
	if sandbox.Probe().Namespaces { // a team store's clone: its hooks stay out of reach
		os.MkdirAll(filepath.Join(mem, ".git", "hooks"), 0o700)
		hook := filepath.Join(mem, ".git", "hooks", "post-merge")
		if out := bash(t, fe, "echo 'touch /tmp/x' > "+hook); fileExists(hook) || !strings.Contains(out, "Read-only file system") {
			t.Errorf("a fork wrote the memory dir's git hook: %q", out)
		}
	}
	if out := bash(t, fe, `echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"`); out != "tmp\n" {
		t.Errorf("write in the private temp dir: %q", out)
	}
	port := loopback(t)
	if out := bash(t, fe, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo connected"); !strings.Contains(out, "Permission denied") {
		t.Errorf("connect to loopback: %q; want the kernel's refusal", out)
	}
	if out := bash(t, fe, "env"); strings.Contains(out, "secret") || !strings.Contains(out, "PATH=") {
		t.Errorf("the environment is not scrubbed:\n%s", out)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The Bash tool in workspace-write mode: the project is writable, its .git and .claude and
// STRATA_HOME are not, the kernel refusing; ordinary commands work; sandbox "off" gives the
// old, unconfined shell.
func TestBashWorkspaceWrite(t *testing.T) {
	needSandbox(t, true)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
	f := newFixture(t, llmtest.Anthropic)
	gitConfig := f.write(".git/config", "[core]\n")
	hook := filepath.Join(f.dir, ".git", "hooks", "pre-commit")
	settings := f.write(".claude/settings.json", "{}\n")
	userSettings := filepath.Join(f.env.Home, "settings.json")
	if err := os.MkdirAll(f.env.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(userSettings, []byte("{}\n"), 0o600)
	network := false
	a := f.agent(Options{Open: workspace.Options{Settings: &config.Settings{SandboxNetwork: &network}}})
	e := sessionEnv{a}

	for _, c := range []struct{ command, file string }{
		{"echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config", gitConfig},
		{"mkdir -p .git/hooks; echo 'touch /tmp/pwned' > .git/hooks/pre-commit", hook},
		{`echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > .claude/settings.json`, settings},
		{`echo '{}' > .claude/settings.local.json`, filepath.Join(f.dir, ".claude", "settings.local.json")},
		{"echo '{}' > " + userSettings, userSettings},
	} {
		before, _ := os.ReadFile(c.file)
		out := bash(t, e, c.command)
		after, _ := os.ReadFile(c.file)
		if string(after) != string(before) {
			t.Errorf("%s: changed %s to %q", c.command, c.file, after)
		}
		if !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "Permission denied") {
			t.Errorf("%s: output %q does not show the kernel's refusal", c.command, out)
		}
	}
	port := loopback(t)
	if out := bash(t, e, "exec 3<>/dev/tcp/127.0.0.1/"+port+" && echo connected"); !strings.Contains(out, "Permission denied") {
		t.Errorf("connect with sandboxNetwork false: %q", out)
	}
	if out := bash(t, e, "env"); strings.Contains(out, "sk-ant-test-secret") {
		t.Errorf("the API key is in the environment:\n%s", out)
	}
	if out := bash(t, e, "mkdir -p src && echo hi > src/a.txt && cat src/a.txt | tr a-z A-Z && echo t > /tmp/strata-sandbox-$$ && rm /tmp/strata-sandbox-$$"); out != "HI\n" {
		t.Errorf("ordinary commands in the project: %q", out)
	}

	off := f.agent(Options{Open: workspace.Options{Settings: &config.Settings{Sandbox: config.SandboxOff}}})
	if out := bash(t, sessionEnv{off}, "echo '# ok' >> .git/config"); out != "(no output)" {
		t.Errorf("sandbox off: %q", out)
	}
}

// A tree whose .git is a file pointing at a git directory inside it ("gitdir: ./.bare", a bare
// repository beside its worktree): a write there always asks, as under .git, and under
// workspace-write the shell cannot write it.
func TestPointedGitDirOutOfReach(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	config := f.write(".bare/config", "[core]\n")
	os.RemoveAll(filepath.Join(f.dir, ".git"))
	f.write(".git", "gitdir: ./.bare\n")
	a := f.agent(Options{})
	a.SetPermissionMode(permission.ModeAcceptEdits)
	for _, name := range []string{".bare/hooks/pre-commit", ".bare/config"} {
		p := filepath.Join(f.dir, name)
		if d, why := a.perms.Check("Write", permission.ClassEdit, permission.Subject{Path: p, Real: p}); d != permission.AskUser || !strings.Contains(why, "git") {
			t.Errorf("Write %s in accept-edits: %v (%q), want a question about git", name, d, why)
		}
	}
	if p := filepath.Join(f.dir, "src", "a.go"); func() bool {
		d, _ := a.perms.Check("Write", permission.ClassEdit, permission.Subject{Path: p, Real: p})
		return d != permission.Allow
	}() {
		t.Error("a write beside it asks too")
	}
	needSandbox(t, true)
	out := bash(t, sessionEnv{a}, "echo '[core] fsmonitor = touch /tmp/pwned' >> .bare/config")
	if b, _ := os.ReadFile(config); string(b) != "[core]\n" || !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "Permission denied") {
		t.Errorf("the shell wrote .bare/config (%q): %q", b, out)
	}
}

// Issue 26's commands that ran a program through an allow rule or past a deny rule, each
// given a payload that plants a git hook: unconfined the hook appears (the payload works);
// under workspace-write the kernel refuses it. (The temp dirs are writable there, so a
// payload writing /tmp would prove nothing; the hook is the target.)
func TestIssue26CommandsCannotPlantHooks(t *testing.T) {
	needSandbox(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	loader, _ := filepath.Glob("/lib*/ld-linux*.so.2")
	type escape struct{ name, needs, command string }
	cases := []escape{
		{"git ls-remote --upload-pack", "git", "git ls-remote --upload-pack='touch .git/hooks/HOOK; false' . ; true"},
		{"git grep -O", "git", "git grep -O'touch .git/hooks/HOOK #' -e needle ; true"},
		{"tar --checkpoint-action", "tar", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='touch .git/hooks/HOOK' a.txt"},
		{"sed e", "sed", "sed -n '1e touch .git/hooks/HOOK' a.txt"},
		{"make --eval", "make", "make --eval='x:;@touch .git/hooks/HOOK' x"},
		{"prlimit", "prlimit", "prlimit touch .git/hooks/HOOK"},
		{"setarch", "setarch", "setarch $(uname -m) touch .git/hooks/HOOK"},
		{"base64 -d | sh", "base64", "echo B64 | base64 -d | sh"},
		{"ex -c !", "ex", "ex -s -c '!touch .git/hooks/HOOK' -c q a.txt </dev/null"},
		{"git -c core.fsmonitor", "git", "git -c core.fsmonitor='touch .git/hooks/HOOK; false' status ; true"},
		{"curl -K", "curl", "printf 'output = .git/hooks/HOOK\\nurl = file:///etc/hostname\\n' > k.cfg && curl -s -K k.cfg"},
	}
	if len(loader) > 0 {
		cases = append(cases, escape{"dynamic loader", "touch", loader[0] + " $(command -v touch) .git/hooks/HOOK"})
	}
	f := newFixture(t, llmtest.Anthropic)
	gitIn(t, f.dir, "init", "-q")
	f.write("a.txt", "needle\n")
	gitIn(t, f.dir, "add", "a.txt")
	hooks := filepath.Join(f.dir, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	boxed := sessionEnv{f.agent(Options{})}
	open := sessionEnv{f.agent(Options{Open: workspace.Options{Settings: &config.Settings{Sandbox: config.SandboxOff}}})}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.needs); err != nil {
				t.Skipf("%s is not installed", c.needs)
			}
			name := fmt.Sprintf("pwned%d", i)
			command := strings.ReplaceAll(c.command, "HOOK", name)
			command = strings.ReplaceAll(command, "B64", base64.StdEncoding.EncodeToString([]byte("touch .git/hooks/"+name)))
			hook := filepath.Join(hooks, name)
			out := bash(t, boxed, command)
			if fileExists(hook) {
				t.Fatalf("sandboxed %q planted a hook: %q", command, out)
			}
			if out := bash(t, open, command); !fileExists(hook) {
				t.Skipf("the payload does not work unconfined here either: %q", out)
			}
		})
	}
}
