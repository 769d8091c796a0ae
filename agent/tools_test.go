package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

func call(t *testing.T, a *Agent, name, input string) (string, error) {
	t.Helper()
	tl := a.tools.Get(name)
	if tl == nil {
		t.Fatalf("no tool %s", name)
	}
	e := sessionEnv{a}
	c, err := tool.Decode(e, name, json.RawMessage(input))
	if err != nil {
		return "", err
	}
	return tl.Run(context.Background(), e, c)
}

func mustCall(t *testing.T, a *Agent, name, input string) string {
	t.Helper()
	out, err := call(t, a, name, input)
	if err != nil {
		t.Fatalf("%s %s: %v", name, input, err)
	}
	return out
}

func TestReadNumbersLinesAndStubsIdenticalRereads(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.go", "package a\n\n// 中文注释\nfunc A() {}\n")
	a := f.agent(Options{})
	out := mustCall(t, a, "Read", `{"file_path":"a.go"}`)
	want := "     1\tpackage a\n     2\t\n     3\t// 中文注释\n     4\tfunc A() {}\n"
	if out != want {
		t.Errorf("Read = %q, want %q", out, want)
	}
	if out := mustCall(t, a, "Read", `{"file_path":"a.go"}`); out != conversation.UnchangedStub {
		t.Errorf("identical re-read = %q, want the stub", out)
	}
	if out := mustCall(t, a, "Read", `{"file_path":"a.go","offset":3,"limit":1}`); out != "     3\t// 中文注释\n[strata: showed lines 3-3 of 4; pass offset and limit to read more]\n" {
		t.Errorf("ranged read = %q", out)
	}
	// A change on disk means the content is sent again.
	time.Sleep(10 * time.Millisecond)
	f.write("a.go", "package a\n")
	if out := mustCall(t, a, "Read", `{"file_path":"a.go"}`); out != "     1\tpackage a\n" {
		t.Errorf("read after change = %q", out)
	}
	for _, in := range []string{`{"file_path":"missing.go"}`, `{"file_path":"."}`} {
		if _, err := call(t, a, "Read", in); err == nil {
			t.Errorf("Read %s: no error", in)
		}
	}
	os.WriteFile(filepath.Join(f.dir, "bin"), []byte{0, 1, 2}, 0o600)
	if _, err := call(t, a, "Read", `{"file_path":"bin"}`); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("binary read: %v", err)
	}
}

func TestEditNeedsAFullFreshRead(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("CLAUDE.md", "# rules\n<!-- a note for humans -->\nUse tabs.\n")
	f.write("x.txt", "one two two\n")
	a := f.agent(Options{})

	// Unread file.
	if _, err := call(t, a, "Edit", `{"file_path":"x.txt","old_string":"one","new_string":"1"}`); err == nil || !strings.Contains(err.Error(), "not been read") {
		t.Errorf("edit of unread file: %v", err)
	}
	// CLAUDE.md was injected with its comment stripped: a partial view.
	if _, err := call(t, a, "Edit", `{"file_path":"CLAUDE.md","old_string":"tabs","new_string":"spaces"}`); err == nil || !strings.Contains(err.Error(), "partial view") {
		t.Errorf("edit of an injected file: %v", err)
	}
	mustCall(t, a, "Read", `{"file_path":"CLAUDE.md"}`)
	mustCall(t, a, "Edit", `{"file_path":"CLAUDE.md","old_string":"tabs","new_string":"spaces"}`)

	mustCall(t, a, "Read", `{"file_path":"x.txt"}`)
	if _, err := call(t, a, "Edit", `{"file_path":"x.txt","old_string":"two","new_string":"2"}`); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Errorf("ambiguous edit: %v", err)
	}
	if _, err := call(t, a, "Edit", `{"file_path":"x.txt","old_string":"three","new_string":"3"}`); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing old_string: %v", err)
	}
	mustCall(t, a, "Edit", `{"file_path":"x.txt","old_string":"two","new_string":"2","replace_all":true}`)
	// The agent's own write counts as a view: a second edit needs no new Read.
	mustCall(t, a, "Edit", `{"file_path":"x.txt","old_string":"one","new_string":"一"}`)
	data, _ := os.ReadFile(filepath.Join(f.dir, "x.txt"))
	if string(data) != "一 2 2\n" {
		t.Errorf("x.txt = %q", data)
	}
	// Someone else changes the file: refused until read again.
	time.Sleep(10 * time.Millisecond)
	f.write("x.txt", "changed\n")
	if _, err := call(t, a, "Edit", `{"file_path":"x.txt","old_string":"changed","new_string":"c"}`); err == nil || !strings.Contains(err.Error(), "modified") {
		t.Errorf("edit of a modified file: %v", err)
	}
	if _, err := call(t, a, "Write", `{"file_path":"x.txt","content":"new"}`); err == nil {
		t.Errorf("overwrite of a modified file was allowed")
	}
	mustCall(t, a, "Write", `{"file_path":"sub/dir/new.txt","content":"fresh\n"}`)
	if data, _ := os.ReadFile(filepath.Join(f.dir, "sub/dir/new.txt")); string(data) != "fresh\n" {
		t.Errorf("new file = %q", data)
	}
}

