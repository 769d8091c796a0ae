package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/chatui"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestChatBackendAndHooks drives what the UI asks of a chat session, against the fake model:
// a message with an @mention, the /resume choices and a resume, the # memory, ! shell, @
// completion, /memory N and /init hooks, and the line mode's useUI decision.
func TestChatBackendAndHooks(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	os.MkdirAll(project, 0o700)
	os.WriteFile(filepath.Join(project, "README.md"), []byte("# proj\nport 9090\n"), 0o600)
	os.WriteFile(filepath.Join(project, "RELEASE.md"), []byte("v1\n"), 0o600)
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text("It says **9090**."))
	vars := map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": llmtest.Key, "STRATA_PROVIDER": "anthropic",
		"STRATA_MODEL": "test-model", "STRATA_NO_BACKGROUND": "1", "TERM": "xterm-256color", "EDITOR": "my-editor"}
	var out, errOut bytes.Buffer
	app := &App{In: strings.NewReader(""), Out: &out, Err: &errOut, Now: time.Now,
		Env:   config.Env{Home: filepath.Join(dir, ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: dir, Getenv: func(k string) string { return vars[k] }},
		Getwd: func() (string, error) { return project, nil }}
	c := &chat{app: app, out: &out, dir: project, o: runOptions{mode: "bypass"}}
	ctx := t.Context()
	if err := c.open(ctx, c.o); err != nil {
		t.Fatal(err)
	}
	defer c.close(ctx)
	if c.useUI() {
		t.Error("useUI with a strings.Reader as input")
	}
	b := &chatBackend{c: c}
	// Shift-Tab's cycle: bypass (from the command line) goes back to ask, then accept-edits,
	// plan and ask again; the session follows.
	for _, want := range []string{"ask", "accept-edits", "plan", "ask"} {
		if got := c.uiHooks().CycleMode(); got != want || string(c.a.PermissionMode()) != want {
			t.Errorf("CycleMode = %q (session %q), want %q", got, c.a.PermissionMode(), want)
		}
	}
	c.a.SetPermissionMode("bypass")

	var events []agent.Event
	if err := b.Run(ctx, conversation.TypedInput("what does @README.md say?"), func(e agent.Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	// The transcript records which part was typed and which attached.
	if data, err := os.ReadFile(c.a.TranscriptPath()); err != nil || !strings.Contains(string(data), `"provenance":{"parts":[{"origin":"typed","bytes":25},{"origin":"file","bytes":`) {
		t.Errorf("the transcript does not record the message's provenance (%v):\n%s", err, data)
	}
	if len(events) == 0 || events[0].Kind != chatui.EventAttached || events[0].Text != "README.md" {
		t.Errorf("first event %+v, want README.md attached", events[0])
	}
	if p := string(srv.Requests()[0].Prompt()); !strings.Contains(p, "port 9090") {
		t.Errorf("the mention was not attached to the request:\n%s", p)
	}
	// The status line's id is as long as it must be to be unambiguous among the project's
	// sessions (another one sharing its first 12 characters here).
	sid := c.a.SessionID()
	if st := b.Status(); !strings.Contains(st, "session "+sid[:8]+" ") {
		t.Errorf("status %q lacks the 8-character id", st)
	}
	twin := filepath.Join(filepath.Dir(c.a.TranscriptPath()), sid[:12]+"0000-7000-8000-000000000000.jsonl")
	if err := os.WriteFile(twin, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := b.Status(); !strings.Contains(st, "session "+sid[:13]) {
		t.Errorf("status %q does not tell the session from %s", st, filepath.Base(twin))
	}
	os.Remove(twin)
	if st := b.Status(); !strings.Contains(st, "test-model") || !strings.Contains(st, "tokens used") {
		t.Errorf("Status() = %q", st)
	}

	id := c.a.SessionID()
	var w bytes.Buffer
	if quit, err := b.Command(ctx, "/clear", &w); quit || err != nil || !strings.Contains(w.String(), "New session") {
		t.Fatalf("/clear: %v %v %q", quit, err, w.String())
	}
	if c.a.SessionID() == id {
		t.Fatal("/clear kept the session")
	}
	// The picker offers the earlier session, not the one the chat is in.
	list, err := b.Sessions(ctx)
	if err != nil || len(list) != 1 || list[0].ID != id || !strings.HasPrefix(id, list[0].Short) || len(list[0].Short) < 8 || list[0].Messages == 0 {
		t.Fatalf("Sessions() = %+v, %v", list, err)
	}
	turns, err := b.Resume(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Role != "user" || !strings.HasPrefix(turns[0].Text, "what does @README.md say?") || turns[1].Text != "It says **9090**." {
		t.Errorf("Resume turns = %+v", turns)
	}

	h := c.uiHooks()
	if len(h.MemoryTypes) != 4 || h.MemoryTypes[2].Name != "project" {
		t.Errorf("memory types %+v", h.MemoryTypes)
	}
	where, err := h.Remember(ctx, "project", "the API listens on port 9090")
	if err != nil || !strings.Contains(where, "Saved project memory") {
		t.Errorf("Remember = %q, %v", where, err)
	}
	if got := h.Complete("RE"); len(got) != 2 || got[0] != "README.md" || got[1] != "RELEASE.md" {
		t.Errorf("Complete(RE) = %q", got)
	}
	shOut, err := h.Shell(ctx, "echo from-the-shell")
	if err != nil || !strings.Contains(shOut, "from-the-shell") {
		t.Errorf("Shell = %q, %v", shOut, err)
	}
	cmd, err := h.EditMemory("1")
	if err != nil || cmd == nil || !strings.HasSuffix(cmd.Path, "my-editor") && cmd.Args[0] != "my-editor" {
		t.Errorf("EditMemory(1) = %v, %v", cmd, err)
	}
	if _, err := h.EditMemory("99"); err == nil {
		t.Error("EditMemory(99) gave no error")
	}
	if prompt, exists := h.Init(); exists || !strings.Contains(prompt, "CLAUDE.md") {
		t.Errorf("Init() = %q, %v", prompt, exists)
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d replies unused", n)
	}
}
