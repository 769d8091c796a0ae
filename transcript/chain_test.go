package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

// ts is a timestamp field at second s.
func ts(s int) string { return fmt.Sprintf(`"timestamp":"2026-02-11T20:36:%02d.000Z"`, s) }

// call is an assistant line of reply msgID holding one tool_use.
func call(uuid, parent, msgID, toolID string, sec int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"parentUuid":%s,%s,"message":{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Read","input":{}}]}}`,
		uuid, quoteOrNull(parent), ts(sec), msgID, toolID)
}

// said is an assistant text line of reply msgID.
func said(uuid, parent, msgID string, sec int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"parentUuid":%s,%s,"message":{"id":%q,"role":"assistant","content":[{"type":"text","text":"%s"}]}}`,
		uuid, quoteOrNull(parent), ts(sec), msgID, uuid)
}

// answer is a user line holding the result of toolID.
func answer(uuid, parent, toolID string, sec int) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"parentUuid":%s,%s,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}}`,
		uuid, quoteOrNull(parent), ts(sec), toolID)
}

func prompt(uuid, parent string, sec int, extra ...string) string {
	return line("user", uuid, parent, append([]string{ts(sec)}, extra...)...)
}

func progress(uuid, parent string, sec int) string {
	return line("progress", uuid, parent, ts(sec), `"data":{"type":"hook_progress"}`)
}

func quoteOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return fmt.Sprintf("%q", s)
}

