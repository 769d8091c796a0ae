package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/sharedtest"
)

// hookFixture is a project with Claude Code's memory directory under a scratch HOME.
type hookFixture struct {
	app          *App
	out, errb    interface{ String() string }
	proj, memDir string
}

func newHookFixture(t *testing.T) hookFixture {
	t.Helper()
	app, out, errb := testApp(t)
	proj := filepath.Join(app.Env.UserHome, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(proj)
	if err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(claudeCodeEnv(app.Env).ProjectsDir(), slugFor(real), "memory")
	if err := os.MkdirAll(mem, 0o700); err != nil {
		t.Fatal(err)
	}
	return hookFixture{app: app, out: out, errb: errb, proj: real, memDir: mem}
}

// slugFor is Claude Code's project directory name for dir.
func slugFor(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

func (f hookFixture) addMemory(t *testing.T, file, desc, body string, age time.Duration) {
	t.Helper()
	p := filepath.Join(f.memDir, file)
	text := fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: project\n---\n%s\n", strings.TrimSuffix(file, ".md"), desc, body)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	mt := f.app.Now().Add(-age)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// run runs strata hook with input and returns the additionalContext it printed ("" for none).
func (f hookFixture) run(t *testing.T, event string, input map[string]any, args ...string) string {
	t.Helper()
	if _, ok := input["cwd"]; !ok {
		input["cwd"] = f.proj
	}
	b, _ := json.Marshal(input)
	f.app.In = strings.NewReader(string(b))
	out := f.app.Out.(interface {
		io.Writer
		String() string
		Reset()
	})
	out.Reset()
	if code := Run(f.app, append([]string{"hook", event}, args...)); code != 0 {
		t.Fatalf("strata hook %s: exit %d", event, code)
	}
	if out.String() == "" {
		return ""
	}
	var o hookOutput
	if err := json.Unmarshal([]byte(out.String()), &o); err != nil {
		t.Fatalf("hook output is not Claude Code's format: %v\n%s", err, out.String())
	}
	if o.Specific.Event != event {
		t.Errorf("hookEventName = %q, want %q", o.Specific.Event, event)
	}
	return o.Specific.AdditionalContext
}

func writeLines(t *testing.T, path string, lines ...any) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHookRecall: a memory that only its body matches is added with its age note; what the
// session already has (strata's own additions, Claude Code's recall) is not added again until
// a compaction; a budget too small for any memory adds nothing.
func TestHookRecall(t *testing.T) {
	f := newHookFixture(t)
	f.addMemory(t, "deploy.md", "how we ship", "Run the zebracorn migration before tagging.", 72*time.Hour)
	f.addMemory(t, "other.md", "zebracorn notes", "More about the zebracorn.", 0)
	f.addMemory(t, "unrelated.md", "lunch", "Pizza on Fridays.", 0)
	tr := filepath.Join(f.app.Env.UserHome, "session.jsonl")
	in := map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "what about zebracorn", "session_id": "s1", "transcript_path": tr}

	got := f.run(t, "UserPromptSubmit", in)
	for _, want := range []string{`<strata-memory ref="deploy.md"`, "Run the zebracorn migration", "3 days old", `<strata-memory ref="other.md"`} {
		if !strings.Contains(got, want) {
			t.Errorf("context lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Pizza") {
		t.Errorf("an unrelated memory was added:\n%s", got)
	}

	// The session got deploy.md from strata and other.md from Claude Code's own recall.
	writeLines(t, tr,
		map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context", "content": []string{"earlier: " + memoryTag + `"deploy.md" path="x">…`}}},
		map[string]any{"type": "attachment", "attachment": map[string]any{"type": "relevant_memories", "memories": []any{map[string]any{"path": filepath.Join(f.memDir, "other.md"), "content": "x"}}}},
	)
	if got := f.run(t, "UserPromptSubmit", in); got != "" {
		t.Errorf("the session's memories were added again:\n%s", got)
	}

	// A compaction takes them out of the context: they may come back.
	b, _ := os.ReadFile(tr)
	os.WriteFile(tr, append(b, []byte(`{"type":"system","subtype":"compact_boundary"}`+"\n")...), 0o600)
	if got := f.run(t, "UserPromptSubmit", in); !strings.Contains(got, "deploy.md") {
		t.Errorf("after a compaction the memory is not recalled again:\n%s", got)
	}

	// The session's recall budget is spent (Claude Code's own recall counts towards it).
	b, _ = os.ReadFile(tr)
	big, _ := json.Marshal(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "relevant_memories",
		"memories": []any{map[string]any{"path": "/elsewhere/x.md", "content": strings.Repeat("x", 61*1024)}}}})
	os.WriteFile(tr, append(append(b, big...), '\n'), 0o600)
	if got := f.run(t, "UserPromptSubmit", in); got != "" {
		t.Errorf("with the session budget spent the hook added:\n%s", got)
	}
	os.WriteFile(tr, b, 0o600)

	if got := f.run(t, "UserPromptSubmit", in, "--budget", "10"); got != "" {
		t.Errorf("a 10-token budget added:\n%s", got)
	}
}

// TestHookRecallPastSurfaced: with the session holding the best matches, a prompt gets the
// next best, as many as a turn shows, however many it already has.
func TestHookRecallPastSurfaced(t *testing.T) {
	f := newHookFixture(t)
	for i := range 30 { // equal matches: the ranker orders them by file name
		f.addMemory(t, fmt.Sprintf("m%02d.md", i), "a note", "The zebracorn stable rules.", 0)
	}
	tr := filepath.Join(f.app.Env.UserHome, "session.jsonl")
	var had []string
	for i := range 12 {
		had = append(had, memoryTag+fmt.Sprintf("%q", fmt.Sprintf("m%02d.md", i)))
	}
	writeLines(t, tr, map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context", "content": had}})
	got := f.run(t, "UserPromptSubmit", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "zebracorn", "transcript_path": tr})
	var refs []string
	for _, m := range memoryRef().FindAllStringSubmatch(got, -1) {
		refs = append(refs, m[1])
	}
	if want := []string{"m12.md", "m13.md", "m14.md", "m15.md", "m16.md"}; !cmp.Equal(want, refs) {
		t.Errorf("recalled (-want +got):\n%s", cmp.Diff(want, refs))
	}
}

// TestSurfacedInLongTranscript: over a transcript of many chunks, what the session got after
// its last compaction counts, what it got before does not.
func TestSurfacedInLongTranscript(t *testing.T) {
	added := func(file string) any {
		return map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context",
			"content": []string{memoryTag + fmt.Sprintf("%q", file) + ">…"}}}
	}
	var lines []any
	filler := func(kb int) {
		for i := range kb {
			lines = append(lines, map[string]any{"type": "user", "n": i, "text": strings.Repeat("compact_boundar relevant memories ", 28)})
		}
	}
	lines = append(lines, added("before.md"))
	filler(300)
	lines = append(lines, map[string]any{"type": "system", "subtype": "compact_boundary"})
	filler(200)
	lines = append(lines, added("after.md"))
	filler(100)
	lines = append(lines, added("last.md"))
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path, lines...)
	refs, spent, err := surfacedIn(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(refs)
	if want := []string{"after.md", "last.md"}; !cmp.Equal(want, refs) || spent == 0 {
		t.Errorf("surfaced %v (%d bytes), want %v", refs, spent, want)
	}
}

