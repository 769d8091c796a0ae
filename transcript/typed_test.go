package transcript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUserEntries: only what the user wrote is kept — not Claude Code's reminders, tool
// results, meta or sidechain entries, compaction summaries, or commands without arguments; a
// command with arguments is kept as "/name args".
func TestUserEntries(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"1","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nctx\n</system-reminder>"},{"type":"text","text":"fix the bug"}]}}`,
		`{"type":"assistant","uuid":"2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`,
		`{"type":"user","uuid":"3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"file"}]}}`,
		`{"type":"user","uuid":"4","isMeta":true,"message":{"role":"user","content":"meta"}}`,
		`{"type":"user","uuid":"5","isSidechain":true,"message":{"role":"user","content":"agent"}}`,
		`{"type":"user","uuid":"6","message":{"role":"user","content":"<command-name>/compact</command-name>"}}`,
		`{"type":"user","uuid":"7","message":{"role":"user","content":"<command-name>/strata:pin</command-name>\n<command-args>never push</command-args>"}}`,
		`{"type":"user","uuid":"8","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`,
		`{"type":"user","uuid":"9","message":{"role":"user","content":"thanks"}}`,
	}
	var entries []*Entry
	for _, l := range lines {
		e, err := ParseEntry([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	var got []string
	for _, e := range UserEntries(entries) {
		got = append(got, e.UUID+": "+e.Message.TextOf())
	}
	want := []string{"1: fix the bug", "7: /strata:pin never push", "9: thanks"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
