package transcript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearchSubagentLayouts: one search finds text in a session's own lines, its 1.x inline
// sidechain lines, its 2.1 subagents/ directory and the 2.0 agent-*.jsonl files beside it, and
// says which session and agent each hit belongs to.
func TestSearchSubagentLayouts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	main := writeLines(t, filepath.Join(dir, "s1.jsonl"),
		userLine("u1", "", "find the needle in main"),
		`{"parentUuid":"u1","isSidechain":true,"agentId":"inline1","sessionId":"s1","type":"user","message":{"role":"user","content":"needle on a 1.x sidechain"},"uuid":"x1"}`)
	other := writeLines(t, filepath.Join(dir, "s2.jsonl"), userLine("v1", "", "nothing here"))
	// 2.1: <session>/subagents/agent-<id>.jsonl (the first parent is in the main file).
	writeLines(t, filepath.Join(dir, "s1", "subagents", "agent-a21.jsonl"),
		`{"parentUuid":"u1","isSidechain":true,"agentId":"a21","sessionId":"s1","type":"user","message":{"role":"user","content":"搜索 needle 在子代理"},"uuid":"y1"}`)
	// 2.0: agent-<id>.jsonl beside the sessions; its entries name the session.
	writeLines(t, filepath.Join(dir, "agent-b20.jsonl"),
		`{"parentUuid":null,"isSidechain":true,"agentId":"b20","sessionId":"s2","type":"user","message":{"role":"user","content":"old layout needle"},"uuid":"z1"}`)
	// 2.1, the session's own file gone: its subagents are still searched.
	writeLines(t, filepath.Join(dir, "s9", "subagents", "agent-c21.jsonl"),
		`{"parentUuid":"gone","isSidechain":true,"agentId":"c21","sessionId":"s9","type":"user","message":{"role":"user","content":"orphan needle"},"uuid":"w1"}`)
	writeLines(t, filepath.Join(dir, "memory", "MEMORY.md"), "- needle in memory, not a transcript")

	// Listing still shows only the two sessions.
	infos, err := List(t.Context(), dir, ListOptions{})
	if err != nil || len(infos) != 2 {
		t.Fatalf("List = %d sessions, %v", len(infos), err)
	}
	paths, err := WithSubagents([]string{main, other})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := Search(t.Context(), paths, "NEEDLE", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Session, Agent string
		Sidechain      bool
		File           string
	}
	var got []row
	for _, h := range hits {
		got = append(got, row{h.SessionID, h.AgentID, h.Sidechain, filepath.Base(h.Path)})
	}
	want := []row{
		{"s1", "", false, "s1.jsonl"},
		{"s1", "inline1", true, "s1.jsonl"},
		{"s1", "a21", true, "agent-a21.jsonl"},
		{"s2", "b20", true, "agent-b20.jsonl"},
		{"s9", "c21", true, "agent-c21.jsonl"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	for _, h := range hits {
		if !strings.Contains(strings.ToLower(h.Snippet), "needle") {
			t.Errorf("snippet %q", h.Snippet)
		}
	}
	// The subagent's own file, loaded, is a subagent's.
	s, err := Load(t.Context(), filepath.Join(dir, "s1", "subagents", "agent-a21.jsonl"), ReadOptions{})
	if err != nil || !s.IsSubagent() {
		t.Fatalf("IsSubagent = false (%v)", err)
	}
	if m, err := Load(t.Context(), main, ReadOptions{}); err != nil || m.IsSubagent() {
		t.Fatalf("main file IsSubagent = true (%v)", err)
	}
}