// TestHookNeverFails: bad input, an unknown event and a hook past its time budget print
// nothing, exit 0 and leave one line each in the hook log.
func TestHookNeverFails(t *testing.T) {
	f := newHookFixture(t)
	logPath := filepath.Join(f.app.Env.Home, "logs", "hook.log")
	cases := []struct {
		name string
		in   io.Reader
		args []string
		want string
	}{
		{"not JSON", strings.NewReader("garbage"), []string{"UserPromptSubmit"}, "not JSON"},
		{"unknown event", strings.NewReader(`{}`), []string{"Bogus"}, "unknown hook event"},
		{"stdin never ends", blockingReader{}, []string{"UserPromptSubmit", "--timeout", "50ms"}, "gave up after 50ms"},
	}
	for i, tt := range cases {
		f.app.In = tt.in
		f.app.Out.(interface{ Reset() }).Reset()
		if code := Run(f.app, append([]string{"hook"}, tt.args...)); code != 0 {
			t.Errorf("%s: exit %d", tt.name, code)
		}
		if s := f.out.String() + f.errb.String(); s != "" {
			t.Errorf("%s: printed %q", tt.name, s)
		}
		b, _ := os.ReadFile(logPath)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != i+1 || !strings.Contains(lines[i], tt.want) {
			t.Errorf("%s: log %q, want line %d with %q", tt.name, b, i+1, tt.want)
		}
	}
}

type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

