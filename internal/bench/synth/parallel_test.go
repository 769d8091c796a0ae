package synth

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/transcript"
)

// TestParallelLoadsAsClaudeCodeDoes: the synthetic 2.1 session loads to the conversation
// Claude Code's loader rebuilds: every user and assistant line on the chain, no progress line,
// the final reply as leaf (not the stop-hook lines after it), every call answered in the next
// message.
func TestParallelLoadsAsClaudeCodeDoes(t *testing.T) {
	p := Parallel(ParallelOptions{SessionID: "s", CWD: "/w", Calls: []int{3, 5, 1, 5, 3}, Streamed: []bool{false, false, false, true},
		BoundaryAfter: 2, Title: "并行"})
	f, err := transcript.Read(t.Context(), bytes.NewReader(p.Data), "p.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := transcript.FromFile(f)
	if len(s.Problems) != 0 {
		t.Fatalf("problems: %v", s.Problems)
	}
	var got []string
	for _, e := range s.Chain {
		switch e.Type {
		case transcript.TypeUser, transcript.TypeAssistant:
			got = append(got, e.UUID)
		case transcript.TypeProgress:
			t.Errorf("progress line %d on the chain", e.Line)
		}
	}
	if diff := cmp.Diff(sorted(p.Messages), sorted(got)); diff != "" {
		t.Errorf("chain's messages (-file +chain):\n%s", diff)
	}
	if s.Chain[s.Boundary].UUID != p.Boundary {
		t.Errorf("boundary %s, want %s", s.Chain[s.Boundary].UUID, p.Boundary)
	}
	if leaf := s.Leaf(); leaf.UUID != p.Leaf {
		t.Errorf("leaf = line %d %s, want %s", leaf.Line, leaf.UUID, p.Leaf)
	}
	msgs, err := transcript.Messages(s.Live())
	if err != nil {
		t.Fatal(err)
	}
	if probs := conversation.Check(msgs); len(probs) != 0 {
		t.Errorf("live conversation breaks the request rules: %v", probs)
	}
	// The compact summary and the next prompt merge; then prompt, reply, results, final reply.
	if len(msgs) != 4*p.LiveTurns {
		t.Errorf("%d live messages, want %d", len(msgs), 4*p.LiveTurns)
	}
	var calls []string
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == conversation.ToolUse {
				calls = append(calls, b.ID)
			}
		}
	}
	if diff := cmp.Diff(p.Calls[len(p.Calls)-len(calls):], calls); diff != "" || len(calls) != 1+5+3 {
		t.Errorf("live calls (-want +got), %d:\n%s", len(calls), diff)
	}
	if s.Meta.Title() != "并行" {
		t.Errorf("title = %q", s.Meta.Title())
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
