package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestChatUIUnderTmux drives the built binary's terminal UI in tmux (160×50, xterm-256color)
// against a fake model, and reads the screen with its colours (capture-pane -e): rendered
// markdown, the input history, a bracketed paste of two lines sent as one message, tool calls
// with their diff, the permission dialog answered with single keys (and "don't ask again"
// honoured for a second command with the same prefix), the spinner while an answer stalls,
// Esc interrupting it, and a double Ctrl-C exiting with the summary. It runs with
// STRATA_TMUX_TEST=1; with STRATA_SCREENSHOTS=dir it also writes SVG screenshots there.
func TestChatUIUnderTmux(t *testing.T) {
	tmux, dir, bin := tmuxAndBinary(t, "drive strata chat's UI under tmux")
	project := filepath.Join(dir, "acme-api")
	os.MkdirAll(project, 0o700)
	os.WriteFile(filepath.Join(project, "CLAUDE.md"), []byte("Be brief.\n"), 0o600)
	os.WriteFile(filepath.Join(project, "config.go"), []byte("package acme\n\nconst Port = 8080\nconst Host = \"localhost\"\n"), 0o600)

	srv := llmtest.NewAnthropic(t)
	srv.Script(
		llmtest.Text("## Layout\n\nThe **acme-api** service keeps its entry point in `cmd/server`:\n\n"+
			"- `config.go` holds the *defaults*\n- handlers live in `internal/http`\n\n"+
			"```go\nfunc main() {\n\t// start the server\n\tlisten(\":8080\")\n}\n```\n").WithUsage(llm.Usage{InputTokens: 3900, OutputTokens: 84}),
		llmtest.Text("Got both lines.").WithUsage(llm.Usage{InputTokens: 120, CacheReadInputTokens: 3900, OutputTokens: 6}),
		llmtest.Blocks(llmtest.ToolUse("r1", "Read", `{"file_path":"config.go"}`)),
		llmtest.Blocks(llmtest.ToolUse("e1", "Edit", `{"file_path":"config.go","old_string":"const Port = 8080","new_string":"const Port = 9090"}`)),
		llmtest.Text("Changed the port to **9090**."),
		llmtest.Blocks(llmtest.ToolUse("b1", "Bash", `{"command":"echo one"}`)),
		llmtest.Blocks(llmtest.ToolUse("b2", "Bash", `{"command":"echo two"}`)),
		llmtest.Text("Both echoes ran."),
		llmtest.Text("never sent").StallAfter(0),
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
	home := filepath.Join(dir, ".strata")
	env := []string{"HOME=" + dir, "STRATA_HOME=" + home, "STRATA_MANAGED_DIR=" + filepath.Join(dir, "managed"),
		"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + llmtest.Key, "STRATA_PROVIDER=anthropic", "STRATA_MODEL=test-model",
		"STRATA_STALL_TIMEOUT=60s", "TERM=xterm-256color", "STRATA_NO_BACKGROUND=1", "LANG=C.UTF-8"}
	shell := "env -i PATH=" + os.Getenv("PATH") + " " + strings.Join(env, " ") + " " + bin + " chat; sleep 600" // the pane outlives the chat, to show its summary
	run("-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-c", project, shell)
	run("set-option", "-g", "default-terminal", "xterm-256color")
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })

	// screen is the pane with its colours; plain is the same without escape sequences.
	screen := func() string { return run("capture-pane", "-e", "-p", "-S", "-200") }
	sgr := regexp.MustCompile("\x1b\\[[0-9;:]*m")
	plain := func(s string) string { return sgr.ReplaceAllString(s, "") }
	waitFor := func(what string, ok func(colour, text string) bool) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			s := screen()
			if ok(s, plain(s)) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %s; it shows:\n%s", what, plain(s))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitText := func(want string) string {
		t.Helper()
		return waitFor(quoted(want), func(_, text string) bool { return strings.Contains(text, want) })
	}
	// settled waits for an answer that ends with want to be over and printed once: an answer
	// leaves the live frame a moment before its print reaches the scrollback.
	settled := func(want string) string {
		t.Helper()
		return waitFor(quoted(want)+" printed once and the turn over", func(_, text string) bool {
			return strings.Count(text, want) == 1 && !strings.Contains(text, "Working…")
		})
	}
	shots := os.Getenv("STRATA_SCREENSHOTS") // relative to the repository's root
	if shots != "" && !filepath.IsAbs(shots) {
		shots = filepath.Join("..", "..", shots)
	}
	shot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		svg := screenshotSVG(run("capture-pane", "-e", "-p"), 160)
		if err := os.WriteFile(filepath.Join(shots, name+".svg"), []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	waitText("enter send")
	// Markdown is rendered: no raw ** or ##, the heading and code coloured.
	run("send-keys", "-t", "0", "-l", "what is in this repo?")
	run("send-keys", "-t", "0", "Enter")
	// The answer is printed above the live frame, which is redrawn on the next tick: wait for
	// the frame that no longer streams it.
	s := waitFor(`the answer printed and the turn over`, func(_, text string) bool {
		return strings.Contains(text, "listen(") && !strings.Contains(text, "Working…")
	})
	text := plain(s)
	for _, raw := range []string{"**acme-api**", "## Layout", "`cmd/server`", "```"} {
		if strings.Contains(text, raw) {
			t.Errorf("markdown shown raw: %q on screen:\n%s", raw, text)
		}
	}
	if !strings.Contains(s, "\x1b[") || !regexp.MustCompile(`\x1b\[[0-9;]*m[^\x1b]*Layout`).MatchString(s) {
		t.Errorf("the heading has no colour escape:\n%q", s)
	}
	if !strings.Contains(text, "• config.go holds the defaults") {
		t.Errorf("the list is not rendered with bullets:\n%s", text)
	}
	waitText("── test-model · context")

	// ↑ recalls the last message into the input box (drawn inside its border).
	run("send-keys", "-t", "0", "Up")
	waitText("│ › what is in this repo?")
	run("send-keys", "-t", "0", "C-u")
	waitFor("the input cleared", func(_, text string) bool { return !strings.Contains(text, "│ › what is in this repo?") })

	// A bracketed paste of two lines is one message.
	run("set-buffer", "-b", "p", "first line\nsecond line")
	run("paste-buffer", "-p", "-b", "p", "-t", "0")
	waitText("│   second line")
	run("send-keys", "-t", "0", "Enter")
	settled("Got both lines.") // a paste sent as two messages would answer twice
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Prompt())
	if !strings.Contains(last, `first line\nsecond line`) {
		t.Errorf("the paste was not sent as one message; the last request's prompt:\n%s", last)
	}
	shot("chat-markdown")

	// A tool call line and its diff; the permission dialog answered with one key.
	run("send-keys", "-t", "0", "-l", "use port 9090")
	run("send-keys", "-t", "0", "Enter")
	waitText("Allow Edit on config.go?")
	run("send-keys", "-t", "0", "y")
	s = settled("Changed the port to")
	text = plain(s)
	for _, want := range []string{"⏺ Read config.go", "⏺ Edit config.go", "@@ -3,1 +3,1 @@", "-const Port = 8080", "+const Port = 9090"} {
		if !strings.Contains(text, want) {
			t.Errorf("screen lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`\x1b\[[0-9;]*32m[^\x1b]*\+const Port = 9090`).MatchString(s) {
		t.Errorf("the added line is not green:\n%q", s)
	}
	if b, _ := os.ReadFile(filepath.Join(project, "config.go")); !strings.Contains(string(b), "9090") {
		t.Errorf("the edit did not happen:\n%s", b)
	}
	shot("chat-diff")

	// "a" allows the prefix rule the dialog shows; the second command with that prefix does not
	// ask, and the rule is saved for later sessions.
	run("send-keys", "-t", "0", "-l", "echo twice")
	run("send-keys", "-t", "0", "Enter")
	waitText("don't ask again for Bash(echo:*) in this project")
	shot("chat-permission-bash")
	run("send-keys", "-t", "0", "a")
	text = plain(settled("Both echoes ran."))
	// Each answered question leaves one line in the scrollback.
	if n := strings.Count(text, "? Bash echo"); n != 1 {
		t.Errorf("the permission dialog was answered %d times for echo one / echo two, want once:\n%s", n, text)
	}
	if !strings.Contains(text, "⏺ Bash echo two") {
		t.Errorf("the second echo did not run:\n%s", text)
	}
	if b, err := os.ReadFile(filepath.Join(project, ".claude", "settings.local.json")); err != nil || !strings.Contains(string(b), `"Bash(echo:*)"`) {
		t.Errorf("the rule was not saved to .claude/settings.local.json (%v):\n%s", err, b)
	}
	// Ctrl-O opens the last tool's whole output; ← the one before; Esc closes it.
	run("send-keys", "-t", "0", "C-o")
	waitText("Bash echo two  (4 of 4)")
	run("send-keys", "-t", "0", "Left")
	waitText("Bash echo one  (3 of 4)")
	run("send-keys", "-t", "0", "Escape")
	waitFor("the input back", func(_, text string) bool {
		return !strings.Contains(text, "(3 of 4)") && strings.Contains(text, "enter send")
	})

	// The spinner while an answer stalls; Esc interrupts it.
	run("send-keys", "-t", "0", "-l", "and now wait")
	run("send-keys", "-t", "0", "Enter")
	waitFor("the spinner with elapsed seconds", func(_, text string) bool {
		return regexp.MustCompile(`Working… \([1-9]\d*s · ↓ \d+ tokens · esc to interrupt\)`).MatchString(text)
	})
	shot("chat-spinner")
	run("send-keys", "-t", "0", "Escape")
	waitText("Interrupted")

	// Ctrl-C twice exits, with the summary.
	run("send-keys", "-t", "0", "C-c")
	waitText("Press Ctrl-C again to exit")
	run("send-keys", "-t", "0", "C-c")
	s = waitText("resume with: strata chat --resume")
	shot("chat-exit")
	if !regexp.MustCompile(`Session [0-9a-f-]{36} · 8\.0k tokens`).MatchString(plain(s)) { // the usage the server reported

		t.Errorf("no exit summary:\n%s", plain(s))
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d replies unused", n)
	}
	hist, err := os.ReadFile(filepath.Join(home, "history.jsonl"))
	if err != nil || !strings.Contains(string(hist), `"display":"first line\nsecond line"`) {
		t.Errorf("history.jsonl lacks the paste (%v):\n%s", err, hist)
	}
}

func quoted(s string) string { return "\"" + s + "\"" }
