package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/transcript"
)

func TestSessionSearch(t *testing.T) {
	f := newFixture(t)
	dir := transcript.ProjectDir(f.env, f.project)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "0192f0c4-7d3e-7a8b-9c1d-2e3f4a5b6c7d"
	lines := []string{
		// A summary of the session this one continued: not this session's title.
		`{"type":"summary","summary":"Another session","leafUuid":"elsewhere"}`,
		fmt.Sprintf(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":%q,"timestamp":"2026-01-02T10:00:00.000Z","cwd":%q,"message":{"role":"user","content":"我们决定用 PostgreSQL 做存储，不用 MySQL"}}`, id, f.project),
		fmt.Sprintf(`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":%q,"timestamp":"2026-01-02T10:00:05.000Z","cwd":%q,"message":{"role":"assistant","content":[{"type":"text","text":"Noted: the storage layer will use PostgreSQL."}]}}`, id, f.project),
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A 2.1 subagent of the session.
	sub := transcript.SubagentPath(filepath.Join(dir, id+".jsonl"), "a7")
	os.MkdirAll(filepath.Dir(sub), 0o700)
	os.WriteFile(sub, []byte(fmt.Sprintf(`{"type":"user","uuid":"s1","parentUuid":"a1","isSidechain":true,"agentId":"a7","sessionId":%q,"message":{"role":"user","content":"check the PostgreSQL schema"}}`+"\n", id)), 0o600)
	// A session of another project whose path makes the same slug ("/a/b-c" and "/a/b/c"): it
	// shares the directory, but is not this project's.
	other := filepath.Dir(f.project) + "-" + filepath.Base(f.project)
	if transcript.ProjectDir(f.env, other) != dir {
		t.Fatalf("%s and %s do not share a slug", other, f.project)
	}
	os.WriteFile(filepath.Join(dir, "0192f0c4-7d3e-7a8b-9c1d-2e3f4a5b6c7e.jsonl"), []byte(fmt.Sprintf(
		`{"type":"user","uuid":"o1","parentUuid":null,"sessionId":"0192f0c4-7d3e-7a8b-9c1d-2e3f4a5b6c7e","cwd":%q,"message":{"role":"user","content":"the PostgreSQL password of the other team"}}`+"\n", other)), 0o600)
	cs := connect(t, f.server(t, nil), nil)

	var out SessionSearchOutput
	mustCall(t, cs, "session_search", SessionSearchInput{Query: "postgresql"}, &out)
	if out.Sessions != 1 || len(out.Hits) != 3 {
		t.Fatalf("session_search postgresql = %+v, want 3 hits in 1 session", out)
	}
	if h := out.Hits[0]; h.SessionID != id || h.Type != "user" || !strings.Contains(h.Snippet, "PostgreSQL") || h.Time == "" {
		t.Errorf("first hit = %+v", h)
	}
	// Every hit has the session's title (its first prompt, not the foreign summary), the
	// subagent's too.
	for _, h := range out.Hits {
		if !strings.HasPrefix(h.Title, "我们决定用 PostgreSQL") {
			t.Errorf("hit title %q", h.Title)
		}
	}
	if h := out.Hits[2]; h.SessionID != id || h.AgentID != "a7" {
		t.Errorf("subagent hit = %+v", h)
	}
	mustCall(t, cs, "session_search", SessionSearchInput{Query: "不用 MySQL"}, &out)
	if len(out.Hits) != 1 {
		t.Errorf("session_search 不用 MySQL = %+v, want 1 hit", out)
	}
	mustCall(t, cs, "session_search", SessionSearchInput{Query: "redis", Limit: 3}, &out)
	if len(out.Hits) != 0 {
		t.Errorf("session_search redis = %+v, want none", out)
	}
	for _, bad := range []SessionSearchInput{{Query: " "}, {Query: "x", Limit: -1}, {Query: "x", Limit: 1000}} {
		if msg := call(t, cs, "session_search", bad, nil); msg == "" {
			t.Errorf("session_search %+v succeeded", bad)
		}
	}
}

// TestSessionSearchClaudeCode: with ClaudeHome, session_search also covers Claude Code's
// transcripts of the project, and each hit says how to resume its session: with claude for
// Claude Code's, with strata chat for strata's.
func TestSessionSearchClaudeCode(t *testing.T) {
	f := newFixture(t)
	claude := filepath.Join(t.TempDir(), ".claude")
	ce := f.env
	ce.Home = claude
	write := func(dir, id, text string) {
		t.Helper()
		os.MkdirAll(dir, 0o700)
		line := fmt.Sprintf(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":%q,"cwd":%q,"message":{"role":"user","content":%q}}`+"\n", id, f.project, text)
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(transcript.ProjectDir(f.env, f.project), "strata-1", "the quokka cache was slow")
	write(transcript.ProjectDir(ce, f.project), "claude-1", "we chose the quokka cache")
	for _, withClaude := range []bool{false, true} {
		cs := connect(t, f.server(t, func(o *Options) {
			if withClaude {
				o.ClaudeHome = claude
			}
		}), nil)
		var out SessionSearchOutput
		mustCall(t, cs, "session_search", SessionSearchInput{Query: "quokka"}, &out)
		got := map[string]string{}
		for _, h := range out.Hits {
			got[h.SessionID] = h.Resume
		}
		want := map[string]string{"strata-1": "strata chat --resume strata-1"}
		if withClaude {
			want["claude-1"] = "claude --resume claude-1"
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ClaudeHome set %v: hits and resume commands %v, want %v", withClaude, got, want)
		}
	}
}
