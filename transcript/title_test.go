package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTitleOrder(t *testing.T) {
	for _, c := range []struct{ custom, ai, summary, prompt, want string }{
		{"mine", "ai", "sum", "prompt", "mine"},
		{"", "ai", "sum", "prompt", "ai"},
		{"", "", "sum", "prompt", "sum"},
		{"", "", "", "prompt", "prompt"},
		{" ", "", "", "prompt", "prompt"},
		{"", "", "", "", ""},
	} {
		if got := Title(c.custom, c.ai, c.summary, c.prompt, ""); got != c.want {
			t.Errorf("Title(%q, %q, %q, %q) = %q, want %q", c.custom, c.ai, c.summary, c.prompt, got, c.want)
		}
	}
}

func TestFirstPromptRules(t *testing.T) {
	cmdText := func(name, args string) string {
		return fmt.Sprintf("<command-message>%s is running…</command-message>\n<command-name>%s</command-name>\n<command-args>%s</command-args>", strings.TrimPrefix(name, "/"), name, args)
	}
	long := strings.Repeat("长", 250)
	for _, c := range []struct {
		name  string
		texts []string
		want  string
	}{
		{"plain", []string{"fix the login bug"}, "fix the login bug"},
		{"newlines flattened", []string{"  fix\nthe bug  "}, "fix the bug"},
		{"built-in command alone names the session", []string{cmdText("/init", "")}, "/init"},
		{"a real prompt after a command wins", []string{cmdText("/init", ""), "<local-command-stdout>done</local-command-stdout>", "now add tests"}, "now add tests"},
		{"custom command with arguments", []string{cmdText("/orchestrator", "create TODO app")}, "/orchestrator create TODO app"},
		{"custom command without arguments is a fallback", []string{cmdText("/deploy", ""), "ship it"}, "ship it"},
		{"built-in command arguments say little", []string{cmdText("/model", "sonnet")}, "/model"},
		{"first command is the fallback", []string{cmdText("/clear", ""), cmdText("/model", "opus")}, "/clear"},
		{"shell mode", []string{"<bash-input>go test ./...</bash-input>"}, "! go test ./..."},
		{"tags, caveats and interruptions skipped", []string{"<system-reminder>x</system-reminder>", "Caveat: The messages below were generated", "[Request interrupted by user]", "real"}, "real"},
		{"an uppercase opening is a prompt", []string{"<Foo> is a component"}, "<Foo> is a component"},
		{"cut at 200 code units", []string{long}, strings.Repeat("长", 200) + "…"},
		{"astral characters take two units", []string{strings.Repeat("😀", 101)}, strings.Repeat("😀", 100) + "…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p promptScan
			for _, x := range c.texts {
				if p.text(x) {
					break
				}
			}
			if got := p.result(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// writeLines writes a transcript of the given lines.
func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func userLine(uuid, parent, content string) string {
	c, _ := json.Marshal(content)
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"cwd":"/w","sessionId":"s","gitBranch":"dev","type":"user","message":{"role":"user","content":%s},"uuid":"%s","timestamp":"2026-03-01T10:00:00.000Z"}`, p, c, uuid)
}

func assistantLine(uuid, parent, text string) string {
	c, _ := json.Marshal(text)
	return fmt.Sprintf(`{"parentUuid":"%s","isSidechain":false,"cwd":"/w","sessionId":"s","gitBranch":"dev","message":{"id":"msg_%s","role":"assistant","content":[{"type":"text","text":%s}]},"type":"assistant","uuid":"%s","timestamp":"2026-03-01T10:00:01.000Z"}`, parent, uuid, c, uuid)
}

// TestTitlesAgree: listing (Stat) and a loaded session give the same title, by the same rule,
// for summaries of this and of another session, commands, titles, and a file large enough that
// the summary's leaf is outside the windows listing reads.
func TestTitlesAgree(t *testing.T) {
	dir := t.TempDir()
	pad := strings.Repeat("padding ", 20000) // 160 KB: the middle of the file is not read by listing
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"foreign summary", []string{`{"type":"summary","summary":"Another session","leafUuid":"elsewhere"}`, userLine("u1", "", "first prompt"), assistantLine("a1", "u1", "ok")}, "first prompt"},
		{"own summary", []string{userLine("u1", "", "first prompt"), assistantLine("a1", "u1", "ok"), `{"type":"summary","summary":"This session","leafUuid":"a1"}`}, "This session"},
		{"own summary, leaf in the middle", []string{userLine("u1", "", "first prompt"), assistantLine("a1", "u1", pad), assistantLine("a2", "a1", "mid"), assistantLine("a3", "a2", pad),
			`{"type":"summary","summary":"Later foreign","leafUuid":"gone"}`, `{"type":"summary","summary":"Middle leaf","leafUuid":"a2"}`, `{"type":"summary","summary":"Newest foreign","leafUuid":"gone2"}`}, "Middle leaf"},
		{"summary naming only another summary", []string{userLine("u1", "", "first prompt"), `{"type":"summary","summary":"Loop","leafUuid":"x"}`, `{"type":"summary","summary":"Names x","leafUuid":"u1x"}`}, "first prompt"},
		{"ai title over summary", []string{userLine("u1", "", "p"), `{"type":"summary","summary":"S","leafUuid":"u1"}`, `{"type":"ai-title","aiTitle":"AI","sessionId":"s"}`}, "AI"},
		{"custom title over all", []string{userLine("u1", "", "p"), `{"type":"ai-title","aiTitle":"AI","sessionId":"s"}`, `{"type":"custom-title","customTitle":"我的标题","sessionId":"s"}`}, "我的标题"},
		{"slash command", []string{userLine("u1", "", "<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>"), assistantLine("a1", "u1", "ok")}, "/orchestrator create TODO app"},
		{"init", []string{userLine("u1", "", "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>"), assistantLine("a1", "u1", "ok")}, "/init"},
		{"message before type", []string{`{"parentUuid":null,"message":{"role":"user","content":[{"type":"text","text":"message first"}]},"type":"user","uuid":"u1"}`}, "message first"},
		{"meta and tool results skipped", []string{
			`{"parentUuid":null,"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: meta"},"uuid":"m1"}`,
			`{"parentUuid":"m1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"out"}]},"uuid":"r1"}`,
			userLine("u1", "r1", "the real one")}, "the real one"},
		// A file of summaries only: 2.1.328's resume list shows the latest (measured).
		{"summaries only", []string{`{"type":"summary","summary":"First foreign","leafUuid":"zz1"}`, `{"type":"summary","summary":"Second foreign","leafUuid":"zz2"}`}, "Second foreign"},
		// Claude Code 2.1.328's resume list shows a long prompt's first 200 characters, then "…".
		{"long prompt", []string{userLine("u1", "", "start"+strings.Repeat(" abcdefghij", 30))},
			"start" + strings.Repeat(" abcdefghij", 17) + " abcdefg…"},
		{"long custom title on one line", []string{userLine("u1", "", "p"), `{"type":"custom-title","customTitle":"` + strings.Repeat(`标题\n`, 120) + `","sessionId":"s"}`},
			strings.TrimSpace(strings.Repeat("标题 ", 67)) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLines(t, filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".jsonl"), c.lines...)
			info, err := Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load(t.Context(), path, ReadOptions{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			if info.Title != c.want || s.Title() != c.want {
				t.Errorf("listing %q, session %q, want %q", info.Title, s.Title(), c.want)
			}
		})
	}
}

