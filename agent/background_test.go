package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/workspace"
)

func ptr[T any](v T) *T { return &v }

// extractSettings turns extraction on and the other background work off, so the scripted
// replies go to the main agent and the extractor only.
func extractSettings(mode string) *config.Settings {
	return &config.Settings{MemoryExtraction: mode, SessionNotesEnabled: ptr(false), AutoDreamEnabled: ptr(false)}
}

// waitFor polls cond (background work runs on its own goroutines); it fails after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastUserText returns the text blocks of a recorded request's last message.
func lastText(r llmtest.Request) string {
	msgs, _ := r.At("messages").([]any)
	if len(msgs) == 0 {
		return ""
	}
	var b strings.Builder
	switch c := llmtest.At(msgs[len(msgs)-1], "content").(type) {
	case string:
		b.WriteString(c)
	case []any:
		for _, x := range c {
			s, _ := llmtest.At(x, "text").(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

const buildMemory = "---\nname: build tool\ndescription: The project builds with mage, never make\ntype: project\n---\nRun `mage build`; the Makefile is stale. 构建用 mage。\n"

// The extractor's first request is the main agent's last request plus two messages: the
// system prompt, the tools and every message before are byte-identical, cache markers
// included, so the prompt cache is shared.
func TestExtractionSharesTheMainPrefix(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			f.background = true
			a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("")}})
			mem := filepath.Join(a.MemoryDir(), "build-tool.md")
			f.srv.Script(
				llmtest.Blocks(llmtest.ToolUse("r1", "Read", `{"file_path":"go.mod"}`)),
				llmtest.Text("Noted: mage, not make."),
				llmtest.Blocks(llmtest.ToolUse("x1", "Write", fmt.Sprintf(`{"file_path":%q,"content":%q}`, mem, buildMemory))),
				llmtest.Text("Saved one memory."),
			)
			f.write("go.mod", "module example\n")
			if _, err := a.Run(t.Context(), "We build with mage, never make. Check go.mod.", nil); err != nil {
				t.Fatal(err)
			}
			if err := a.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 2 main + 2 extraction", len(reqs))
			}
			main, fork := bytes.TrimSpace(reqs[1].Body), reqs[2].Body
			if !bytes.HasSuffix(main, []byte("]}")) {
				t.Fatalf("the main request does not end with its messages: ...%s", main[max(0, len(main)-40):])
			}
			shared := main[:len(main)-2]
			if !bytes.HasPrefix(fork, shared) {
				n := commonPrefix(shared, fork)
				t.Fatalf("the extractor's request shares %d of %d bytes of the main request's prefix; they differ at ...%s... vs ...%s...",
					n, len(shared), shared[max(0, n-60):min(len(shared), n+60)], fork[max(0, n-60):min(len(fork), n+60)])
			}
			if !strings.Contains(lastText(reqs[2]), a.MemoryDir()) {
				t.Error("the extractor's instruction does not name the memory dir")
			}
			data, err := os.ReadFile(mem)
			if err != nil || string(data) != buildMemory {
				t.Fatalf("memory file: %q, %v", data, err)
			}
			idx, _ := os.ReadFile(filepath.Join(a.MemoryDir(), "MEMORY.md"))
			if !strings.Contains(string(idx), "build-tool.md") {
				t.Errorf("MEMORY.md does not list the new memory:\n%s", idx)
			}
			bg := a.Background()
			if bg.Extractions != 1 || bg.ExtractFailed != 0 || len(bg.Denied) != 0 || !cmp.Equal(bg.Written, []string{"build-tool.md"}) {
				t.Errorf("background stats: %+v", bg)
			}
			// The main conversation does not see the extraction.
			for _, e := range a.History() {
				if strings.Contains(e.Message.TextOf(), "Saved one memory") {
					t.Error("the extractor's reply leaked into the main history")
				}
			}
		})
	}
}

