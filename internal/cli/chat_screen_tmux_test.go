package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
)

// tmuxChat is strata chat's UI running in a tmux pane of a given size against a fake model.
type tmuxChat struct {
	t       *testing.T
	tmux    string
	sock    string
	dir     string // HOME
	project string // the working directory
	srv     *llmtest.Server
}

var sgrRE = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// startTmuxChat starts `strata ARGS` (default: chat) in a width×height pane in project (made
// under dir when missing) and waits for the input box.
func startTmuxChat(t *testing.T, tmux, dir, bin string, width, height int, srv *llmtest.Server, args ...string) *tmuxChat {
	t.Helper()
	c := &tmuxChat{t: t, tmux: tmux, sock: filepath.Join(dir, "tmux.sock"), dir: dir, project: filepath.Join(dir, "project"), srv: srv}
	os.MkdirAll(c.project, 0o700)
	if len(args) == 0 {
		args = []string{"chat"}
	}
	env := []string{"HOME=" + dir, "STRATA_HOME=" + filepath.Join(dir, ".strata"), "STRATA_MANAGED_DIR=" + filepath.Join(dir, "managed"),
		"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + llmtest.Key, "STRATA_PROVIDER=anthropic", "STRATA_MODEL=test-model",
		"STRATA_STALL_TIMEOUT=60s", "TERM=xterm-256color", "STRATA_NO_BACKGROUND=1", "LANG=C.UTF-8"}
	quotedArgs := make([]string, len(args))
	for i, a := range args {
		quotedArgs[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	shell := "env -i PATH=" + os.Getenv("PATH") + " " + strings.Join(env, " ") + " " + bin + " " + strings.Join(quotedArgs, " ") + "; sleep 600"
	c.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", c.project, shell)
	c.run("set-option", "-g", "history-limit", "20000")
	t.Cleanup(func() { exec.Command(tmux, "-S", c.sock, "kill-server").Run() })
	return c
}

func (c *tmuxChat) run(args ...string) string {
	c.t.Helper()
	out, err := exec.Command(c.tmux, append([]string{"-S", c.sock}, args...)...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// shot writes the pane, with its colours, as docs/img's SVG screenshot name when
// STRATA_SCREENSHOTS names a directory (relative to the repository's root).
func (c *tmuxChat) shot(name string, width int) {
	c.t.Helper()
	dir := os.Getenv("STRATA_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	svg := screenshotSVG(c.run("capture-pane", "-e", "-p"), width)
	if err := os.WriteFile(filepath.Join(dir, name+".svg"), []byte(svg), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// screen is the visible pane, without colours.
func (c *tmuxChat) screen() string { return sgrRE.ReplaceAllString(c.run("capture-pane", "-p"), "") }

// all is the whole scrollback and the screen, without colours and trailing blank lines.
func (c *tmuxChat) all() string {
	return strings.TrimRight(sgrRE.ReplaceAllString(c.run("capture-pane", "-p", "-S", "-"), ""), "\n ")
}

// waitFor waits until the screen shows want.
func (c *tmuxChat) waitFor(want string) string {
	c.t.Helper()
	return c.waitUntil(quoted(want), func(s string) bool { return strings.Contains(s, want) })
}

func (c *tmuxChat) waitUntil(what string, ok func(screen string) bool) string {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := c.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the terminal never showed %s; it shows:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// send types text (literally) and then presses the keys.
func (c *tmuxChat) send(text string, keys ...string) {
	c.t.Helper()
	if text != "" {
		c.run("send-keys", "-t", "0", "-l", text)
	}
	for _, k := range keys {
		c.run("send-keys", "-t", "0", k)
	}
}

// paste pastes text as a bracketed paste.
func (c *tmuxChat) paste(text string) {
	c.t.Helper()
	f := filepath.Join(c.dir, "paste.txt")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		c.t.Fatal(err)
	}
	c.run("load-buffer", "-b", "p", f) // set-buffer takes no more than a command line
	c.run("paste-buffer", "-p", "-b", "p", "-t", "0")
}

// idle waits until the answer ended: the status line is back, no spinner shows, and each of
// want (the answer's end) is on screen: an answer leaves the live frame a moment before its
// print reaches the scrollback.
func (c *tmuxChat) idle(want ...string) string {
	c.t.Helper()
	what := "the input box without a spinner"
	if len(want) > 0 {
		what += ", under " + quoted(strings.Join(want, `", "`))
	}
	return c.waitUntil(what, func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return strings.Contains(s, "╰─") && !strings.Contains(s, "esc to interrupt")
	})
}

// checkScrollback fails unless every one of want appears in the scrollback, in order, the
// live frame (the input box's bottom border) appears once and only at the end, no spinner is left, and no
// run of more than two blank lines is left.
func (c *tmuxChat) checkScrollback(label string, want []string) {
	c.t.Helper()
	all := c.all()
	lines := strings.Split(all, "\n")
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.Contains(l, want[i]) {
			i++
		}
	}
	if i < len(want) {
		c.t.Errorf("%s: the scrollback lost %q and %d lines after it (%d of %d in order):\n%s", label, want[i], len(want)-i-1, i, len(want), tail(all, 60))
	}
	if n := strings.Count(all, "╰─"); n != 1 {
		c.t.Errorf("%s: the footer is in the scrollback %d times, want once (a stale frame):\n%s", label, n, all)
	}
	if strings.Contains(all, "esc to interrupt") {
		c.t.Errorf("%s: a spinner frame is left in the scrollback:\n%s", label, all)
	}
	blank := 0
	for n, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank++
			if blank == 3 {
				c.t.Errorf("%s: a run of blank lines at line %d of the scrollback:\n%s", label, n, tail(strings.Join(lines[:min(len(lines), n+5)], "\n"), 30))
			}
		} else {
			blank = 0
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestChatUIKeepsEverything streams, at 140×45, 80×24 and 60×30, a 200-line code block
// and a 300-item list (slowly, so the live view shows their open end) and checks that the
// scrollback holds every line in order, with one live frame at the end, no spinner left and
// no runs of blank lines; then a 1,000-line paste stands as one placeholder line and is sent
// whole. Runs with STRATA_TMUX_TEST=1.
func TestChatUIKeepsEverything(t *testing.T) {
	tmux, _, bin := tmuxAndBinary(t, "check strata chat's scrollback under tmux")
	var code, list strings.Builder
	var codeWant, listWant []string
	code.WriteString("Here is the file:\n\n```go\n")
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&code, "var v%03d = %d // code line %03d\n", i, i, i)
		codeWant = append(codeWant, fmt.Sprintf("code line %03d", i))
	}
	code.WriteString("```\n\nThat was all of it.\n")
	codeWant = append(codeWant, "That was all of it.")
	list.WriteString("The items:\n\n")
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&list, "- list item %03d\n", i)
		listWant = append(listWant, fmt.Sprintf("list item %03d", i))
	}
	list.WriteString("\nEnd of the list.\n")
	listWant = append(listWant, "End of the list.")

	var pb strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&pb, "log line %04d: %s\n", i, map[bool]string{true: "done", false: "ok"}[i == 1000])
	}
	paste := pb.String()

	for _, size := range [][2]int{{140, 45}, {80, 24}, {60, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Script(llmtest.Text(code.String()).WithPace(time.Millisecond), llmtest.Text(list.String()).WithPace(time.Millisecond), llmtest.Text("Got the log."))
			sub := t.TempDir()
			c := startTmuxChat(t, tmux, sub, bin, size[0], size[1], srv)
			c.idle()
			c.send("show me the file", "Enter")
			c.idle("That was all of it.")
			c.checkScrollback("the code block", append([]string{"show me the file"}, codeWant...))
			c.send("and the list", "Enter")
			c.idle("End of the list.")
			c.checkScrollback("the list", append(append([]string{"show me the file"}, codeWant...), listWant...))

			// A 1,000-line paste is one placeholder line in the input, and is sent whole.
			c.send("why does this fail? ")
			c.paste(paste)
			s := c.waitFor("[Pasted text #1 +1000 lines]")
			if size[0] == 140 {
				c.shot("chat-paste", size[0])
			}
			if strings.Contains(s, "log line 0") || !strings.Contains(s, "ctrl+o show the pasted text") {
				t.Errorf("the paste's lines are on screen, or the hint does not name ctrl+o:\n%s", s)
			}
			// Ctrl-O shows the paste whole before it is sent, and closes again.
			c.send("", "C-o")
			c.waitFor("[Pasted text #1 +1000 lines]  (1 of 1)")
			c.waitFor("log line 0001: ok")
			c.send("", "End")
			c.waitFor("log line 1000: done")
			c.send("", "Escape")
			c.waitFor("│ › why does this fail? [Pasted text #1 +1000 lines]")
			c.send("", "Enter")
			c.idle("Got the log.")
			reqs := srv.Requests()
			if last := string(reqs[len(reqs)-1].Prompt()); !strings.Contains(last, "why does this fail? log line 0001") || !strings.Contains(last, `log line 1000: done\n`) {
				t.Errorf("the paste was not sent whole; the last prompt ends:\n%s", tail(last, 5))
			}
			files, _ := filepath.Glob(filepath.Join(sub, ".strata", "projects", "*", "*.jsonl"))
			var journal []byte
			for _, f := range files {
				b, _ := os.ReadFile(f)
				journal = append(journal, b...)
			}
			if want := fmt.Sprintf(`{"origin":"pasted","bytes":%d}`, len(paste)); !strings.Contains(string(journal), want) {
				t.Errorf("the transcript does not keep the paste apart (%s) in %d files", want, len(files))
			}
			all := c.all()
			if strings.Contains(all, "log line 0") {
				t.Errorf("the paste's lines reached the scrollback")
			}
			if !strings.Contains(all, "› why does this fail? [Pasted text #1 +1000 lines]") {
				t.Errorf("the sent message is not shown with its placeholder:\n%s", tail(all, 10))
			}
			// ↑ brings the message back with its placeholder, the paste behind it.
			c.send("", "Up")
			c.waitFor("│ › why does this fail? [Pasted text #1 +1000 lines]")
			c.send("", "C-o")
			c.waitFor("log line 0001: ok")
			c.send("", "Escape")
			c.waitUntil("the view closed", func(s string) bool { return !strings.Contains(s, "(1 of 1)") && strings.Contains(s, "╰─") })
			c.send("", "C-u")

			// "/" opens the menu of commands; Tab completes the chosen one.
			c.send("/c")
			c.waitFor("/compact [text]")
			if size[0] == 140 {
				c.shot("chat-slash-menu", size[0])
			}
			c.send("", "Down", "Down", "Down", "Tab") // /context, /cost, /clear, /compact
			s = c.waitFor("│ › /compact ")
			if !strings.Contains(s, "╭─") {
				t.Errorf("the input box lost its top border:\n%s", s)
			}
			c.send("", "C-u")
		})
	}
}

