package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

// project is a repository with a CLAUDE.md and a rule for Go files, opened as a workspace.
type project struct {
	dir string
	ws  *workspace.Workspace
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "project")
	for name, text := range map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		"CLAUDE.md":            "Use tabs.\n",
		".claude/rules/go.md":  "---\npaths: \"**/*.go\"\n---\nWrap errors with %w.\n",
		"src/a.go":             "package src\n",
		"notes/n.txt":          "one\ntwo\n",
		"notes/changed-on.txt": "before\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := config.Env{Home: filepath.Join(root, "home", ".strata"), UserHome: filepath.Join(root, "home"), Getenv: func(string) string { return "" }}
	ws, err := workspace.Open(t.Context(), workspace.Options{Cwd: dir, Env: env, Settings: &config.Settings{}, NoMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	return &project{dir: dir, ws: ws}
}

func (p *project) instructions(t *testing.T) *instructions.Set {
	t.Helper()
	set, err := p.ws.Instructions(t.Context(), workspace.SetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func (p *project) context(t *testing.T, rs *recall.Session) *Context {
	t.Helper()
	var tools []llm.Tool
	for _, tl := range tool.Set(false) {
		tools = append(tools, tl.LLM())
	}
	clock := func() time.Time { return time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC) }
	return New(Options{Instructions: p.instructions(t), Tools: tools, Recall: rs, Cwd: p.dir, Model: "m-1", Now: clock})
}

func user(text string) conversation.Entry {
	return conversation.Entry{Message: conversation.NewText(conversation.User, text)}
}

func assistant(text string) conversation.Entry {
	return conversation.Entry{Message: conversation.NewText(conversation.Assistant, text)}
}

// The system prompt names the model, the directory and the date and ends in the instruction
// block (the cache marker on it); a touch of a Go file queues the Go rule once, as one
// system-reminder, and marks the rule's file as seen only in altered form.
func TestSystemAndTouch(t *testing.T) {
	p := newProject(t)
	c := p.context(t, nil)
	sys := c.System()
	if len(sys) != 2 || !strings.Contains(sys[0].Text, "m-1") || !strings.Contains(sys[0].Text, p.dir) || !strings.Contains(sys[0].Text, "2026-12-04") {
		t.Fatalf("system blocks: %+v", sys)
	}
	if !strings.Contains(sys[1].Text, "Use tabs.") || strings.Contains(sys[1].Text, "Wrap errors") || !sys[1].Cache || sys[0].Cache {
		t.Errorf("instruction block %q (cache %v); want CLAUDE.md, not the conditional rule, marked", sys[1].Text, sys[1].Cache)
	}
	if _, _, ok := c.Boundary(); ok {
		t.Fatal("attachments before any touch")
	}
	c.Touch(t.Context(), filepath.Join(p.dir, "notes", "n.txt"))
	if _, _, ok := c.Boundary(); ok {
		t.Error("a touch of a text file queued an attachment")
	}
	c.Touch(t.Context(), filepath.Join(p.dir, "src", "a.go"))
	c.Touch(t.Context(), filepath.Join(p.dir, "src", "a.go"))
	m, taken, ok := c.Boundary()
	if !ok || len(taken) != 1 || taken[0].Source != "instructions" || len(m.Content) != 1 ||
		!strings.HasPrefix(m.Content[0].Text, "<system-reminder>\n") || !strings.Contains(m.Content[0].Text, "Wrap errors with %w.") {
		t.Fatalf("boundary after touching a.go: %+v, %+v, %v", m, taken, ok)
	}
	if st, ok := c.Cache().Get(filepath.Join(p.dir, ".claude", "rules", "go.md")); !ok || !st.Partial || st.Source != conversation.SourceInjected {
		t.Errorf("the rule's file in the read cache: %+v, %v; want an injected partial view", st, ok)
	}
	c.SetModel("m-2")
	if sys := c.System(); !strings.Contains(sys[0].Text, "m-2") {
		t.Error("SetModel did not re-render the system prompt")
	}
}

// Each request is the history merged, with cache markers after the previous request's tail
// and after its own; a repair is reported by the first request that needs it only.
func TestRequestCachePointsAndRepairs(t *testing.T) {
	p := newProject(t)
	c := p.context(t, nil)
	c.Record(user("first"))
	req, fixes := c.Request(100)
	if len(req.Messages) != 1 || len(req.CachePoints) != 1 || req.CachePoints[0] != llm.CacheAfter(0) || len(fixes) != 0 || req.MaxTokens != 100 || req.Model != "m-1" {
		t.Fatalf("first request: %d messages, points %v, fixes %v", len(req.Messages), req.CachePoints, fixes)
	}
	c.Record(assistant("answer"))
	c.Record(user("second"))
	c.Record(user("and more")) // merged into one user message
	req, _ = c.Request(100)
	if len(req.Messages) != 3 || len(req.CachePoints) != 2 || req.CachePoints[0] != llm.CacheAfter(0) || req.CachePoints[1] != llm.CacheAfter(2) {
		t.Fatalf("second request: %d messages, points %v", len(req.Messages), req.CachePoints)
	}
	if s := c.Snapshot(); len(s.Messages) != 3 || len(s.Points) != 2 || s.Entries != 4 || s.LastUUID == "" || len(s.System) != 2 || len(s.Tools) == 0 {
		t.Errorf("snapshot: %d messages, %v points, %d entries, uuid %q", len(s.Messages), s.Points, s.Entries, s.LastUUID)
	}
	// A tool call without its result (a crash between them) is repaired, and said once.
	call := conversation.Entry{Message: conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.ToolUse, ID: "t1", Name: "Read", Input: []byte(`{"file_path":"x"}`)}}}}
	c.Record(call)
	c.Record(user("go on"))
	if _, fixes := c.Request(100); len(fixes) != 1 {
		t.Fatalf("fixes %v; want the missing result reported", fixes)
	}
	if req, fixes := c.Request(100); len(fixes) != 0 || len(conversation.Check(req.Messages)) != 0 {
		t.Errorf("second request: fixes %v, problems %v", fixes, conversation.Check(req.Messages))
	}
}