// escapeAttempts returns 100 tool calls that try to change something outside the memory dir
// (or a file of the dir the extractor may not write), and the files and dirs that must stay
// as they are.
func escapeAttempts(t *testing.T, memDir, project, outside string) []conversation.Block {
	t.Helper()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("old text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(memDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(memDir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(memDir, "linked.md")); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	write := func(p string) string { return fmt.Sprintf(`{"file_path":%s,"content":"pwned"}`, q(p)) }
	edit := func(p string) string {
		return fmt.Sprintf(`{"file_path":%s,"old_string":"old","new_string":"pwned"}`, q(p))
	}
	bash := func(c string) string { return fmt.Sprintf(`{"command":%s}`, q(c)) }
	var calls []struct{ name, input string }
	add := func(name, input string) { calls = append(calls, struct{ name, input string }{name, input}) }
	for _, p := range []string{
		filepath.Join(outside, "a.md"), victim, filepath.Join(project, "main.go"), filepath.Join(project, "CLAUDE.md"),
		"../outside.md", "../../x.md", "escape.md", "sub/escape.md", // relative: to the working dir
		memDir + "/../escape.md", memDir + "/sub/../../escape.md", memDir + "/../../../../escape.md",
		filepath.Join(memDir, "linkdir", "x.md"), filepath.Join(memDir, "linked.md"), filepath.Join(memDir, "linkdir"),
		filepath.Join(memDir, "MEMORY.md"), filepath.Join(memDir, "EXTRACT.md"), filepath.Join(memDir, ".inbox", "x.md"),
		filepath.Join(memDir, ".archive", "x.md"), filepath.Join(memDir, ".consolidate-lock"), filepath.Join(memDir, "x\x00.md"),
		filepath.Join(memDir, "notes.txt"), filepath.Join(memDir, "x.md", "y.md"), memDir, "/etc/passwd", "~/.bashrc",
		filepath.Join(memDir, "a\nb.md"), filepath.Join(memDir, "..", "memory2", "x.md"), memDir + "//..//escape.md",
		filepath.Join(memDir, "sub", "deep.md"), "/", filepath.Join(memDir, "linkdir", "..", "victim.txt"),
	} {
		add("Write", write(p))
		add("Edit", edit(p))
	}
	for _, c := range []string{
		"echo pwned > " + victim, "echo pwned >> " + victim, "touch " + filepath.Join(outside, "t"), "rm -rf " + outside,
		"cp " + victim + " " + filepath.Join(outside, "c"), "mv " + victim + " " + filepath.Join(outside, "m"),
		"sh -c 'echo x > " + victim + "'", "bash -c 'rm " + victim + "'", "tee " + victim, "ls; rm " + victim,
		"ls && touch " + filepath.Join(outside, "t"), "cat " + victim + " | tee " + filepath.Join(outside, "t"),
		"find " + outside + " -delete", "find " + outside + " -exec rm {} ;", "echo $(rm " + victim + ")", "echo `rm " + victim + "`",
		"python3 -c 'open(\"" + victim + "\",\"w\")'", "sed -i s/old/new/ " + victim, "git -C " + project + " commit -m x",
		"ls | xargs rm", "dd if=/dev/zero of=" + victim, "chmod 777 " + victim, "ln -s / " + filepath.Join(outside, "l"),
		"X=1 rm " + victim, "sudo rm " + victim, "mkdir " + filepath.Join(outside, "d"), "truncate -s 0 " + victim,
		"perl -e 'unlink \"" + victim + "\"'", "curl -o " + victim + " http://127.0.0.1:1/", "node -e 'x'",
	} {
		add("Bash", bash(c))
	}
	for _, n := range []string{"../escape", "a/b", "..", "x\x00y"} {
		add("memory_save", fmt.Sprintf(`{"name":%s,"description":"d","type":"project","body":"pwned"}`, q(n)))
	}
	add("memory_forget", `{"name":"anything"}`)
	add("TodoWrite", `{"todos":[{"content":"pwn","activeForm":"pwning","status":"pending"}]}`)
	for len(calls) < 100 {
		add("Write", write(filepath.Join(outside, fmt.Sprintf("extra%d.md", len(calls)))))
	}
	calls = calls[:100]
	out := make([]conversation.Block, len(calls))
	for i, c := range calls {
		out[i] = llmtest.ToolUse(fmt.Sprintf("e%03d", i), c.name, c.input)
	}
	return out
}

// snapshot lists every file under dirs with its content hash stand-in (size, mode, text).
func snapshot(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.Name() == ".strata.lock" || e.Name() == ".strata-watch.json" || strings.HasPrefix(e.Name(), ".recall-stats") {
				// the store's lock file comes and stays; recall counts the session
				return nil
			}
			info, _ := e.Info()
			data, _ := os.ReadFile(p)
			out[p] = fmt.Sprintf("%v %d %q", info.Mode(), info.Size(), data)
			return nil
		})
	}
	return out
}