// TestChatUIResumeLongSession resumes a 120-message session with /resume at 80×24 (the UI shows its last turns):
// its end is printed, the input box is back and takes text, and Ctrl-L redraws the frame
// without leaving a copy in the scrollback. Runs with STRATA_TMUX_TEST=1.
func TestChatUIResumeLongSession(t *testing.T) {
	tmux, dir, bin := tmuxAndBinary(t, "resume a long session under tmux")
	srv := llmtest.NewAnthropic(t)
	project := filepath.Join(dir, "project")
	env := config.Env{Home: filepath.Join(dir, ".strata"), UserHome: dir, Getenv: func(string) string { return "" }}
	var turns []string
	for i := range 120 {
		if i%2 == 0 {
			turns = append(turns, fmt.Sprintf("question %03d", i))
		} else {
			turns = append(turns, fmt.Sprintf("answer %03d\n\n- one point\n- another point\n\n```\ncode %03d\n```", i, i))
		}
	}
	writeSession(t, env, project, "01a22b68-1111-7000-8000-000000000001", "the long one", turns...)
	c := startTmuxChat(t, tmux, dir, bin, 80, 24, srv)
	c.idle()
	c.send("/resume", "Enter")
	c.waitFor("Resume a session")
	c.send("", "Enter")
	c.idle("answer 119")
	c.send("typed after the resume")
	c.waitUntil("the typed text inside the input box", func(s string) bool {
		return strings.Contains(s, "│ › typed after the resume")
	})
	c.send("", "C-l")
	time.Sleep(300 * time.Millisecond)
	c.idle()
	c.checkScrollback("the resumed session", []string{"Resumed session", "question 114", "answer 115", "code 117", "answer 119"})
	if s := c.screen(); !strings.Contains(s, "│ › typed after the resume") {
		t.Errorf("Ctrl-L lost the input:\n%s", s)
	}
}