// Apply puts in the compacted history and the fresh instructions, refills the read cache
// with the result's views (the instruction files as injected) and restarts the count and the
// cache markers.
func TestApply(t *testing.T) {
	p := newProject(t)
	rs := recall.NewSession()
	c := p.context(t, rs)
	for i := 0; i < 20; i++ {
		c.Record(user(strings.Repeat("long question ", 100)))
		c.Record(assistant(strings.Repeat("long answer ", 100)))
	}
	c.Request(100)
	old := filepath.Join(p.dir, "notes", "n.txt")
	if err := c.Cache().Record(conversation.FileState{Path: old, Content: "one\ntwo\n", Source: conversation.SourceRead}); err != nil {
		t.Fatal(err)
	}
	c.Touch(t.Context(), filepath.Join(p.dir, "src", "a.go"))
	before := c.Tokens()

	if err := os.WriteFile(filepath.Join(p.dir, "CLAUDE.md"), []byte("Use spaces.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pend := c.Prepare(t.Context(), p.instructions(t))
	if len(pend.Rules) != 1 || !strings.Contains(pend.Rules[0].Text, "Wrap errors") {
		t.Errorf("rules to re-inject: %+v; want the Go rule, touched again", pend.Rules)
	}
	if len(pend.Files) != 1 || pend.Files[0].Path != old || pend.Files[0].Content != "one\ntwo\n" {
		t.Errorf("files to re-inject: %+v", pend.Files)
	}
	if strings.Contains(c.System()[1].Text, "Use spaces.") {
		t.Fatal("Prepare changed the system prompt before the compaction succeeded")
	}
	kept := []conversation.Entry{{UUID: "s1", Message: conversation.NewText(conversation.User, "summary")}}
	view := conversation.FileState{Path: old, Content: "one\ntwo\n", HasContent: true, Source: conversation.SourceRead}
	if err := c.Apply(pend, &compact.Result{Context: kept, FileViews: []conversation.FileState{view}}); err != nil {
		t.Fatal(err)
	}
	if e := c.Entries(); len(e) != 1 || e[0].UUID != "s1" {
		t.Errorf("history after Apply: %+v", e)
	}
	if !strings.Contains(c.System()[1].Text, "Use spaces.") {
		t.Error("the system prompt does not hold the instructions re-read from disk")
	}
	if after := c.Tokens(); after >= before || after != c.Size().Total() {
		t.Errorf("tokens %d → %d; want the estimate of the smaller context (%d)", before, after, c.Size().Total())
	}
	if st, ok := c.Cache().Get(old); !ok || st.Source != conversation.SourceRead {
		t.Errorf("re-injected view: %+v, %v", st, ok)
	}
	if st, ok := c.Cache().Get(filepath.Join(p.dir, "CLAUDE.md")); !ok || st.Source != conversation.SourceInjected {
		t.Errorf("CLAUDE.md in the cache: %+v, %v; want it as injected", st, ok)
	}
	if req, _ := c.Request(100); len(req.CachePoints) != 1 {
		t.Errorf("first request after Apply: points %v; want only its own tail", req.CachePoints)
	}
}

// A view whose file changed or has no content is re-read, bounded as Read bounds a whole read:
// a file past the bound or a binary file is left out, not loaded.
func TestReinjectFilesBounded(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	big := filepath.Join(dir, "big.log")
	bin := filepath.Join(dir, "bin.dat")
	if err := os.WriteFile(small, []byte("now\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("a\x00b"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(tool.ReadWholeMax + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	views := []conversation.FileState{
		{Path: small, Content: "then\n", HasContent: true, ModTime: time.Unix(1, 0), Source: conversation.SourceRead},
		{Path: big, Source: conversation.SourceRead},
		{Path: bin, Source: conversation.SourceRead},
	}
	got := reinjectFiles(views, nil)
	if len(got) != 1 || got[0].Path != small || got[0].Content != "now\n" {
		t.Errorf("reinjectFiles = %+v; want small.txt as it is now, alone", got)
	}
}