// A fake model makes 100 attempts to have the extractor write outside the memory dir (or to
// files of the dir that are not its to write): every one is refused and reported, and
// nothing outside changes.
func TestExtractorEscapeAttemptsAllDenied(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	f.write("main.go", "package main\n\nfunc main() {} // old\n")
	f.write("CLAUDE.md", "old rules\n")
	outside := filepath.Join(filepath.Dir(f.dir), "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("")}})
	calls := escapeAttempts(t, a.MemoryDir(), f.dir, outside)
	memBefore := snapshot(t, a.MemoryDir())
	before := snapshot(t, outside, f.dir, filepath.Join(f.env.UserHome, ".bashrc"))

	replies := []llmtest.Reply{llmtest.Text("Understood.")}
	for i := 0; i < len(calls); i += 20 {
		replies = append(replies, llmtest.Blocks(calls[i:i+20]...))
	}
	f.srv.Script(replies...)
	if _, err := a.Run(t.Context(), "Please remember everything about this project.", nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())

	if diff := cmp.Diff(before, snapshot(t, outside, f.dir, filepath.Join(f.env.UserHome, ".bashrc"))); diff != "" {
		t.Errorf("files outside the memory dir changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(memBefore, snapshot(t, a.MemoryDir())); diff != "" {
		t.Errorf("the memory dir changed (-before +after):\n%s", diff)
	}
	bg := a.Background()
	if len(bg.Denied) != 100 || len(bg.Written) != 0 {
		t.Errorf("%d denials reported, %d files written; want 100 and 0", len(bg.Denied), len(bg.Written))
		for _, d := range bg.Denied {
			t.Log(d)
		}
	}
	// The model was told each time.
	reqs := f.srv.Requests()
	errs := 0
	for _, r := range reqs[2:] {
		msgs := r.At("messages").([]any)
		for _, c := range llmtest.At(msgs[len(msgs)-1], "content").([]any) {
			if llmtest.At(c, "type") == "tool_result" && llmtest.At(c, "is_error") == true {
				errs++
			}
		}
	}
	if errs != 80 { // the results of the fifth reply are never sent: the turn limit ends the fork
		t.Errorf("%d error results sent back in requests 2-5, want 80", errs)
	}
	if len(reqs) != 1+ExtractMaxTurns {
		t.Errorf("%d requests, want 1 main + %d extraction", len(reqs), ExtractMaxTurns)
	}
}

// Extraction is skipped (and its cursor advanced) when the main agent wrote memory itself;
// the next turn's extraction runs and sees only what is new.
func TestExtractionSkippedWhenMainAgentWroteMemory(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("")}})
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("m1", "memory_save", `{"name":"deploy day","description":"Deploys happen on Friday","type":"project","body":"Deploy on Friday."}`)),
		llmtest.Text("Saved."),
	)
	if _, err := a.Run(t.Context(), "Remember that we deploy on Friday.", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the skipped extraction", func() bool { return a.Background().ExtractSkipped == 1 })
	f.srv.Script(llmtest.Text("Fine."), llmtest.Text("nothing to save"))
	if _, err := a.Run(t.Context(), "Thanks. 谢谢。", nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())
	bg := a.Background()
	if bg.ExtractSkipped != 1 || bg.Extractions != 1 {
		t.Errorf("stats %+v: want 1 skipped, 1 run", bg)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 3 main + 1 extraction", len(reqs))
	}
	if !strings.Contains(lastText(reqs[3]), "last 2 messages") {
		t.Errorf("the extraction prompt should speak of the 2 new messages:\n%s", lastText(reqs[3]))
	}
}