// spacedJSON rewrites each line of a transcript as JSON with a space after every colon, on one
// line: what Python's json.dumps and other writers produce.
func spacedJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'}) {
		var ind bytes.Buffer
		if err := json.Indent(&ind, l, "", ""); err != nil {
			out.Write(l) // not JSON: kept as it is
		} else {
			out.Write(bytes.ReplaceAll(ind.Bytes(), []byte{'\n'}, nil))
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestListSpacedJSON is issue 15's case: valid JSONL written with ": " spacing lists with the
// same title, branch, cwd and times as the compact form.
func TestListSpacedJSON(t *testing.T) {
	dir := t.TempDir()
	compact := writeLines(t, filepath.Join(dir, "compact.jsonl"),
		userLine("u1", "", "写一个解析器"), assistantLine("a1", "u1", "ok"),
		`{"type":"custom-title","customTitle":"Parser","sessionId":"s"}`, `{"type":"tag","tag":"wip","sessionId":"s"}`)
	data, _ := os.ReadFile(compact)
	spaced := filepath.Join(dir, "spaced.jsonl")
	sp := spacedJSON(t, data)
	if !bytes.Contains(sp, []byte(`"type": "user"`)) {
		t.Fatalf("not spaced: %s", sp)
	}
	os.WriteFile(spaced, sp, 0o600)
	want, err := Stat(compact)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Stat(spaced)
	if err != nil {
		t.Fatal(err)
	}
	want.ID, want.Path, want.Size = got.ID, got.Path, got.Size
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spaced listing (-compact +spaced):\n%s", diff)
	}
	if got.Title != "Parser" || got.FirstPrompt != "写一个解析器" || got.Branch != "dev" || got.CWD != "/w" || got.Tag != "wip" {
		t.Errorf("spaced = %+v", got)
	}

	// Without a custom title the first prompt is the title, spaced or not.
	noTitle := writeLines(t, filepath.Join(dir, "nt.jsonl"), userLine("u1", "", "hello there"))
	d2, _ := os.ReadFile(noTitle)
	os.WriteFile(noTitle, spacedJSON(t, d2), 0o600)
	if i, _ := Stat(noTitle); i.Title != "hello there" {
		t.Errorf("spaced untitled = %q", i.Title)
	}
}

