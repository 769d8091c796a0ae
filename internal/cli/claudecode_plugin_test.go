package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
)

// ccRig is a scratch HOME and project where the real Claude Code runs against the fake
// Messages API with a freshly built strata on its PATH.
type ccRig struct {
	t          *testing.T
	bin        string // Claude Code
	home, proj string
	path       string // PATH with strata's directory first
	srv        *llmtest.Server
	memDir     string
	extraEnv   []string // added to Claude Code's environment (and so its hooks')
}

// builtStrata builds strata into the test's temporary directory (the go tool's cache makes a
// second build a link).
func builtStrata(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "strata")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/strata").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func newCCRig(t *testing.T) *ccRig {
	t.Helper()
	bin := os.Getenv("STRATA_CLAUDE_CODE")
	if bin == "" {
		t.Skip("STRATA_CLAUDE_CODE is not set: no Claude Code to run the hooks and plugin against (.ci/run installs it)")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &ccRig{t: t, bin: bin, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj")}
	for _, d := range []string{filepath.Join(r.home, ".claude"), filepath.Join(r.proj, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r.path = filepath.Dir(builtStrata(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	r.memDir = filepath.Join(r.home, ".claude", "projects", config.Slug(r.proj), "memory")
	if err := os.MkdirAll(r.memDir, 0o700); err != nil {
		t.Fatal(err)
	}
	r.srv = llmtest.NewAnthropic(t)
	return r
}

func (r *ccRig) env() []string {
	return append([]string{"PATH=" + r.path, "HOME=" + r.home, "ANTHROPIC_BASE_URL=" + r.srv.URL, "ANTHROPIC_API_KEY=" + llmtest.Key,
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, r.extraEnv...)
}

// claude runs Claude Code in the project and returns its output; it fails the test when
// Claude Code fails.
func (r *ccRig) claude(args ...string) string {
	r.t.Helper()
	cmd := exec.CommandContext(r.t.Context(), r.bin, args...)
	cmd.Dir, cmd.Env = r.proj, r.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// since returns the requests sent from the n-th on.
func (r *ccRig) since(n int) []llmtest.Request { return r.srv.Requests()[n:] }

// requestText is every text of a request's messages (system role included, as Claude Code
// 2.1.3xx sends hook context), joined.
func requestText(req llmtest.Request) string {
	var b strings.Builder
	msgs, _ := req.JSON["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		switch c := m["content"].(type) {
		case string:
			b.WriteString(c + "\n")
		case []any:
			for _, blk := range c {
				bm, _ := blk.(map[string]any)
				if s, ok := bm["text"].(string); ok {
					b.WriteString(s + "\n")
				}
				if s, ok := bm["content"].(string); ok { // a tool result
					b.WriteString(s + "\n")
				}
				if cs, ok := bm["content"].([]any); ok {
					for _, x := range cs {
						if xm, ok := x.(map[string]any); ok {
							if s, ok := xm["text"].(string); ok {
								b.WriteString(s + "\n")
							}
						}
					}
				}
			}
		}
	}
	return b.String()
}

func anyRequestHas(reqs []llmtest.Request, s string) bool {
	for _, r := range reqs {
		if strings.Contains(requestText(r), s) {
			return true
		}
	}
	return false
}

// lastUserJSON is the last user message of a request, as JSON (Claude Code may put a system
// message after it).
func lastUserJSON(req llmtest.Request) string {
	msgs, _ := req.JSON["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, _ := msgs[i].(map[string]any); m["role"] == "user" {
			b, _ := json.Marshal(m)
			return string(b)
		}
	}
	return ""
}

// toolResult returns the text of the result of the tool call id in reqs ("" when none).
func toolResult(reqs []llmtest.Request, id string) string {
	for _, req := range reqs {
		msgs, _ := req.JSON["messages"].([]any)
		for _, raw := range msgs {
			m, _ := raw.(map[string]any)
			blocks, _ := m["content"].([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if bm["type"] == "tool_result" && bm["tool_use_id"] == id {
					j, _ := json.Marshal(bm["content"])
					return string(j)
				}
			}
		}
	}
	return ""
}

// TestClaudeCodePlugin installs the plugin from this repository's marketplace into the real
// Claude Code and checks, request by request: a memory that only its body matches reaches the
// model after UserPromptSubmit; after /compact the first request and a /strata:pin message
// are in the next request, from SessionStart; memory_search and session_search called
// through Claude Code return results, session search with the command that resumes; at
// SessionEnd the extractor, run in the background on the session, proposes a memory in the
// inbox.
func TestClaudeCodePlugin(t *testing.T) {
	r := newCCRig(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	r.claude("plugin", "marketplace", "add", repo)
	r.claude("plugin", "install", "strata@strata")
	mem := "---\nname: release\ndescription: how we ship\ntype: project\n---\nRun the zebracorn migration before tagging.\n"
	if err := os.WriteFile(filepath.Join(r.memDir, "release.md"), []byte(mem), 0o600); err != nil {
		t.Fatal(err)
	}
	const (
		memTool  = "mcp__plugin_strata_strata__memory_search"
		sessTool = "mcp__plugin_strata_strata__session_search"
	)
	r.srv.Fallback = func(req llmtest.Request) llmtest.Reply {
		last := lastUserJSON(req)
		switch {
		case strings.Contains(last, "create a detailed summary of the conversation"):
			return llmtest.Text("<analysis>short</analysis>\n<summary>1. Primary Request: the zebracorn step.</summary>")
		case strings.Contains(last, "Look at the last") && !strings.Contains(last, "tool_result"): // strata memory extract
			return llmtest.Blocks(llmtest.ToolUse("toolu_x", "memory_save",
				`{"name":"zebracorn order","description":"the zebracorn step comes before tagging","type":"project","body":"Migrate, then tag."}`))
		case strings.Contains(last, "tool_result"):
			return llmtest.Text("done")
		case strings.Contains(last, "CALL-MEMORY-SEARCH"):
			return llmtest.Blocks(llmtest.ToolUse("toolu_1", memTool, `{"query":"zebracorn"}`))
		case strings.Contains(last, "CALL-SESSION-SEARCH"):
			return llmtest.Blocks(llmtest.ToolUse("toolu_2", sessTool, `{"query":"zebracorn"}`))
		}
		return llmtest.Text("ok")
	}
	const first = "What do we do about the zebracorn step?"
	const id = "0a1b2c3d-1111-4111-8111-111111111111"
	n := len(r.srv.Requests())
	r.claude("-p", first, "--session-id", id)
	if !anyRequestHas(r.since(n), "Run the zebracorn migration before tagging.") {
		t.Fatalf("the memory only its body matches is in no request after UserPromptSubmit")
	}
	// SessionEnd started strata memory extract, detached: wait for its proposal and its cursor
	// (written last), then keep later sessions' background work off so none outlives the test.
	staged := filepath.Join(r.memDir, ".inbox", "zebracorn-order.md")
	cursors := filepath.Join(r.home, ".cache", "strata", "extract", "*.json")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := os.Stat(staged)
		done, _ := filepath.Glob(cursors)
		if err == nil && len(done) > 0 {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(r.home, ".strata", "logs", "extract.log"))
			hook, _ := os.ReadFile(filepath.Join(r.home, ".strata", "logs", "hook.log"))
			t.Fatalf("no proposal from SessionEnd's extraction after 60 s (staged: %v, cursors %v)\nextract.log: %s\nhook.log: %s", err, done, log, hook)
		}
	}
	if _, err := os.Stat(filepath.Join(r.memDir, "zebracorn-order.md")); err == nil {
		t.Errorf("the extracted memory was written live, not proposed in the inbox")
	}
	r.extraEnv = append(r.extraEnv, "STRATA_NO_BACKGROUND=1")

	r.claude("-p", "/strata:pin Never edit files under vendor/.", "--resume", id)
	r.claude("-p", "/compact", "--resume", id)
	n = len(r.srv.Requests())
	r.claude("-p", "what next?", "--resume", id)
	var carriedCtx string
	for _, req := range r.since(n) {
		txt := requestText(req)
		if i := strings.Index(txt, "SessionStart hook additional context: The conversation was just compacted."); i >= 0 {
			carriedCtx = txt[i:] // what strata's hook added, and what follows it
		}
	}
	for _, want := range []string{first, "Never edit files under vendor/."} {
		if !strings.Contains(carriedCtx, want) {
			t.Errorf("after /compact, no request has SessionStart's context with %q", want)
		}
	}

	r.claude("-p", "CALL-MEMORY-SEARCH", "--allowedTools", memTool)
	if res := toolResult(r.srv.Requests(), "toolu_1"); !strings.Contains(res, "release.md") {
		t.Errorf("memory_search through Claude Code: result %s, want release.md", res)
	}
	r.claude("-p", "CALL-SESSION-SEARCH", "--allowedTools", sessTool)
	if res := toolResult(r.srv.Requests(), "toolu_2"); !strings.Contains(res, "claude --resume "+id) {
		t.Errorf("session_search through Claude Code: result %s, want the earlier session and its resume command", res)
	}
}

// TestClaudeCodeHookTrouble installs the hooks with strata setup claude-code and makes strata's
// UserPromptSubmit hook fail (its memory directory is a file) and then overrun its time budget:
// each time Claude Code's turn goes through untouched, and the hook log says what happened.
func TestClaudeCodeHookTrouble(t *testing.T) {
	r := newCCRig(t)
	app, _, errb := testApp(t)
	app.Env = config.Env{Home: filepath.Join(r.home, ".strata"), ManagedDir: filepath.Join(r.home, "managed"), UserHome: r.home}
	if code := Run(app, []string{"setup", "claude-code"}); code != 0 {
		t.Fatalf("setup claude-code: exit %d: %s", code, errb)
	}
	r.srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("the answer stands") }
	r.extraEnv = []string{"STRATA_NO_BACKGROUND=1"} // no extraction outliving the test
	if err := os.RemoveAll(r.memDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.memDir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(r.home, ".strata", "logs", "hook.log")
	turn := func(prompt string) {
		t.Helper()
		n := len(r.srv.Requests())
		start := time.Now()
		out := r.claude("-p", prompt)
		if !strings.Contains(out, "the answer stands") {
			t.Errorf("the turn's answer is missing: %q", out)
		}
		if !anyRequestHas(r.since(n), prompt) {
			t.Errorf("the prompt %q did not reach the model", prompt)
		}
		t.Logf("turn took %s", time.Since(start))
	}
	turn("first prompt with a broken memory dir")
	b, _ := os.ReadFile(logPath)
	if !strings.Contains(string(b), "strata hook UserPromptSubmit") {
		t.Errorf("hook log after the failing hook: %q", b)
	}

	// Slow: the installed command now gives up at once.
	settings := filepath.Join(r.home, ".claude", "settings.json")
	doc, _ := os.ReadFile(settings)
	doc = []byte(strings.Replace(string(doc), `"strata hook UserPromptSubmit"`, `"strata hook UserPromptSubmit --timeout 1ns"`, 1))
	if err := os.WriteFile(settings, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	turn("second prompt past the hook's budget")
	b, _ = os.ReadFile(logPath)
	if !strings.Contains(string(b), "gave up after 1ns") {
		t.Errorf("hook log after the slow hook: %q", b)
	}
}