// In confirm mode the extractor's writes are staged in .inbox/; the index is untouched.
// EXTRACT.md is part of the extractor's instructions.
func TestExtractionConfirmModeAndGuidance(t *testing.T) {
	f := newFixture(t, llmtest.OpenAI)
	f.background = true
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("confirm")}})
	if err := os.MkdirAll(a.MemoryDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	guide := "Always record which day deploys happen. 记录部署日。"
	if err := os.WriteFile(filepath.Join(a.MemoryDir(), "EXTRACT.md"), []byte(guide+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(a.MemoryDir(), "build-tool.md")
	f.srv.Script(
		llmtest.Text("Noted."),
		llmtest.Blocks(llmtest.ToolUse("x1", "Write", fmt.Sprintf(`{"file_path":%q,"content":%q}`, mem, buildMemory))),
		llmtest.Text("Staged one memory."),
	)
	if _, err := a.Run(t.Context(), "We build with mage.", nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())
	if !strings.Contains(lastText(f.srv.Requests()[1]), guide) {
		t.Error("EXTRACT.md is not in the extractor's instructions")
	}
	if _, err := os.Stat(mem); err == nil {
		t.Error("confirm mode wrote the memory directly")
	}
	if data, err := os.ReadFile(filepath.Join(a.MemoryDir(), ".inbox", "build-tool.md")); err != nil || string(data) != buildMemory {
		t.Errorf("staged file: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(a.MemoryDir(), "MEMORY.md")); err == nil {
		t.Error("confirm mode changed the index")
	}
	if bg := a.Background(); !cmp.Equal(bg.Written, []string{".inbox/build-tool.md"}) {
		t.Errorf("written = %q", bg.Written)
	}

	// The next session's extractor is told about the waiting proposal.
	b := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("confirm")}})
	f.srv.Script(llmtest.Text("Sure."), llmtest.Text("nothing to save"))
	if _, err := b.Run(t.Context(), "Anything else?", nil); err != nil {
		t.Fatal(err)
	}
	b.Close(t.Context())
	reqs := f.srv.Requests()
	if text := lastText(reqs[len(reqs)-1]); !strings.Contains(text, "build-tool.md (proposed, awaiting the user's confirmation)") {
		t.Errorf("the staged proposal is not in the extractor's manifest:\n%s", text)
	}
}

