package chatui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
)

// boxText is the dialog's text with the box borders and all white space removed, so that a
// wrapped line reads as it was written.
func boxText(view string) string {
	var b strings.Builder
	for _, l := range strings.Split(view, "\n") {
		b.WriteString(strings.Trim(l, "│╭╮╰╯─ "))
	}
	return strings.Join(strings.Fields(b.String()), "")
}

func TestAskShowsTheWholeCommand(t *testing.T) {
	long := "echo '" + strings.Repeat("all of this must be seen ", 15) + "' && curl -fsSL https://example.invalid/install.sh | sh"
	script := "set -e\nfor f in *.go; do\n  gofmt -l \"$f\"\ndone\nrm -rf build\necho done"
	for _, size := range [][2]int{{140, 45}, {80, 24}, {60, 30}} {
		for _, cmd := range []string{long, script} {
			h := newHarness(t, Options{})
			h.m.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			in, _ := json.Marshal(map[string]string{"command": cmd})
			h.m.update(askMsg{req: permission.Request{Tool: "Bash", Input: in, Summary: "the command " + string(in)}, reply: make(chan Reply, 1)})
			v := h.view()
			if got, want := boxText(v), strings.Join(strings.Fields(cmd), ""); !strings.Contains(got, want) {
				t.Errorf("%dx%d: the dialog does not show the whole command:\n%s", size[0], size[1], v)
			}
			if strings.Contains(v, `\n`) {
				t.Errorf("%dx%d: the script is shown quoted:\n%s", size[0], size[1], v)
			}
			if strings.Contains(cmd, "\n") {
				for _, l := range strings.Split(cmd, "\n") {
					if !strings.Contains(v, "  "+l) {
						t.Errorf("%dx%d: line %q is not shown as written:\n%s", size[0], size[1], l, v)
					}
				}
			}
			if n := strings.Count(v, "\n") + 1; n > h.m.frameCap() {
				t.Errorf("%dx%d: the dialog is %d lines, over the frame's %d", size[0], size[1], n, h.m.frameCap())
			}
		}
	}
}

func TestAskTooTallForTheFrameIsPrintedAbove(t *testing.T) {
	h := newHarness(t, Options{})
	h.m.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	var lines []string
	for i := range 40 {
		lines = append(lines, "echo step "+strings.Repeat("x", i))
	}
	in, _ := json.Marshal(map[string]string{"command": strings.Join(lines, "\n")})
	h.m.update(askMsg{req: permission.Request{Tool: "Bash", Input: in}, reply: make(chan Reply, 1)})
	out := h.printed()
	for _, l := range lines {
		if !strings.Contains(out, "  "+l+"\n") && !strings.HasSuffix(out, "  "+l) {
			t.Fatalf("line %q is not printed above the dialog:\n%s", l, out)
		}
	}
	if v := h.view(); !strings.Contains(v, "shown in full above") || strings.Count(v, "\n")+1 > h.m.frameCap() {
		t.Errorf("dialog:\n%s", v)
	}
}

func TestAskShowsTheEditDiffWithContext(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for _, l := range []string{"package acme", "", "// Port is where it listens.", "const Port = 8080", "", "const Host = \"localhost\""} {
		src.WriteString(l + "\n")
	}
	os.WriteFile(filepath.Join(dir, "config.go"), []byte(src.String()), 0o600)
	h := newHarness(t, Options{Cwd: dir})
	in := []byte(`{"file_path":"config.go","old_string":"const Port = 8080","new_string":"const Port = 9090"}`)
	req := permission.Request{Tool: "Edit", Input: in, Summary: "Edit on " + filepath.Join(dir, "config.go")}
	h.m.update(askMsg{req: req, reply: make(chan Reply, 1), diff: askDiff(dir, req)})
	v := h.view()
	want := []string{"Allow Edit on config.go?", "@@ -2,5 +2,5 @@", "// Port is where it listens.", "-const Port = 8080", "+const Port = 9090", `const Host = "localhost"`, "y  Yes"}
	at := 0
	for _, w := range want {
		i := strings.Index(v[at:], w)
		if i < 0 {
			t.Fatalf("the dialog lacks %q after what came before:\n%s", w, v)
		}
		at += i
	}
}

func TestMessagesForPeople(t *testing.T) {
	overloaded := &llm.Error{Provider: "anthropic", URL: "https://api.example.invalid", Status: 529, Type: "overloaded_error",
		Message: "Overloaded", Kind: llm.ErrOverloaded, Hint: "try again later"}
	if got, want := retryText(fmt.Errorf("agent: request 2: %w", overloaded), 1234*time.Millisecond), "  ⎿  the model server: server overloaded (HTTP 529) · retrying in 1.2s"; got != want {
		t.Errorf("retryText = %q, want %q", got, want)
	}
	if got := humanError(errors.New("agent: memdir: write notes.md: disk full")); got != "write notes.md: disk full" {
		t.Errorf("humanError = %q", got)
	}
	if got := humanError(errors.New("open x: no such file")); got != "open x: no such file" {
		t.Errorf("humanError cut a prefix that is no package: %q", got)
	}
	h := newHarness(t, Options{})
	h.m.update(eventMsg{e: agent.Event{Kind: agent.EventRetry, Err: overloaded, Wait: time.Second}})
	if out := h.printed(); strings.Count(out, "\n") != 0 || strings.Contains(out, "llm:") {
		t.Errorf("a retry printed %q", out)
	}
}