func TestGlobAndGrep(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("src/a.go", "package src\nfunc Hello() {}\n")
	f.write("src/b.go", "package src\n// 你好 world\n")
	f.write("docs/x.md", "hello docs\n")
	f.write("node_modules/m/y.go", "func Hello() {}\n")
	a := f.agent(Options{})
	out := mustCall(t, a, "Glob", `{"pattern":"**/*.go"}`)
	if !strings.Contains(out, filepath.Join(f.dir, "src/a.go")) || !strings.Contains(out, "src/b.go") || strings.Contains(out, "node_modules") {
		t.Errorf("Glob = %q", out)
	}
	out = mustCall(t, a, "Grep", `{"pattern":"hello","-i":true}`)
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "docs/x.md") || !strings.Contains(out, "src/a.go") {
		t.Errorf("Grep files = %q", out)
	}
	out = mustCall(t, a, "Grep", `{"pattern":"你好","output_mode":"content"}`)
	if !strings.HasSuffix(strings.TrimSpace(out), "src/b.go:2:// 你好 world") {
		t.Errorf("Grep content = %q", out)
	}
	out = mustCall(t, a, "Grep", `{"pattern":"package","output_mode":"count","glob":"*.go"}`)
	if !strings.Contains(out, "a.go:1") || !strings.Contains(out, "b.go:1") {
		t.Errorf("Grep count = %q", out)
	}
	if _, err := call(t, a, "Grep", `{"pattern":"("}`); err == nil {
		t.Errorf("bad regexp accepted")
	}
	out = mustCall(t, a, "Grep", `{"pattern":"package","head_limit":1}`)
	if !strings.Contains(out, "output cut at 1 lines") {
		t.Errorf("head_limit: %q", out)
	}
}

func TestBash(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	out := mustCall(t, a, "Bash", `{"command":"pwd; echo 中文"}`)
	if out != a.Cwd()+"\n中文\n" {
		t.Errorf("Bash = %q", out)
	}
	if _, err := call(t, a, "Bash", `{"command":"echo oops >&2; exit 3"}`); err == nil || err.Error() != "oops\n[exit code 3]" {
		t.Errorf("failing command: %v", err)
	}
	if _, err := call(t, a, "Bash", `{"command":"sleep 5","timeout":100}`); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("timeout: %v", err)
	}
	out = mustCall(t, a, "Bash", `{"command":"yes x | head -c 100000"}`)
	if len(out) > tool.BashMaxOutput+300 || !strings.Contains(out, "output cut") {
		t.Errorf("output of %d bytes, no cut note", len(out))
	}
}

func TestTodoWrite(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{})
	mustCall(t, a, "TodoWrite", `{"todos":[{"content":"Run tests","activeForm":"Running tests","status":"in_progress"},{"content":"Fix","activeForm":"Fixing","status":"pending"}]}`)
	if got := a.Todos(); len(got) != 2 || got[0].Content != "Run tests" {
		t.Errorf("todos = %+v", got)
	}
	if _, err := call(t, a, "TodoWrite", `{"todos":[{"content":"a","activeForm":"A","status":"in_progress"},{"content":"b","activeForm":"B","status":"in_progress"}]}`); err == nil {
		t.Errorf("two items in progress accepted")
	}
}

func TestMemoryTools(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{})
	out := mustCall(t, a, "memory_save", `{"name":"commit style","description":"How the user wants commit messages written","type":"feedback","body":"Imperative mood, under 60 characters.\n**Why:** the user said so.\n**How to apply:** every commit."}`)
	if !strings.Contains(out, "Saved new memory") {
		t.Errorf("save = %q", out)
	}
	mustCall(t, a, "memory_save", `{"name":"部署流程","description":"部署到生产环境的步骤","type":"project","body":"先跑测试，再部署。"}`)
	out = mustCall(t, a, "memory_search", `{"query":"commit messages"}`)
	if !strings.Contains(out, "commit style") {
		t.Errorf("search = %q", out)
	}
	out = mustCall(t, a, "memory_search", `{"query":"部署"}`)
	if !strings.Contains(out, "部署流程") {
		t.Errorf("CJK search = %q", out)
	}
	if _, err := call(t, a, "memory_save", `{"name":"key","description":"api key","type":"reference","body":"ANTHROPIC_API_KEY=sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`); err == nil {
		t.Errorf("a secret was saved")
	}
	out = mustCall(t, a, "memory_forget", `{"name":"commit style"}`)
	if !strings.Contains(out, "Forgot") {
		t.Errorf("forget = %q", out)
	}
	// The archived memory is logged, so `strata memory restore` can put it back.
	if recs, err := memdir.ReadArchiveLog(a.MemoryDir()); err != nil || len(memdir.Restorable(recs)) != 1 || recs[0].Action != memdir.ActionArchive {
		t.Errorf("archive log after forget: %+v, %v", recs, err)
	}
	if out := mustCall(t, a, "memory_search", `{"query":"commit messages"}`); strings.Contains(out, "commit style") {
		t.Errorf("forgotten memory still found: %q", out)
	}
}

func TestTouchQueuesNestedInstructionsAndRules(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("CLAUDE.md", "Top rule.\n")
	f.write("pkg/CLAUDE.md", "Nested rule for pkg.\n")
	f.write(".claude/rules/go.md", "---\npaths: \"**/*.go\"\n---\nGo files use gofmt.\n")
	f.write("pkg/x.go", "package pkg\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"pkg/x.go"}`)),
		llmtest.Text("done"),
	)
	a := f.agent(Options{})
	var rec recorder
	if _, err := a.Run(context.Background(), "read it", rec.sink); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	sys0, _ := json.Marshal(reqs[0].At("system"))
	if !strings.Contains(string(sys0), "Top rule.") || strings.Contains(string(sys0), "Nested rule") {
		t.Errorf("first request's system: want the top CLAUDE.md only")
	}
	text := lastUserText(reqs[1])
	if !strings.Contains(text, "Nested rule for pkg.") || !strings.Contains(text, "Go files use gofmt.") || !strings.Contains(text, "<system-reminder>") {
		t.Errorf("second request's tail lacks the touched instructions: %q", text)
	}
	sys1, _ := json.Marshal(reqs[1].At("system"))
	if string(sys0) != string(sys1) {
		t.Errorf("system changed between requests")
	}
}