// The session-notes writer starts once the context passes NotesInitTokens; it may edit its
// notes file only.
func TestSessionNotesWriter(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: &config.Settings{MemoryExtraction: "off", AutoDreamEnabled: ptr(false)}}})
	notes := compact.NotesPath(a.TranscriptPath())
	other := f.write("main.go", "package main // old\n")
	desc := "_What is being done right now, what was just finished, and the very next step._"
	f.srv.Script(
		llmtest.Text("Short answer."),
		llmtest.Text("Read it all."),
		llmtest.Blocks(
			llmtest.ToolUse("n1", "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":%q,"new_string":%q}`, notes, desc, desc+"\nReviewing the long log. 正在审阅日志。")),
			llmtest.ToolUse("n2", "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"old","new_string":"pwned"}`, other)),
			llmtest.ToolUse("n3", "Bash", `{"command":"ls"}`),
		),
		llmtest.Text("Notes updated."),
	)
	if _, err := a.Run(t.Context(), "Hello.", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(notes); err == nil {
		t.Fatal("notes written below the threshold")
	}
	long := strings.Repeat("The log line says the parser failed on input 42 again. ", 1200)
	if _, err := a.Run(t.Context(), "Please read this log:\n"+long, nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())
	data, err := os.ReadFile(notes)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "正在审阅日志") || len(compact.CheckNotes(string(data))) != 0 {
		t.Errorf("notes file:\n%s\nproblems: %v", data, compact.CheckNotes(string(data)))
	}
	if b, _ := os.ReadFile(other); string(b) != "package main // old\n" {
		t.Errorf("the notes writer changed another file: %q", b)
	}
	h := a.History()
	if cov, err := compact.NotesCovered(notes); err != nil || cov != h[len(h)-1].UUID {
		t.Errorf("notes cover %q (%v), want the last message %q", cov, err, h[len(h)-1].UUID)
	}
	bg := a.Background()
	if bg.NotesUpdates != 1 || bg.NotesFailed != 0 {
		t.Errorf("stats %+v", bg)
	}
	// The two refused calls came back as errors.
	res := toolResults(f.srv.Requests()[3])
	if len(res) != 3 || !strings.Contains(res[1], "Denied") || !strings.Contains(res[2], "Denied") {
		t.Errorf("tool results: %q", res)
	}
}

