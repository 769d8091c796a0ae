package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
)

// TestMemoryExtract: strata memory extract runs the extractor once over a finished session
// (here Claude Code's, as the SessionEnd hook runs it): the proposal lands in the inbox, not in
// the memory; a second run reads nothing; after the session grows, only the new messages.
func TestMemoryExtract(t *testing.T) {
	f := newHookFixture(t)
	srv := llmtest.NewAnthropic(t)
	vars := map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": llmtest.Key, "STRATA_PROVIDER": "anthropic",
		"STRATA_MODEL": "test-model", "XDG_CACHE_HOME": t.TempDir()}
	f.app.Env.Getenv = func(k string) string { return vars[k] }
	f.app.Env.Home = claudeCodeEnv(f.app.Env).Home // as the hook starts it: STRATA_HOME is Claude Code's
	const sid = "0199a3f2-1111-7000-8000-000000000001"
	turns := []string{"Remember: the staging port is 7421.", "Noted."}
	writeSession(t, f.app.Env, f.proj, sid, "", turns...)

	run := func() extractReport {
		t.Helper()
		out := f.app.Out.(interface{ Reset() })
		out.Reset()
		if code := Run(f.app, []string{"memory", "extract", "--session", sid[:8], "--cwd", f.proj, "--json"}); code != 0 {
			t.Fatalf("exit %d: %s", code, f.errb.String())
		}
		var r extractReport
		if err := json.Unmarshal([]byte(f.out.String()), &r); err != nil {
			t.Fatalf("%v: %s", err, f.out.String())
		}
		return r
	}
	srv.Script(llmtest.Blocks(llmtest.ToolUse("t1", "memory_save", `{"name":"staging port","description":"the staging server's port","type":"project","body":"Staging listens on 7421."}`)),
		llmtest.Text("Saved."))
	r := run()
	if r.From != 0 || r.Messages < 2 || len(r.Written) != 1 || r.Session != sid {
		t.Fatalf("first run: %+v", r)
	}
	if p := string(srv.Requests()[0].Prompt()); !strings.Contains(p, "staging port is 7421") || !strings.Contains(p, "last 2 messages") {
		t.Errorf("the extractor did not read the session's 2 messages:\n%s", p)
	}
	st, err := memdir.Open(f.memDir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	staged, err := extract.Inbox(t.Context(), st)
	if err != nil || len(staged) != 1 || !strings.Contains(staged[0].Description, "staging") {
		t.Errorf("inbox = %+v (%v), want the proposal", staged, err)
	}
	if mems, _, _ := st.List(t.Context()); len(mems) != 0 {
		t.Errorf("a proposal was written live: %+v", mems)
	}

	// Nothing new: no model call.
	calls := len(srv.Requests())
	if r2 := run(); r2.Note == "" || r2.From != r.Messages || len(srv.Requests()) != calls {
		t.Errorf("second run read again: %+v, %d calls", r2, len(srv.Requests())-calls)
	}

	// The session goes on (resumed in Claude Code): only the new messages are read.
	writeSession(t, f.app.Env, f.proj, sid, "", append(turns, "Also: we deploy on Fridays.", "OK.")...)
	srv.Script(llmtest.Text("Nothing new worth keeping."))
	r3 := run()
	if r3.From != r.Messages || r3.Messages != r.Messages+2 || len(r3.Written) != 0 {
		t.Errorf("third run: %+v, want from %d to %d", r3, r.Messages, r.Messages+2)
	}
	if p := string(srv.Requests()[len(srv.Requests())-1].Prompt()); !strings.Contains(p, "last 2 messages") {
		t.Errorf("the third run did not read just the 2 new messages:\n%s", p)
	}

	// Claude Code compacts the session (a boundary, its summary, then more talk): the
	// conversation is rewritten, so all of it is read again, from its summary on.
	path := filepath.Join(filepath.Dir(f.memDir), sid+".jsonl")
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(fh, `{"type":"system","subtype":"compact_boundary","uuid":"b-1","parentUuid":null,"logicalParentUuid":"%s-3","sessionId":%q,"timestamp":"2026-01-02T04:00:00Z","cwd":%q,"content":"Conversation compacted","level":"info","compactMetadata":{"trigger":"manual","preTokens":900}}`+"\n", sid[:8], sid, f.proj)
	fmt.Fprintf(fh, `{"type":"user","uuid":"s-1","parentUuid":"b-1","isCompactSummary":true,"sessionId":%q,"timestamp":"2026-01-02T04:00:01Z","cwd":%q,"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: staging port 7421, deploys on Fridays."}}`+"\n", sid, f.proj)
	parent := "s-1" // more talk than before the compaction, so a cursor kept across it would skip some
	for i := range 8 {
		role, content := "user", fmt.Sprintf("%q", fmt.Sprintf("step %d of the release", i))
		if i%2 == 1 {
			role, content = "assistant", fmt.Sprintf(`[{"type":"text","text":"done %d"}]`, i)
		}
		uuid := fmt.Sprintf("p-%d", i)
		fmt.Fprintf(fh, `{"type":%q,"uuid":%q,"parentUuid":%q,"sessionId":%q,"timestamp":"2026-01-02T04:01:0%dZ","cwd":%q,"message":{"role":%q,"content":%s}}`+"\n",
			role, uuid, parent, sid, i, f.proj, role, content)
		parent = uuid
	}
	fh.Close()
	srv.Script(llmtest.Text("Nothing new worth keeping."))
	r4 := run()
	if r4.From != 0 || r4.Messages <= r3.Messages {
		t.Errorf("after a compaction: %+v, want all %d+ messages since the summary read, from 0", r4, r3.Messages)
	}
	if p := string(srv.Requests()[len(srv.Requests())-1].Prompt()); !strings.Contains(p, "deploys on Fridays") || strings.Contains(p, "Remember: the staging port") {
		t.Errorf("after a compaction the extractor did not read the summary's conversation alone:\n%s", p)
	}
}

