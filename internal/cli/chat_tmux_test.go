package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm/llmtest"
)

// tmuxAndBinary skips t unless STRATA_TMUX_TEST is set and tmux is installed (why says what the
// test would do), and builds strata into a temporary directory: tmux's path, the directory and
// the binary's path.
func tmuxAndBinary(t *testing.T, why string) (tmux, dir, bin string) {
	t.Helper()
	if os.Getenv("STRATA_TMUX_TEST") == "" {
		t.Skip("set STRATA_TMUX_TEST=1 to " + why)
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "strata")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/strata").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return tmux, dir, bin
}

// TestChatUnderTmux drives a built strata binary's line mode in a real terminal (tmux, with
// TERM=dumb, which keeps the line mode; TestChatUIUnderTmux drives the UI) against a fake
// model: a streamed answer and the status line, a permission prompt answered with y, a
// stalled answer stopped with Ctrl-C, a message after it, and Ctrl-D to quit. It builds the
// binary, so it runs only with STRATA_TMUX_TEST=1.
func TestChatUnderTmux(t *testing.T) {
	tmux, dir, bin := tmuxAndBinary(t, "drive strata chat under tmux")
	project := filepath.Join(dir, "project")
	os.MkdirAll(project, 0o700)
	os.WriteFile(filepath.Join(project, "CLAUDE.md"), []byte("Be brief.\n"), 0o600)

	srv := llmtest.NewAnthropic(t)
	srv.Script(
		llmtest.Text("Hello from the fake model."),
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo tmux-ok"}`)),
		llmtest.Text("Done: tmux-ok"),
		llmtest.Text("This answer stalls right here and never ends").StallAfter(4),
		llmtest.Text("Back after the interrupt."),
	)
	sock := filepath.Join(dir, "tmux.sock")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	env := []string{"HOME=" + dir, "STRATA_HOME=" + filepath.Join(dir, ".strata"), "STRATA_MANAGED_DIR=" + filepath.Join(dir, "managed"),
		"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + llmtest.Key, "STRATA_PROVIDER=anthropic", "STRATA_MODEL=test-model",
		"STRATA_STALL_TIMEOUT=60s", "TERM=dumb", "STRATA_NO_BACKGROUND=1"}
	shell := "env -i PATH=" + os.Getenv("PATH") + " " + strings.Join(env, " ") + " " + bin + " chat"
	run("new-session", "-d", "-x", "120", "-y", "50", "-c", project, shell)
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })

	pane := func() string { return run("capture-pane", "-p", "-S", "-200") }
	waitFor := func(want string) {
		t.Helper()
		for range 300 {
			if strings.Contains(pane(), want) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("the terminal never showed %q; it shows:\n%s", want, pane())
	}
	waitFor("Type a message")
	run("send-keys", "-t", "0", "hello", "Enter")
	waitFor("Hello from the fake model.")
	waitFor("── test-model · context")
	run("send-keys", "-t", "0", "run the check", "Enter")
	waitFor(`Allow the command "echo tmux-ok"?`)
	run("send-keys", "-t", "0", "y", "Enter")
	waitFor("Done: tmux-ok")
	run("send-keys", "-t", "0", "say something long", "Enter")
	waitFor("This ans")
	run("send-keys", "-t", "0", "C-c")
	waitFor("[interrupted]")
	run("send-keys", "-t", "0", "go on", "Enter")
	waitFor("Back after the interrupt.")
	run("send-keys", "-t", "0", "C-d")
	for range 100 {
		if exec.Command(tmux, "-S", sock, "has-session").Run() != nil {
			break // the chat exited and the session closed
		}
		time.Sleep(100 * time.Millisecond)
	}
	if exec.Command(tmux, "-S", sock, "has-session").Run() == nil {
		t.Errorf("strata chat did not exit on Ctrl-D:\n%s", pane())
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d replies unused", n)
	}
}
