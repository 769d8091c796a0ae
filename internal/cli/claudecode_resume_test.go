package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
)

// ccResume is a scratch HOME and project in which the real Claude Code and strata take turns
// on one session, both talking to one fake Messages API.
type ccResume struct {
	t               *testing.T
	bin, strata     string
	dir, home, proj string
	srv             *llmtest.Server
}

var readAsk = regexp.MustCompile(`READ:(\S+)`)

func newCCResume(t *testing.T) *ccResume {
	bin := os.Getenv("STRATA_CLAUDE_CODE")
	if bin == "" {
		t.Skip("STRATA_CLAUDE_CODE is not set: no Claude Code to compare with (.ci/run installs it)")
	}
	strata, err := exec.LookPath("strata")
	if err != nil {
		t.Skipf("strata is not in PATH (testscript.Main sets it up): %v", err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &ccResume{t: t, bin: bin, strata: strata, dir: dir, home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj")}
	for _, d := range []string{"home/.claude", "proj/.git"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"b.txt": "beta contents 中文\n", "CLAUDE.md": "Answer briefly.\n"} {
		if err := os.WriteFile(filepath.Join(c.proj, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c.srv = llmtest.NewAnthropic(t)
	var calls atomic.Int64
	c.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		text, results := lastUser(r.JSON)
		if m := readAsk.FindStringSubmatch(text); m != nil && !results {
			input, _ := json.Marshal(map[string]string{"file_path": filepath.Join(c.proj, m[1])})
			return llmtest.Blocks(llmtest.ToolUse(fmt.Sprintf("toolu_%02d", calls.Add(1)), "Read", string(input)))
		}
		if strings.Contains(strings.ToLower(text), "summary") {
			return llmtest.Text("<summary>SUMMARY OF EARLIER WORK</summary>")
		}
		return llmtest.Text("ok")
	}
	return c
}

func (c *ccResume) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "ANTHROPIC_BASE_URL=" + c.srv.URL,
		"ANTHROPIC_API_KEY=" + llmtest.Key, "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"STRATA_HOME=" + filepath.Join(c.home, ".claude"), "STRATA_NO_BACKGROUND=1", "STRATA_MEMORY_DIR=",
		"XDG_CACHE_HOME=" + filepath.Join(c.dir, "cache"), "TMPDIR=" + os.TempDir()}
}

// run runs Claude Code (cc) or strata in the project and returns stdout.
func (c *ccResume) run(cc bool, args ...string) string {
	c.t.Helper()
	bin := c.strata
	if cc {
		bin, args = c.bin, append([]string{"--allowedTools", "Read"}, args...)
	}
	cmd := exec.CommandContext(c.t.Context(), bin, args...)
	cmd.Dir, cmd.Env = c.proj, c.env()
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		c.t.Fatalf("%s %s: %v\n%s%s", filepath.Base(bin), strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// sent returns the conversation of the first main-loop request whose last user message holds
// prompt: each block as "role: text", the texts of Claude Code's harness reminders left out
// (tool, skill and environment listings, its own loading of CLAUDE.md) and those of file reads
// kept, since both tools send them.
func (c *ccResume) sent(prompt string) []string {
	c.t.Helper()
	var out []string
	msgs, _ := c.request(prompt).At("messages").([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if role == "system" {
			continue
		}
		for _, s := range blockTexts(m["content"]) {
			if strings.HasPrefix(s, "<system-reminder>") && !strings.Contains(s, "the Read tool") {
				continue
			}
			out = append(out, role+": "+headLine(s))
		}
	}
	return out
}

// request returns the newest main-loop request whose last user message ends with prompt.
func (c *ccResume) request(prompt string) llmtest.Request {
	c.t.Helper()
	reqs := c.srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if text, _ := lastUser(reqs[i].JSON); strings.HasSuffix(strings.TrimSpace(text), prompt) && reqs[i].At("tools") != nil {
			return reqs[i]
		}
	}
	c.t.Fatalf("no request sent %q", prompt)
	return llmtest.Request{}
}

// snapshot copies HOME so that both tools can resume the same state.
func (c *ccResume) snapshot() string {
	c.t.Helper()
	dst := filepath.Join(c.dir, "snap")
	os.RemoveAll(dst)
	if out, err := exec.Command("cp", "-a", c.home, dst).CombinedOutput(); err != nil {
		c.t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

func (c *ccResume) restore(snap string) {
	c.t.Helper()
	os.RemoveAll(c.home)
	if out, err := exec.Command("cp", "-a", snap, c.home).CombinedOutput(); err != nil {
		c.t.Fatalf("cp: %v %s", err, out)
	}
}

// TestClaudeCodeResumeParity: strata resumes a session Claude Code compacted (the kept recent
// messages and the re-read file after the summary), and Claude Code resumes a strata session;
// each time both send the same conversation.
func TestClaudeCodeResumeParity(t *testing.T) {
	c := newCCResume(t)
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(c.run(true, "-p", "READ:b.txt please", "--output-format", "json")), &res); err != nil || res.SessionID == "" {
		t.Fatalf("no session id from claude -p: %v", err)
	}
	id := res.SessionID
	c.run(true, "-p", "--resume", id, "third turn plain")
	c.run(true, "-p", "--resume", id, "/compact")
	snap := c.snapshot()

	c.run(true, "-p", "--resume", id, "after compaction")
	theirs := c.sent("after compaction")
	c.restore(snap)
	c.run(false, "run", "--resume", id, "after compaction")
	ours := c.sent("after compaction")
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("resuming Claude Code's compacted session, Claude Code (-) and strata (+):\n%s", diff)
	}
	body := string(c.request("after compaction").Body)
	for _, want := range []string{"SUMMARY OF EARLIER WORK", "beta contents 中文"} {
		if !strings.Contains(body, want) {
			t.Errorf("strata's resumed request lacks %q", want)
		}
	}
	if len(ours) < 3 || !strings.HasPrefix(ours[0], "user: This session is being continued") || ours[1] != "assistant: ok" {
		t.Errorf("strata's resumed request does not go on from the summary with the kept messages: %q", ours)
	}

	// Claude Code resumes the session strata continued, tool call included.
	c.run(false, "run", "--resume", id, "READ:b.txt again")
	snap = c.snapshot()
	c.run(true, "-p", "--resume", id, "and now")
	theirs = c.sent("and now")
	c.restore(snap)
	c.run(false, "run", "--resume", id, "and now")
	ours = c.sent("and now")
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("resuming strata's turns, Claude Code (-) and strata (+):\n%s", diff)
	}
}

// lastUser returns the text of a request's last message (system messages aside) when it is the
// user's, and whether it holds tool results.
func lastUser(body map[string]any) (string, bool) {
	msgs, _ := body["messages"].([]any)
	for len(msgs) > 0 && msgs[len(msgs)-1].(map[string]any)["role"] == "system" {
		msgs = msgs[:len(msgs)-1] // Claude Code 2.1.3xx ends with a system message
	}
	if len(msgs) == 0 {
		return "", false
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	if m["role"] != "user" {
		return "", false
	}
	results := false
	if bs, ok := m["content"].([]any); ok {
		for _, b := range bs {
			if bm, _ := b.(map[string]any); bm["type"] == "tool_result" {
				results = true
			}
		}
	}
	return strings.Join(blockTexts(m["content"]), "\n"), results
}

// blockTexts returns the texts of a message's content (a string or blocks; a tool result's
// content as its text; a tool call as its name and input).
func blockTexts(content any) []string {
	switch c := content.(type) {
	case string:
		return []string{c}
	case []any:
		var out []string
		for _, raw := range c {
			b, _ := raw.(map[string]any)
			switch b["type"] {
			case "text":
				s, _ := b["text"].(string)
				out = append(out, s)
			case "tool_use":
				in, _ := json.Marshal(b["input"])
				out = append(out, fmt.Sprintf("tool_use %v %s", b["name"], in))
			case "tool_result":
				out = append(out, "tool_result "+strings.Join(blockTexts(b["content"]), " "))
			}
		}
		return out
	}
	return nil
}

func headLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "<system-reminder>" {
			return l
		}
	}
	return ""
}

// TestClaudeCodeMemoryIndexParity: the memory index the model is given, by Claude Code (its
// first request) and by strata (strata context), for an index over the line limit with
// frontmatter and a comment (stripped before the limit counts) and for a store without
// MEMORY.md (an index built from the topic files).
func TestClaudeCodeMemoryIndexParity(t *testing.T) {
	long := []string{"---", "name: index", "---", "<!-- kept out of the model's view -->", "# 索引", ""}
	for i := range 230 {
		long = append(long, fmt.Sprintf("- [note %d](note%d.md) — about topic %d", i, i, i))
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"over the limit, frontmatter and a comment", map[string]string{"MEMORY.md": strings.Join(long, "\n") + "\n"}},
		{"no MEMORY.md", map[string]string{
			"user_prefs.md": "---\nname: prefs\ndescription: how the user likes answers\ntype: user\n---\nShort answers.\n",
			"测试.md":         "---\nname: 测试\ndescription: 测试 notes\ntype: project\n---\nRun the tests twice.\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCCResume(t)
			memDir := filepath.Join(c.home, ".claude", "projects", config.Slug(c.proj), "memory")
			if err := os.MkdirAll(memDir, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, text := range tc.files {
				if err := os.WriteFile(filepath.Join(memDir, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c.run(true, "-p", "hello")
			theirs, theirCut := indexSection(t, requestUserText(c.request("hello").JSON), "Contents of "+filepath.Join(memDir, "MEMORY.md")+" (", "</system-reminder>")
			ours, ourCut := indexSection(t, c.run(false, "context"), `<instructions path="`+filepath.Join(memDir, "MEMORY.md")+`"`, "</instructions>")
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("index text, Claude Code (-) and strata (+):\n%s", diff)
			}
			if len(theirs) == 0 || (tc.files["MEMORY.md"] != "") != (theirCut != "") {
				t.Errorf("Claude Code sent %d index lines, cut %q", len(theirs), theirCut)
			}
			if theirCut != ourCut {
				t.Errorf("the cut, Claude Code %q, strata %q", theirCut, ourCut)
			}
		})
	}
}

var cutSays = regexp.MustCompile(`(\d+) of (\d+) lines .*?line (\d+) \(`)

// indexSection returns the lines of the section of text that starts with the line holding
// head and ends at end, without its heading, its warning and blank lines; and the warning's
// figures (lines left out, of how many, first line cut).
func indexSection(t *testing.T, text, head, end string) (lines []string, cut string) {
	t.Helper()
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", head, text)
	}
	body := text[i:]
	if j := strings.Index(body, end); j >= 0 {
		body = body[:j]
	}
	for _, l := range strings.Split(body, "\n")[1:] {
		switch {
		case strings.HasPrefix(l, "> WARNING"):
			if m := cutSays.FindStringSubmatch(l); m != nil {
				cut = strings.Join(m[1:], " ")
			}
		case strings.TrimSpace(l) != "":
			lines = append(lines, l)
		}
	}
	return lines, cut
}