// TestMemoryExtractRefusals: no model configured says how to configure one; a session that
// does not exist is named; extraction set off is said so. Nothing is written.
func TestMemoryExtractRefusals(t *testing.T) {
	f := newHookFixture(t)
	f.app.Env.Home = claudeCodeEnv(f.app.Env).Home
	vars := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
	f.app.Env.Getenv = func(k string) string { return vars[k] }
	const sid = "0199a3f2-2222-7000-8000-000000000002"
	writeSession(t, f.app.Env, f.proj, sid, "", "hello", "hi")
	for _, c := range []struct {
		name, session, want string
		set                 map[string]string
	}{
		{"no model", sid, "These commands work without a model", nil},
		{"no such session", "0199ffff", "session 0199ffff", map[string]string{"ANTHROPIC_API_KEY": "k", "STRATA_PROVIDER": "anthropic"}},
	} {
		for k, v := range c.set {
			vars[k] = v
		}
		errb := f.app.Err.(interface{ Reset() })
		errb.Reset()
		if code := Run(f.app, []string{"memory", "extract", "--session", c.session, "--cwd", f.proj}); code == 0 {
			t.Errorf("%s: exit 0", c.name)
		}
		if !strings.Contains(f.errb.String(), c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.name, f.errb.String(), c.want)
		}
	}
	// A project may turn extraction off (never on).
	os.MkdirAll(filepath.Join(f.proj, ".claude"), 0o700)
	if err := os.WriteFile(filepath.Join(f.proj, ".claude", "settings.json"), []byte(`{"memoryExtraction":"off"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f.app.Err.(interface{ Reset() }).Reset()
	if code := Run(f.app, []string{"memory", "extract", "--session", sid, "--cwd", f.proj}); code == 0 || !strings.Contains(f.errb.String(), "memory extraction is off here") {
		t.Errorf("extraction off: exit %d, %q", code, f.errb.String())
	}
	if entries, _ := os.ReadDir(f.memDir); len(entries) != 0 {
		t.Errorf("the memory dir was written: %v", entries)
	}
}

// TestHookSessionEndExtract: with a model configured, SessionEnd starts strata memory extract
// on the session, detached; without one it starts nothing.
func TestHookSessionEndExtract(t *testing.T) {
	f := newHookFixture(t)
	var started [][]string
	saved := startDetached
	startDetached = func(c *exec.Cmd) error { started = append(started, c.Args[1:]); return nil }
	t.Cleanup(func() { startDetached = saved })

	f.run(t, "SessionEnd", map[string]any{"session_id": "s1"})
	if len(started) != 0 {
		t.Fatalf("started without a model: %v", started)
	}
	vars := map[string]string{"ANTHROPIC_API_KEY": "k", "STRATA_PROVIDER": "anthropic"}
	f.app.Env.Getenv = func(k string) string { return vars[k] }
	f.run(t, "SessionEnd", map[string]any{"session_id": "s1"})
	want := [][]string{{"memory", "extract", "--session", "s1", "--cwd", f.proj}}
	if diff := cmp.Diff(want, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
}

// TestMemoryExtractCorpus: extraction over real Claude Code transcripts: each one with a
// conversation is read to its end and sent as a request the fake API accepts; one without is
// refused with its reason; none is changed.
func TestMemoryExtractCorpus(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus", "transcripts")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no transcripts in %s", dir)
	}
	f := newHookFixture(t)
	srv := llmtest.NewAnthropic(t)
	srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("Nothing worth keeping.") } // a request the real API would refuse fails the test
	vars := map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": llmtest.Key, "STRATA_PROVIDER": "anthropic",
		"STRATA_MODEL": "test-model", "XDG_CACHE_HOME": t.TempDir()}
	f.app.Env.Getenv = func(k string) string { return vars[k] }
	f.app.Env.Home = claudeCodeEnv(f.app.Env).Home
	sessions := filepath.Dir(f.memDir)
	extracted := 0
	for i, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		sid := fmt.Sprintf("0199a3f2-3333-7000-8000-%012d", i)
		dst := filepath.Join(sessions, sid+".jsonl")
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f.app.Out.(interface{ Reset() }).Reset()
		f.app.Err.(interface{ Reset() }).Reset()
		code := Run(f.app, []string{"memory", "extract", "--session", sid, "--cwd", f.proj, "--json"})
		if after, _ := os.ReadFile(dst); string(after) != string(data) {
			t.Errorf("%s: the transcript was changed", filepath.Base(src))
		}
		if code != 0 {
			if !strings.Contains(f.errb.String(), "no conversation") {
				t.Errorf("%s: exit %d: %s", filepath.Base(src), code, f.errb.String())
			}
			continue
		}
		var r extractReport
		if err := json.Unmarshal([]byte(f.out.String()), &r); err != nil || r.Messages == 0 {
			t.Errorf("%s: %v %+v", filepath.Base(src), err, r)
		}
		extracted++
	}
	t.Logf("extracted from %d of %d transcripts", extracted, len(files))
	if extracted < len(files)/2 {
		t.Errorf("extracted from %d of %d transcripts", extracted, len(files))
	}
}