// TestCorpusTitles pins the title of every real session and checks that listing and loading
// agree. Four 1.0.x sessions open with summaries of the session they continued (leafUuid not in
// the file): their own title is their first prompt, not the last of those summaries.
func TestCorpusTitles(t *testing.T) {
	dir := corpusDir(t)
	want := map[string]string{
		// A 2.0 session summarised three times; the leaves are in the file.
		"Crazytieguy__alignment-hive__6f2580aa.jsonl": "Parallel scan of 53 session files for sensitive data before commit",
		// Foreign summaries (1.0.x resumed sessions): the first prompt.
		"chiphuyen__sniffly__d3ad4cdc.jsonl":                         "create a jupyter notebook file so that i can test each step of the way",
		"handgemacht-ai__claude-code-log__cclsample__07f2e15c.jsonl": "Can you please update the top level index.html",
		"handgemacht-ai__claude-code-log__cclsample__37f83ec9.jsonl": "Hey Claude, please have a look at the git diff of claude_code_log/renderer.py",
		"handgemacht-ai__claude-code-log__cclsample__fe869ecb.jsonl": "Hey Claude, can you please add a Github Action to run tests and linting?",
		// A custom slash command with arguments (Japanese).
		"d-kimuson__claude-code-viewer__5c0375b4.jsonl": "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください",
		// Shell-mode input is the first prompt.
		"handgemacht-ai__claude-code-log__cclsample__12a546d1.jsonl": "! uv run pytest -m browser -v",
		"marot__spotter__258c7280.jsonl":                             "Implement spotter-gqc",
		// Subagent transcripts: their task.
		"marot__spotter__258c7280__subagents__agent-a881341.jsonl": "What is the output contract for Claude Code hooks",
		// Nothing to show.
		"handgemacht-ai__claude-code-log__cclsample__4fe49c7c_empty.jsonl":                   "",
		"slopus__happy-cli__duplicate-assistant-response-2_NOT_JSON.jsonl":                   "",
		"handgemacht-ai__claude-code-log__crhelper__agent-659acfed.jsonl":                    "",
		"handgemacht-ai__claude-code-log__worktrees__ef958aa1.jsonl":                         "OK, we're going to make a little experiment here.",
		"handgemacht-ai__claude-code-log__claudep__29ccd257.jsonl":                           "Use the Explore task in sub-agents with Haiku model",
		"handgemacht-ai__claude-code-log__ideas__03eb5929.jsonl":                             "Ok, so there's isn't much to see here",
		"handgemacht-ai__claude-code-log__crhelper__cb2e607c.jsonl":                          "How can I make this possible to install as a library with `uv`",
		"marot__spotter__short.jsonl":                                                        "mix phx.server doesnt seem to start",
		"marot__spotter__tool_heavy.jsonl":                                                   "start phoenix in background",
		"handgemacht-ai__claude-code-log__ddnext__9e953218.jsonl":                            "I have @public/tokenizer.css",
		"handgemacht-ai__claude-code-log__crhelper__agent-668b5ac2.jsonl":                    "Investigate two issues in extract-coderabbit-feedback.py",
		"d-kimuson__claude-code-viewer__agent-test-hash-123.jsonl":                           "Run the test suite",
		"marot__spotter__258c7280__subagents__agent-acompact-fffbd0.jsonl":                   "Your task is to create a detailed summary of the conversation so far",
		"handgemacht-ai__claude-code-log__claudep__29ccd257__subagents__agent-a2271d1.jsonl": "Give me a comprehensive overview of the code organization",
	}
	// The one user line of this file is larger than the window listing reads (an image):
	// listing cannot see its prompt; loading can.
	headTooSmall := map[string]bool{"handgemacht-ai__claude-code-log__debug_image_message.jsonl": true}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			info, err := Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load(t.Context(), p, ReadOptions{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			loaded := s.Title()
			if !headTooSmall[name] && info.Title != loaded {
				t.Errorf("listing says %q, loading %q", info.Title, loaded)
			}
			if w, ok := want[name]; ok && (!strings.HasPrefix(info.Title, w) || w == "" && info.Title != "") {
				t.Errorf("title %q, want %q…", info.Title, w)
			}
		})
	}
}
