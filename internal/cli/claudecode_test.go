package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm/llmtest"
)

// claudeCodeFile is how Claude Code names each instruction file in its first request.
var claudeCodeFile = regexp.MustCompile(`(?m)^Contents of (.+?) \(`)

// TestClaudeCodeParity runs the real Claude Code (the binary STRATA_CLAUDE_CODE names; .ci/run
// installs 2.1.328) against the fake Messages API on fixtures of each shape, and checks that
// strata loads the same instruction files in the same order as the request Claude Code sends.
// Differences strata keeps on purpose are listed in docs/claude-code.md.
func TestClaudeCodeParity(t *testing.T) {
	bin := os.Getenv("STRATA_CLAUDE_CODE")
	if bin == "" {
		t.Skip("STRATA_CLAUDE_CODE is not set: no Claude Code to compare with (.ci/run installs it)")
	}
	cases := []struct {
		name  string
		files map[string]string // under the temp dir: home/ is HOME, proj/ a git repository
		cwd   string
	}{
		{"AGENTS.md when no CLAUDE.md is on the way", map[string]string{
			"proj/AGENTS.md": "root agents\n", "proj/sub/AGENTS.md": "sub agents\n", "proj/CLAUDE.local.md": ""}, "proj/sub"},
		{"a CLAUDE.md anywhere on the way: no AGENTS.md", map[string]string{
			"proj/AGENTS.md": "root agents\n", "proj/sub/AGENTS.md": "sub agents\n", "proj/sub/CLAUDE.md": "sub\n"}, "proj/sub"},
		{"a .claude/CLAUDE.md and a local file", map[string]string{
			"proj/AGENTS.md": "root agents\n", "proj/.claude/CLAUDE.md": "dot claude\n", "proj/CLAUDE.local.md": "local\n"}, "proj"},
		{"the user's CLAUDE.md imports from home; AGENTS.md still read", map[string]string{
			"home/.claude/CLAUDE.md": "user @~/notes/x.md\n", "home/notes/x.md": "note\n", "proj/AGENTS.md": "agents\n"}, "proj"},
		{"imports stop after 4 hops", map[string]string{
			"proj/CLAUDE.md": "top @f1.md\n", "proj/f1.md": "1 @f2.md\n", "proj/f2.md": "2 @f3.md\n", "proj/f3.md": "3 @f4.md\n",
			"proj/f4.md": "4 @f5.md\n", "proj/f5.md": "5\n"}, "proj"},
		{"a project's imports stay inside the cwd, home included", map[string]string{
			"proj/CLAUDE.md": "root @docs/x.md @~/.claude/mine.md\n", "proj/docs/x.md": "x\n", "home/.claude/mine.md": "mine\n",
			"proj/sub/CLAUDE.md": "sub @../docs/y.md @z.md\n", "proj/docs/y.md": "y\n", "proj/sub/z.md": "z\n"}, "proj/sub"},
		{"nested CLAUDE.md files from the root down; 中文 names", map[string]string{
			"proj/CLAUDE.md": "root\n", "proj/a/CLAUDE.md": "a\n", "proj/a/b/CLAUDE.md": "b\n", "proj/a/b/c/CLAUDE.md": "below the cwd\n",
			"proj/a/b/规则.md": "rule\n", "proj/a/CLAUDE.local.md": "a local\n"}, "proj/a/b"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for rel, text := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range []string{"home/.claude", "proj/.git"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			cwd := filepath.Join(dir, filepath.FromSlash(tt.cwd))
			home := filepath.Join(dir, "home")

			srv := llmtest.NewAnthropic(t)
			srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") }
			cmd := exec.CommandContext(t.Context(), bin, "-p", "hello")
			cmd.Dir = cwd
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL,
				"ANTHROPIC_API_KEY=" + llmtest.Key, "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("claude -p: %v\n%s", err, out)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("Claude Code sent no request")
			}
			var theirs []string
			for _, m := range claudeCodeFile.FindAllStringSubmatch(requestUserText(reqs[0].JSON), -1) {
				theirs = append(theirs, relTo(dir, m[1]))
			}

			set, err := instructions.Load(t.Context(), cwd, instructions.Options{Env: config.Env{
				Home: filepath.Join(home, ".claude"), UserHome: home}})
			if err != nil {
				t.Fatal(err)
			}
			var ours []string
			for _, src := range set.Sources() {
				ours = append(ours, relTo(dir, src.Path))
			}
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("instruction files, Claude Code (-) and strata (+):\n%s", diff)
			}
		})
	}
}

// requestUserText joins the text of the user messages of a Messages API request body.
func requestUserText(body map[string]any) string {
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			b.WriteString(c + "\n")
		case []any:
			for _, blk := range c {
				if bm, ok := blk.(map[string]any); ok {
					if s, ok := bm["text"].(string); ok {
						b.WriteString(s + "\n")
					}
				}
			}
		}
	}
	return b.String()
}

func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