func loadLines(t *testing.T, lines ...string) *Session {
	t.Helper()
	f, err := Read(t.Context(), strings.NewReader(strings.Join(lines, "\n")+"\n"), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if f.Skipped() > 0 {
		t.Fatalf("test lines skipped: %v", f.Problems)
	}
	return FromFile(f)
}

// TestChainAsClaudeCode covers each rule of BuildChain with the shape Claude Code writes.
func TestChainAsClaudeCode(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		want      []string
		wantProbs []string
	}{
		{"progress lines bridged, several in a row",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 2), progress("p1", "a1", 3), progress("p2", "p1", 3), said("a2", "p2", "m1", 4), progress("p3", "a2", 5)},
			[]string{"u1", "a1", "a2"}, nil},
		{"trailing system and attachment lines are not the leaf",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 2), progress("p1", "a1", 3),
				line("system", "s1", "p1", ts(4), `"subtype":"stop_hook_summary"`), line("attachment", "at1", "s1", ts(5)),
				line("system", "s2", "at1", ts(6), `"subtype":"turn_duration"`)},
			[]string{"u1", "a1"}, nil},
		{"system lines inside the chain stay",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 2), line("system", "s1", "a1", ts(3), `"subtype":"stop_hook_summary"`), prompt("u2", "s1", 4)},
			[]string{"u1", "a1", "s1", "u2"}, nil},
		{"leaf: the newest branch end by timestamp, not the last line",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 9), said("a2", "u1", "m2", 5)},
			[]string{"u1", "a1"}, nil},
		{"leaf: same timestamp, the later line",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 5), said("a2", "u1", "m2", 5)},
			[]string{"u1", "a2"}, nil},
		{"2.1 parallel calls: results under their own call are recovered after the reply",
			[]string{prompt("u1", "", 1), said("a0", "u1", "m1", 2),
				call("c1", "a0", "m1", "t1", 3), progress("p1", "c1", 3), call("c2", "p1", "m1", "t2", 4), call("c3", "c2", "m1", "t3", 4), progress("p2", "c3", 4),
				answer("r1", "c1", "t1", 5), progress("p3", "r1", 5), answer("r2", "c2", "t2", 6), progress("p4", "r2", 6), answer("r3", "c3", "t3", 7),
				said("a9", "r3", "m2", 8)},
			[]string{"u1", "a0", "c1", "c2", "c3", "r1", "r2", "r3", "a9"}, nil},
		{"2.1 parallel calls: a sibling call on its own branch is recovered with its result",
			// Real shape (a 2.1.17 subagent): the second call's result is written first and the
			// reply continues under the first call's result.
			[]string{prompt("u1", "", 1), said("a0", "u1", "m1", 2), call("c1", "a0", "m1", "t1", 3), call("c2", "c1", "m1", "t2", 3),
				answer("r2", "c2", "t2", 4), answer("r1", "c1", "t1", 5), said("a9", "r1", "m2", 6)},
			[]string{"u1", "a0", "c1", "c2", "r2", "r1", "a9"}, nil},
		{"recovered results in timestamp order",
			[]string{prompt("u1", "", 1), call("c1", "u1", "m1", "t1", 2), call("c2", "c1", "m1", "t2", 2), call("c3", "c2", "m1", "t3", 2),
				answer("r2", "c2", "t2", 6), answer("r1", "c1", "t1", 4), answer("r3", "c3", "t3", 7)},
			[]string{"u1", "c1", "c2", "c3", "r1", "r2", "r3"}, nil},
		{"subagent file: the first parent lives in the main file",
			[]string{line("user", "s1", "main-entry", ts(1), `"isSidechain":true`), line("assistant", "s2", "s1", ts(2), `"isSidechain":true`)},
			[]string{"s1", "s2"}, nil},
		{"session file: a missing parent is reported",
			[]string{prompt("u1", "gone", 1), said("a1", "u1", "m1", 2)},
			[]string{"u1", "a1"}, []string{"line 1: parent gone is not in the file; chain starts here"}},
		{"a parent through a progress line that is missing",
			[]string{progress("p1", "gone", 1), prompt("u1", "p1", 2), said("a1", "u1", "m1", 3)},
			[]string{"u1", "a1"}, []string{"line 2: parent gone is not in the file; chain starts here"}},
		{"a cycle of progress lines ends the walk",
			[]string{progress("p1", "p2", 1), progress("p2", "p1", 1), prompt("u1", "p1", 2), said("a1", "u1", "m1", 3)},
			[]string{"u1", "a1"}, nil},
		{"compact boundary through progress lines",
			[]string{prompt("u1", "", 1), said("a1", "u1", "m1", 2), progress("p1", "a1", 3),
				line("system", "cb", "", ts(4), `"subtype":"compact_boundary","logicalParentUuid":"p1"`),
				prompt("sum", "cb", 5, `"isCompactSummary":true`), progress("p2", "sum", 6), said("a2", "p2", "m2", 7)},
			[]string{"u1", "a1", "cb", "sum", "a2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadLines(t, tt.lines...)
			if diff := cmp.Diff(tt.want, chainUUIDs(s)); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
			var probs []string
			for _, p := range s.Problems {
				probs = append(probs, p.String())
			}
			if diff := cmp.Diff(tt.wantProbs, probs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTurnsMergeOneReply: the lines of one reply become one assistant message, also when the
// reply's tools ran while it streamed (each result written before the reply's next call), and
// the results then follow it, as Claude Code sends them.
func TestTurnsMergeOneReply(t *testing.T) {
	s := loadLines(t,
		prompt("u1", "", 1), said("a0", "u1", "m1", 2),
		call("c1", "a0", "m1", "t1", 3), answer("r1", "c1", "t1", 4),
		call("c2", "r1", "m1", "t2", 5), answer("r2", "c2", "t2", 6),
		said("a9", "r2", "m2", 7), prompt("u2", "a9", 8),
		said("b1", "u2", "m3", 9), said("b2", "b1", "m4", 10),
	)
	turns, err := Turns(s.Chain)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tu := range turns {
		var ids []string
		for _, e := range tu.Entries {
			ids = append(ids, e.UUID)
		}
		got = append(got, fmt.Sprintf("%s:%s", tu.Role, strings.Join(ids, ",")))
	}
	want := []string{"user:u1", "assistant:a0,c1,c2", "user:r1", "user:r2", "assistant:a9", "user:u2", "assistant:b1", "assistant:b2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	msgs, err := Messages(s.Chain)
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, m := range msgs {
		var bs []string
		for _, b := range m.Content {
			bs = append(bs, string(b.Type))
		}
		shape = append(shape, fmt.Sprintf("%s[%s]", m.Role, strings.Join(bs, " ")))
	}
	wantShape := []string{"user[text]", "assistant[text tool_use tool_use]", "user[tool_result tool_result]", "assistant[text]", "user[text]", "assistant[text text]"}
	if diff := cmp.Diff(wantShape, shape); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if p := conversation.Check(msgs); len(p) != 0 {
		t.Errorf("messages break the request rules: %v", p)
	}
}

// TestLinesKeepTheChain: the lines an export writes load back to the same chain, the progress
// lines the chain passes through included (also those a compact boundary's logical parent
// passes through).
func TestLinesKeepTheChain(t *testing.T) {
	s := loadLines(t, prompt("u1", "", 1), said("a0", "u1", "m1", 2), progress("p0", "a0", 2),
		call("c1", "p0", "m1", "t1", 3), progress("p1", "c1", 3), call("c2", "p1", "m1", "t2", 4),
		answer("r1", "c1", "t1", 5), progress("p2", "r1", 5), answer("r2", "c2", "t2", 6),
		said("x1", "u1", "mx", 1), // an abandoned branch
		said("a9", "r2", "m2", 8), progress("p9", "a9", 9), progress("p10", "p9", 9),
		line("system", "cb", "", ts(10), `"subtype":"compact_boundary","logicalParentUuid":"p10"`),
		prompt("sum", "cb", 11, `"isCompactSummary":true`), said("b1", "sum", "m3", 12))
	var got []string
	var data strings.Builder
	for _, e := range s.Lines() {
		got = append(got, e.UUID)
		data.Write(e.Raw)
		data.WriteByte('\n')
	}
	want := []string{"u1", "a0", "p0", "c1", "p1", "c2", "r1", "r2", "a9", "p9", "p10", "cb", "sum", "b1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	f, err := Read(t.Context(), strings.NewReader(data.String()), "export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	again := FromFile(f)
	if diff := cmp.Diff(chainUUIDs(s), chainUUIDs(again)); diff != "" || len(again.Problems) != 0 {
		t.Errorf("exported chain (-loaded +exported), problems %v:\n%s", again.Problems, diff)
	}
}