// When a dream is due (no run yet and 5 sessions), the agent consolidates the memory dir in
// the background after a turn: the older of two exact duplicates is archived, a near-duplicate
// is only proposed, the report says both and how to undo; the lock file records the run.
func TestAutoDreamAfterTurn(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	settings := &config.Settings{MemoryExtraction: "off", SessionNotesEnabled: ptr(false)}
	a := f.agent(Options{NoTranscript: true, Open: workspace.Options{Settings: settings}})
	dir := a.MemoryDir()
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit; 用制表符缩进"
	old := time.Now().Add(-72 * time.Hour)
	for i, name := range []string{"tabs old", "tabs new"} {
		st, err := memdir.Open(dir, memdir.Options{Now: func() time.Time { return old.Add(time.Duration(i) * time.Hour) }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Add(t.Context(), memdir.Input{Name: name, Description: "indentation", Type: memdir.TypeFeedback, Body: long})
		if err != nil {
			t.Fatal(err)
		}
		mt := old.Add(time.Duration(i) * time.Hour)
		os.Chtimes(res.Path, mt, mt)
	}
	near, err := memdir.Open(dir, memdir.Options{Now: func() time.Time { return old.Add(-time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := near.Add(t.Context(), memdir.Input{Name: "tabs near", Description: "indentation", Type: memdir.TypeFeedback, Body: long + " always"})
	if err != nil {
		t.Fatal(err)
	}
	os.Chtimes(res.Path, old.Add(-time.Hour), old.Add(-time.Hour))
	sessions := filepath.Dir(dir)
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(sessions, fmt.Sprintf("s%d.jsonl", i)), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Script(llmtest.Text("Hi."))
	if _, err := a.Run(t.Context(), "Hello.", nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())
	bg := a.Background()
	if bg.Dreams != 1 || bg.DreamArchived != 1 || bg.LastError != "" {
		t.Fatalf("stats %+v: want one dream that archived one memory", bg)
	}
	if _, err := os.Stat(filepath.Join(dir, ".archive", "tabs-old.md")); err != nil {
		t.Errorf("the older duplicate was not archived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tabs-new.md")); err != nil {
		t.Errorf("the newer duplicate is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tabs-near.md")); err != nil {
		t.Errorf("auto-dream archived a near-duplicate it should only propose: %v", err)
	}
	for _, want := range []string{"archived 1 (tabs-old.md)", "proposes 1 more for review (tabs-near.md)", "strata memory restore --last-dream"} {
		if !strings.Contains(bg.DreamReport, want) {
			t.Errorf("dream report %q lacks %q", bg.DreamReport, want)
		}
	}
	body, err := os.ReadFile(filepath.Join(dir, extract.LockFile))
	if err != nil || strings.TrimSpace(string(body)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file: %q, %v", body, err)
	}
}

// After a compaction the extractor's cursor starts over: the rewritten conversation is all new.
func TestExtractionCursorAfterCompaction(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("")}})
	f.srv.Script(llmtest.Text("First answer. "+longAnswer), llmtest.Text("nothing to save"))
	if _, err := a.Run(t.Context(), "First question.", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first extraction", func() bool { return a.Background().Extractions == 1 })
	f.srv.Script(llmtest.Text("1. Primary request and intent: answer questions."))
	if _, err := a.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(llmtest.Text("Second answer."), llmtest.Text("nothing to save"))
	if _, err := a.Run(t.Context(), "Second question.", nil); err != nil {
		t.Fatal(err)
	}
	a.Close(t.Context())
	reqs := f.srv.Requests()
	n := len(prompt.Messages(a.History()))
	if text := lastText(reqs[len(reqs)-1]); !strings.Contains(text, fmt.Sprintf("last %d messages", n)) {
		t.Errorf("after a compaction the extractor should look at all %d messages:\n%s", n, text)
	}
	if bg := a.Background(); bg.Extractions != 2 || bg.ExtractFailed != 0 {
		t.Errorf("stats %+v", bg)
	}
}

// A long session with all the background work on at once: the main loop, automatic
// compaction, the notes writer and the extractor run concurrently against one fake server
// (which answers each by what it asks). Nothing fails, the notes and the memory dir stay
// valid, compaction uses the notes, and no user instruction is lost.
func TestLongSessionWithBackgroundWork(t *testing.T) {
	if testing.Short() {
		t.Skip("long session")
	}
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	filler := strings.Repeat("Here is a long explanation of the change. ", 60) // ~600 tokens
	var mu sync.Mutex
	var notesPath string
	ids, summaries, notesCalls, extractCalls := 0, 0, 0, 0
	f.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		ids++
		body := string(r.Body)
		msgs, _ := r.At("messages").([]any)
		followup := strings.Contains(fmt.Sprint(llmtest.At(msgs[len(msgs)-1], "content")), "tool_result")
		switch {
		case strings.HasPrefix(fmt.Sprint(r.At("messages", 0, "content", 0, "text")), "<conversation"):
			summaries++
			return llmtest.Text("1. Primary request and intent: follow every numbered instruction.")
		case strings.Contains(body, "this turn only updates the session notes file"):
			if followup {
				return llmtest.Text("Notes updated.")
			}
			notesCalls++
			desc := "_What is being done right now, what was just finished, and the very next step._"
			content := strings.Replace(compact.NotesTemplate, desc, fmt.Sprintf("%s\nFollowing the numbered rules; update %d. 按编号规则工作。", desc, notesCalls), 1)
			return llmtest.Blocks(llmtest.ToolUse(fmt.Sprintf("n%d", ids), "Write", fmt.Sprintf(`{"file_path":%q,"content":%q}`, notesPath, content)))
		case strings.Contains(body, "# Memory extraction"):
			if followup {
				return llmtest.Text("Saved.")
			}
			extractCalls++
			return llmtest.Blocks(llmtest.ToolUse(fmt.Sprintf("x%d", ids), "memory_save", fmt.Sprintf(
				`{"name":"rule batch %d","description":"Numbered rules the user gave, batch %d","type":"feedback","body":"The user gives numbered rules to follow; batch %d. 规则。"}`,
				extractCalls, extractCalls, extractCalls)))
		}
		return llmtest.Text(filler)
	}
	a := f.agent(Options{ContextWindow: 30_000, MaxTokens: 4000, Open: workspace.Options{Settings: &config.Settings{AutoDreamEnabled: ptr(false)}}})
	notesPath = compact.NotesPath(a.TranscriptPath())
	var rec recorder
	var prompts []string
	for i := range 60 {
		p := fmt.Sprintf("规则 %d: always do thing number %d", i, i)
		prompts = append(prompts, p)
		if _, err := a.Run(t.Context(), p, rec.sink); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	compactions, fromNotes := 0, 0
	for _, e := range rec.events {
		if e.Kind == EventCompact && strings.HasPrefix(e.Text, "conversation compacted automatically") {
			compactions++
			if strings.Contains(e.Text, string(compact.MethodSessionMemory)) {
				fromNotes++
			}
		}
	}
	var ctxText strings.Builder
	for _, m := range prompt.Messages(a.History()) {
		ctxText.WriteString(m.TextOf())
	}
	for _, p := range prompts {
		if !strings.Contains(ctxText.String(), p) {
			t.Errorf("instruction %q lost from the context", p)
		}
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	bg := a.Background()
	t.Logf("60 turns: %d automatic compactions (%d from the session notes, %d model summaries); %d extractions wrote %d memories; %d notes updates",
		compactions, fromNotes, summaries, bg.Extractions, len(bg.Written), bg.NotesUpdates)
	if compactions < 2 || fromNotes < 1 {
		t.Errorf("%d compactions, %d from the notes: want at least 2, one from the notes", compactions, fromNotes)
	}
	if compactions > 12 {
		t.Errorf("%d compactions in 60 turns: compaction leaves too little room and runs again at once", compactions)
	}
	if bg.Extractions < 1 || bg.ExtractFailed != 0 || bg.NotesUpdates < 1 || bg.NotesFailed != 0 || len(bg.Denied) != 0 || bg.LastError != "" {
		t.Errorf("background work: %+v", bg)
	}
	data, err := os.ReadFile(notesPath)
	if err != nil || len(compact.CheckNotes(string(data))) != 0 {
		t.Errorf("notes: %v %v", err, compact.CheckNotes(string(data)))
	}
	st, err := memdir.Open(a.MemoryDir(), memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, _, err := st.List(t.Context())
	if err != nil || len(mems) != len(bg.Written) {
		t.Errorf("%d memories listed (%v), %d written by the extractor", len(mems), err, len(bg.Written))
	}
	diags, err := st.Lint(t.Context())
	if err != nil || memdir.Errors(diags) != 0 {
		t.Errorf("memory lint: %v %v", err, diags)
	}
}

// BackgroundBusy is true while an extraction runs, false once Close has drained it.
func TestBackgroundBusy(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	release := make(chan struct{})
	f.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "# Memory extraction") {
			<-release
			return llmtest.Text("nothing to save")
		}
		return llmtest.Text("Hello.")
	}
	a := f.agent(Options{Open: workspace.Options{Settings: extractSettings("")}})
	if a.BackgroundBusy() {
		t.Error("busy before the first turn")
	}
	if _, err := a.Run(t.Context(), "Hi.", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the extraction to start", a.BackgroundBusy)
	close(release)
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a.BackgroundBusy() {
		t.Error("busy after Close")
	}
	if bg := a.Background(); bg.Extractions != 1 {
		t.Errorf("stats %+v", bg)
	}
}

// Close drains the extraction only up to DrainTimeout: a model that never answers is cut off,
// and the cut is reported as a warning.
func TestCloseDrainTimeout(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the server's cleanup
	f.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "# Memory extraction") {
			<-release
		}
		return llmtest.Text("Hello.")
	}
	a := f.agent(Options{DrainTimeout: 50 * time.Millisecond, Open: workspace.Options{Settings: extractSettings("")}})
	if _, err := a.Run(t.Context(), "Hi.", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the extraction to start", a.BackgroundBusy)
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a.BackgroundBusy() {
		t.Error("the extraction still runs after Close")
	}
	warned := false
	for _, w := range a.Warnings() {
		warned = warned || strings.Contains(w, "memory extraction at exit")
	}
	if !warned {
		t.Errorf("no warning about the cut extraction: %q", a.Warnings())
	}
}
