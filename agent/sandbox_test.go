package agent

import (
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
	"github.com/strata-mem/strata/toolcall"
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
func bash(t *testing.T, e env, command string) string {
	t.Helper()
	out, err := runBash(t.Context(), e, &toolcall.Bash{Command: command})
	if err != nil {
		out += err.Error()
	}
	return out
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
	fe := &forkEnv{dir: project, mem: mem, timeout: time.Minute}
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
	a := f.agent(Options{Settings: &config.Settings{SandboxNetwork: &network}})
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

	off := f.agent(Options{Settings: &config.Settings{Sandbox: config.SandboxOff}})
	if out := bash(t, sessionEnv{off}, "echo '# ok' >> .git/config"); out != "(no output)" {
		t.Errorf("sandbox off: %q", out)
	}
}