// TestHookCarriesPinnedMessages: PreCompact records the first request and the messages pinned
// with /strata:pin (not what Claude Code wrote into user messages, not other messages);
// SessionStart after the compaction gives them back verbatim, and reads the transcript itself
// when PreCompact did not run.
func TestHookCarriesPinnedMessages(t *testing.T) {
	f := newHookFixture(t)
	tr := filepath.Join(f.app.Env.UserHome, "s.jsonl")
	user := func(uuid string, blocks ...string) map[string]any {
		var content []any
		for _, b := range blocks {
			content = append(content, map[string]any{"type": "text", "text": b})
		}
		return map[string]any{"type": "user", "uuid": uuid, "message": map[string]any{"role": "user", "content": content}}
	}
	writeLines(t, tr,
		user("u1", "<system-reminder>\ngit status\n</system-reminder>", "Port the parser to Go.\nKeep the API."),
		user("u2", "<command-message>strata:pin</command-message>\n<command-name>/strata:pin</command-name>\n<command-args>Never touch vendor/.</command-args>"),
		user("u3", "and now the lexer"),
		user("u4", "<command-name>/compact</command-name>"),
		map[string]any{"type": "user", "uuid": "u5", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "This session is being continued…"}},
	)
	for _, recorded := range []bool{true, false} {
		id := fmt.Sprintf("sess-%v", recorded)
		in := map[string]any{"session_id": id, "transcript_path": tr}
		if recorded {
			if got := f.run(t, "PreCompact", in); got != "" {
				t.Errorf("PreCompact printed %q", got)
			}
			if _, err := os.Stat(filepath.Join(f.app.Env.Home, "claude-code", "compact", id+".json")); err != nil {
				t.Fatal(err)
			}
		}
		in["source"] = "compact"
		got := f.run(t, "SessionStart", in)
		var msgs []string
		for _, part := range strings.Split(got, "<user-message kind=")[1:] {
			msgs = append(msgs, part[:strings.Index(part, "</user-message>")])
		}
		want := []string{"\"first request\">\nPort the parser to Go.\nKeep the API.\n", "\"pinned\">\nNever touch vendor/.\n"}
		if diff := cmp.Diff(want, msgs); diff != "" {
			t.Errorf("recorded=%v: carried (-want +got):\n%s", recorded, diff)
		}
	}
	// Start-up says nothing when the inbox is empty.
	if got := f.run(t, "SessionStart", map[string]any{"source": "startup"}); got != "" {
		t.Errorf("start-up with nothing to say printed %q", got)
	}
}

// TestHookSessionEndDream: SessionEnd starts strata memory dream --auto on Claude Code's
// memory, detached, once five sessions have touched the project, and not before.
func TestHookSessionEndDream(t *testing.T) {
	f := newHookFixture(t)
	f.addMemory(t, "a.md", "a", "body", 0)
	var started [][]string
	saved := startDetached
	startDetached = func(c *exec.Cmd) error { started = append(started, c.Args[1:]); return nil }
	t.Cleanup(func() { startDetached = saved })

	sessions := filepath.Dir(f.memDir)
	for i := range 5 {
		f.run(t, "SessionEnd", map[string]any{"session_id": "s"})
		if len(started) != 0 {
			t.Fatalf("a dream started after %d sessions: %v", i, started)
		}
		if err := os.WriteFile(filepath.Join(sessions, fmt.Sprintf("s%d.jsonl", i)), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.run(t, "SessionEnd", map[string]any{"session_id": "s"})
	want := [][]string{{"memory", "dream", "--auto", "--cwd", f.proj}}
	if diff := cmp.Diff(want, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
}

// TestPluginHookScriptWithoutStrata: the plugin's hook script, with no strata on PATH, says at
// start-up how to install it (a systemMessage Claude Code shows) and otherwise prints nothing;
// it always exits 0.
func TestPluginHookScriptWithoutStrata(t *testing.T) {
	script, err := filepath.Abs("../../plugin/bin/strata-hook")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, event := range []string{"SessionStart", "UserPromptSubmit"} {
		cmd := exec.Command(sh, script, event)
		cmd.Env = []string{"PATH=" + t.TempDir()} // no strata there
		cmd.Stdin = strings.NewReader(`{}`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		var msg struct{ SystemMessage string }
		switch {
		case event == "SessionStart" && (json.Unmarshal(out, &msg) != nil || !strings.Contains(msg.SystemMessage, "go install")):
			t.Errorf("SessionStart without strata printed %q", out)
		case event != "SessionStart" && len(out) != 0:
			t.Errorf("%s without strata printed %q", event, out)
		}
	}
}

// FuzzHasMarker: hasMarker finds a marker word wherever it is in the line.
func FuzzHasMarker(f *testing.F) {
	for _, s := range []string{`{"type":"system","subtype":"compact_boundary"}`, "hook_hook_additional_context", "relevant__memories",
		"_memories relevant", "compact_boundar", "x_relevant_memories_", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		want := false
		for _, m := range transcriptMarkers {
			want = want || strings.Contains(line, m[0]+m[1])
		}
		if got := hasMarker([]byte(line)); got != want {
			t.Errorf("hasMarker(%q) = %v, want %v", line, got, want)
		}
	})
}

// BenchmarkSurfacedIn reads every transcript of the corpus (../shared/corpus/transcripts) as a
// prompt's hook does.
func BenchmarkSurfacedIn(b *testing.B) {
	paths, err := filepath.Glob(filepath.Join(sharedtest.Dir(b, "corpus", "transcripts"), "*.jsonl"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no corpus transcripts (%v)", err)
	}
	for b.Loop() {
		for _, p := range paths {
			if _, _, err := surfacedIn(b.Context(), p, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