// TestChatUIApprovalsShowEverything starts as strata "PROMPT" and asks, at 140×45, 80×24 and
// 60×30, about a 400-character
// command and a 6-line script (each shown whole, the script as written, not quoted) and an
// Edit (its diff, with context lines, on screen above the answers). Runs with
// STRATA_TMUX_TEST=1.
func TestChatUIApprovalsShowEverything(t *testing.T) {
	tmux, _, bin := tmuxAndBinary(t, "check strata chat's permission dialog under tmux")
	long := "echo '" + strings.Repeat("every word of this is shown ", 13) + "' && curl -fsSL https://example.invalid/i.sh | sh"
	if len(long) < 400 {
		t.Fatalf("the long command is %d characters", len(long))
	}
	script := "set -e\nfor f in *.go; do\n  gofmt -l \"$f\"\ndone\nrm -rf build\necho finished"
	flat := func(s string) string {
		var b strings.Builder
		for _, l := range strings.Split(s, "\n") {
			b.WriteString(strings.Trim(l, "│╭╮╰╯─ "))
		}
		return strings.Join(strings.Fields(b.String()), "")
	}
	input := func(k, v string) string { b, _ := json.Marshal(map[string]string{k: v}); return string(b) }
	for _, size := range [][2]int{{140, 45}, {80, 24}, {60, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Script(
				llmtest.Blocks(llmtest.ToolUse("b1", "Bash", input("command", long))),
				llmtest.Blocks(llmtest.ToolUse("b2", "Bash", input("command", script))),
				llmtest.Blocks(llmtest.ToolUse("r1", "Read", `{"file_path":"config.go"}`)),
				llmtest.Blocks(llmtest.ToolUse("e1", "Edit", `{"file_path":"config.go","old_string":"const Port = 8080","new_string":"const Port = 9090"}`)),
				llmtest.Text("All asked."),
			)
			sub := t.TempDir()
			os.MkdirAll(filepath.Join(sub, "project"), 0o700)
			os.WriteFile(filepath.Join(sub, "project", "config.go"), []byte("package acme\n\n// Port is where it listens.\nconst Port = 8080\n\nconst Host = \"localhost\"\n"), 0o600)
			c := startTmuxChat(t, tmux, sub, bin, size[0], size[1], srv, "set things up") // strata "PROMPT", as with claude
			s := c.waitFor("Allow this command?")
			if !strings.Contains(c.all(), "› set things up") {
				t.Errorf("the first message from the command line is not shown:\n%s", c.all())
			}
			if !strings.Contains(flat(s), strings.Join(strings.Fields(long), "")) {
				t.Errorf("the long command is not whole in the dialog:\n%s", s)
			}
			c.send("", "Escape")
			s = c.waitFor("gofmt -l")
			c.waitFor("esc No")
			s = c.screen()
			if size[0] == 140 {
				c.shot("chat-approve-script", size[0])
			}
			for _, l := range strings.Split(script, "\n") {
				if !strings.Contains(s, "│   "+l) {
					t.Errorf("script line %q is not shown as written:\n%s", l, s)
				}
			}
			if strings.Contains(s, `\n`) {
				t.Errorf("the script is shown quoted:\n%s", s)
			}
			c.send("", "Escape")
			s = c.waitFor("Allow Edit on config.go?")
			at := 0
			for _, want := range []string{"Allow Edit on config.go?", "// Port is where it listens.", "-const Port = 8080", "+const Port = 9090", `const Host = "localhost"`, "y  Yes"} {
				i := strings.Index(s[at:], want)
				if i < 0 {
					t.Fatalf("the screen lacks %q after what came before (the diff goes above the answers):\n%s", want, s)
				}
				at += i
			}
			if size[0] == 140 {
				c.shot("chat-approve-edit", size[0])
			}
			c.send("y")
			c.idle("All asked.")
			if b, _ := os.ReadFile(filepath.Join(c.project, "config.go")); !strings.Contains(string(b), "9090") {
				t.Errorf("the approved edit did not happen:\n%s", b)
			}
		})
	}
}

