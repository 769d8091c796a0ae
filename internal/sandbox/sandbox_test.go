package sandbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strata-mem/strata/internal/sandbox"
)

// tryVar makes the test binary, run as a confined command, attempt one operation and print
// the kernel's answer instead of running tests.
const tryVar = "STRATA_SANDBOX_TRY"

func TestMain(m *testing.M) {
	sandbox.Main()
	if op := os.Getenv(tryVar); op != "" {
		fmt.Print(try(op))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// try does op ("create PATH", "append PATH", "umount PATH", "connect ADDR", "env NAME") and returns "ok" or
// the errno's number and text.
func try(op string) string {
	verb, arg, _ := strings.Cut(op, " ")
	var err error
	switch verb {
	case "create":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	case "append":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_APPEND|os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	case "connect":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "umount":
		err = unmount(arg)
	case "env":
		if v, ok := os.LookupEnv(arg); ok {
			return "set: " + v
		}
		return "unset"
	default:
		return "unknown op " + verb
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("errno %d: %v", int(errno), errno)
	}
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// need skips the test where commands cannot be confined, saying why.
func need(t *testing.T) sandbox.Status {
	t.Helper()
	st := sandbox.Probe()
	if !st.Active() {
		t.Skipf("sandbox not active here: %s", st.Why())
	}
	return st
}

// confined runs the test binary confined by p with op and returns what it printed.
func confined(t *testing.T, p sandbox.Policy, op string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p.Env = append(p.Env, tryVar+"="+op)
	cmd, err := sandbox.Command(t.Context(), p, self)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", op, err, out.String())
	}
	return out.String()
}

func refusedBy(errno syscall.Errno) string { return fmt.Sprintf("errno %d: %v", int(errno), errno) }

func TestWritesOnlyWhereAllowed(t *testing.T) {
	need(t)
	allowed, outside := t.TempDir(), t.TempDir()
	p := sandbox.Policy{Write: []string{allowed}}
	if got := confined(t, p, "create "+filepath.Join(allowed, "x")); got != "ok" {
		t.Errorf("create in the writable dir: %s", got)
	}
	target := filepath.Join(outside, "x")
	if got, want := confined(t, p, "create "+target), refusedBy(syscall.EACCES); got != want {
		t.Errorf("create outside: got %q, want %q", got, want)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists after a refused create: %v", target, err)
	}
	os.WriteFile(target, []byte("kept\n"), 0o600)
	if got, want := confined(t, p, "append "+target), refusedBy(syscall.EACCES); got != want {
		t.Errorf("append outside: got %q, want %q", got, want)
	}
}

// TestExtractorXargsFind is issue 26's extractor escape: find run through xargs, with the
// -exec that xargs reads from stdin, cannot create a file outside the writable dir. A real
// shell runs it; the kernel refuses touch.
func TestExtractorXargsFind(t *testing.T) {
	need(t)
	mem, project := t.TempDir(), t.TempDir()
	x := filepath.Join(project, "X")
	cmd, err := sandbox.Command(t.Context(), sandbox.Policy{Write: []string{mem}, Env: sandbox.MinimalEnv(os.Environ())},
		"sh", "-c", "echo . -maxdepth 0 -exec touch "+x+" ';' | xargs find")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = project
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat(x); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("touch through xargs find created %s (output %q)", x, out)
	}
	if !strings.Contains(string(out), "Permission denied") {
		t.Errorf("output does not show the kernel's refusal: %q", out)
	}
}

func TestReadOnlyInsideWritable(t *testing.T) {
	st := need(t)
	if !st.Namespaces {
		t.Skipf("no namespaces here: %s", st.NamespacesWhy)
	}
	project, home := t.TempDir(), t.TempDir()
	for _, d := range []string{".git/hooks", ".claude"} {
		os.MkdirAll(filepath.Join(project, d), 0o755)
	}
	for _, f := range []string{".git/config", ".claude/settings.json", "main.go"} {
		os.WriteFile(filepath.Join(project, f), []byte("x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(home, "settings.json"), []byte("{}\n"), 0o644)
	p := sandbox.Policy{Write: []string{project, home},
		ReadOnly: []string{filepath.Join(project, ".git"), filepath.Join(project, ".claude"), home}}
	erofs := refusedBy(syscall.EROFS)
	for _, op := range []string{
		"append " + filepath.Join(project, ".git/config"),
		"create " + filepath.Join(project, ".git/hooks/pre-commit"),
		"append " + filepath.Join(project, ".claude/settings.json"),
		"create " + filepath.Join(project, ".claude/settings.local.json"),
		"append " + filepath.Join(home, "settings.json"),
	} {
		if got := confined(t, p, op); got != erofs {
			t.Errorf("%s: got %q, want %q", op, got, erofs)
		}
	}
	// The command cannot take the read-only mount away, even as root in its namespace.
	if got, want := confined(t, p, "umount "+filepath.Join(project, ".git")), refusedBy(syscall.EPERM); got != want {
		t.Errorf("umount .git: got %q, want %q", got, want)
	}
	if got := confined(t, p, "append "+filepath.Join(project, "main.go")); got != "ok" {
		t.Errorf("write in the project: %s", got)
	}
}

func TestNetworkOff(t *testing.T) {
	st := need(t)
	if st.ABI < 4 {
		t.Skipf("Landlock ABI %d has no network rules (4 needed)", st.ABI)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	if got, want := confined(t, sandbox.Policy{}, "connect "+addr), refusedBy(syscall.EACCES); got != want {
		t.Errorf("network off: got %q, want %q", got, want)
	}
	if got := confined(t, sandbox.Policy{Network: true}, "connect "+addr); got != "ok" {
		t.Errorf("network on: %s", got)
	}
}

func TestEnvScrubbed(t *testing.T) {
	need(t)
	environ := append(os.Environ(), "ANTHROPIC_API_KEY=sk-test", "GITHUB_TOKEN=ghp-test", "PATH=/usr/bin:/bin")
	for name, env := range map[string][]string{"minimal": sandbox.MinimalEnv(environ), "scrubbed": sandbox.ScrubEnv(environ)} {
		for _, v := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN"} {
			if got := confined(t, sandbox.Policy{Env: env}, "env "+v); got != "unset" {
				t.Errorf("%s env: %s is %s", name, v, got)
			}
		}
		if got := confined(t, sandbox.Policy{Env: env}, "env PATH"); got != "set: /usr/bin:/bin" {
			t.Errorf("%s env: PATH is %s", name, got)
		}
	}
}

func TestSecret(t *testing.T) {
	for name, want := range map[string]bool{"ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"PGPASSWORD": false, "SSH_AUTH_SOCK": false, "DBUS_SESSION_BUS_ADDRESS": false, "DB_PASSWORD": true, "npm_config__auth": true, "PATH": false, "HOME": false, "KEYBOARD": false, "GOFLAGS": false, "TERM": false} {
		if got := sandbox.Secret(name); got != want {
			t.Errorf("Secret(%q) = %v, want %v", name, got, want)
		}
	}
}

// BenchmarkCommand is the cost of confinement per command: `sh -c true` unconfined, under
// Landlock alone, and with the read-only mounts of a namespace too.
func BenchmarkCommand(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o700)
	run := func(b *testing.B, p *sandbox.Policy) {
		for b.Loop() {
			var cmd *exec.Cmd
			if p == nil {
				cmd = exec.Command("sh", "-c", "true")
			} else {
				var err error
				if cmd, err = sandbox.Command(b.Context(), *p, "sh", "-c", "true"); err != nil {
					b.Skip(err)
				}
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("unconfined", func(b *testing.B) { run(b, nil) })
	b.Run("landlock", func(b *testing.B) { run(b, &sandbox.Policy{Write: []string{dir}}) })
	b.Run("landlock+namespace", func(b *testing.B) {
		run(b, &sandbox.Policy{Write: []string{dir}, ReadOnly: []string{filepath.Join(dir, ".git")}})
	})
}