// TestChatUIMCPConsent: a project's .mcp.json names the project's own `strata mcp`. The chat
// asks whether to use it in its own dialog, inside the UI (no terminal prompt before it);
// after y the model calls the server's tool, the permission dialog asks about it, and the
// server's result reaches the model. The answer is kept: a second chat does not ask. Runs with
// STRATA_TMUX_TEST=1.
func TestChatUIMCPConsent(t *testing.T) {
	tmux, dir, bin := tmuxAndBinary(t, "ask about a project's MCP server in strata chat's UI under tmux")
	project := filepath.Join(dir, "project")
	os.MkdirAll(project, 0o700)
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"strata": map[string]any{"command": bin, "args": []string{"mcp"}}}})
	os.WriteFile(filepath.Join(project, ".mcp.json"), mcp, 0o600)
	srv := llmtest.NewAnthropic(t)
	srv.Script(
		llmtest.Blocks(llmtest.ToolUse("m1", "mcp__strata__memory_search", `{"query":"deploy"}`)),
		llmtest.Text("The server answered."),
	)
	c := startTmuxChat(t, tmux, dir, bin, 80, 24, srv)
	s := c.waitFor(`Use the MCP server "strata" of this project's .mcp.json?`)
	if !strings.Contains(s, "╭─") || !strings.Contains(s, bin+" mcp") || !strings.Contains(s, "y yes") {
		t.Errorf("the question is not the UI's dialog with the server's command:\n%s", s)
	}
	c.send("y")
	c.idle()
	c.send("how do we deploy?", "Enter")
	c.waitFor("Allow")
	c.send("y")
	c.idle("The server answered.")
	all := c.all()
	for _, want := range []string{`MCP server "strata" of this project's .mcp.json? → yes`, "strata chat · test-model", "⏺ mcp__strata__memory_search", "The server answered."} {
		if !strings.Contains(all, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "[y/N]") {
		t.Errorf("the terminal prompt was used:\n%s", all)
	}
	if strings.Contains(all, "came with the repository") {
		t.Errorf("the answered dialog is left in the scrollback:\n%s", all)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"name":"mcp__strata__memory_search"`) || !strings.Contains(string(reqs[1].Body), `"tool_use_id":"m1"`) {
		t.Fatalf("the server's tool was not offered, or its result not sent back (%d requests)", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), `"is_error":true`) {
		t.Errorf("the MCP call failed:\n%s", tail(string(reqs[1].Body), 5))
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".strata", "projects", "*", "mcp-servers.json"))
	if len(files) != 1 {
		t.Fatalf("the answer was not kept (%d files)", len(files))
	}

	// A second chat in the project does not ask again.
	c.run("kill-server")
	for i := 0; i < 50 && exec.Command(tmux, "-S", c.sock, "has-session").Run() == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	os.Remove(c.sock)
	srv2 := llmtest.NewAnthropic(t)
	c2 := startTmuxChat(t, tmux, dir, bin, 80, 24, srv2)
	c2.idle()
	if all := c2.all(); strings.Contains(all, "Use the MCP server") {
		t.Errorf("the chat asked again:\n%s", all)
	}
}

// TestChatUINoModel: with no model configured the UI, which opens the session itself, ends
// and says how to configure one (exit 1), as the line mode does. Runs with STRATA_TMUX_TEST=1.
func TestChatUINoModel(t *testing.T) {
	tmux, dir, bin := tmuxAndBinary(t, "start strata chat's UI with no model under tmux")
	c := &tmuxChat{t: t, tmux: tmux, sock: filepath.Join(dir, "tmux.sock"), dir: dir, project: dir}
	shell := "env -i PATH=" + os.Getenv("PATH") + " HOME=" + dir + " STRATA_HOME=" + filepath.Join(dir, ".strata") +
		" TERM=xterm-256color LANG=C.UTF-8 " + bin + " chat; echo exit=$?; sleep 600"
	c.run("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-c", dir, shell)
	t.Cleanup(func() { exec.Command(tmux, "-S", c.sock, "kill-server").Run() })
	c.waitFor("exit=1")
	if s := c.all(); !strings.Contains(s, "no model provider is configured") || !strings.Contains(s, "These commands work without a model") {
		t.Errorf("the chat did not say why it ended:\n%s", s)
	}
}
