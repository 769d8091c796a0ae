package conversation

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func use(id string) Block {
	return Block{Type: ToolUse, ID: id, Name: "Read", Input: json.RawMessage(`{}`)}
}
func result(id string) Block {
	return Block{Type: ToolResult, ToolUseID: id, Content: []Block{{Type: Text, Text: "ok " + id}}}
}
func text(s string) Block        { return Block{Type: Text, Text: s} }
func think(sig string) Block     { return Block{Type: Thinking, Thinking: "hm", Signature: sig} }
func redacted(data string) Block { return Block{Type: RedactedThinking, Data: data} }

// The blocks of a web search Claude Code ran on the provider's side, as its transcripts hold
// them (decoded: unknown types keep their type).
var (
	serverUse    = Block{Type: "server_tool_use", ID: "srvtoolu_1", Name: "web_search", Input: json.RawMessage(`{"query":"go"}`)}
	serverResult = Block{Type: "web_search_tool_result", ToolUseID: "srvtoolu_1"}
)

func msg(r Role, bs ...Block) Message { return Message{Role: r, Content: bs} }
func u(bs ...Block) Message           { return msg(User, bs...) }
func a(bs ...Block) Message           { return msg(Assistant, bs...) }

func kinds(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%s@%d", p.Kind, p.Message)
		if p.ToolUseID != "" {
			s += ":" + p.ToolUseID
		}
		out = append(out, s)
	}
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want []string
	}{
		{"valid", []Message{u(text("hi")), a(text("读取"), use("t1"), use("t2")), u(result("t2"), result("t1"), text("go on")), a(text("done"))}, nil},
		{"none", nil, []string{"no-messages@-1"}},
		{"first the assistant's", []Message{a(text("x")), u(text("y"))}, []string{"first-not-user@0"}},
		{"empty message", []Message{u(text("x")), a(), u(text("y"))}, []string{"empty-message@1"}},
		{"blank message", []Message{u(text(" \n"))}, []string{"empty-message@0"}},
		{"blank text beside content", []Message{u(text("x"), text(""))}, []string{"empty-text@0"}},
		{"same role", []Message{u(text("x")), u(text("y"))}, []string{"same-role@1"}},
		{"unanswered parallel call", []Message{u(text("x")), a(use("t1"), use("t2")), u(result("t1"))}, []string{"unanswered-tool-use@1:t2"}},
		{"unanswered at the end", []Message{u(text("x")), a(use("t1"))}, []string{"unanswered-tool-use@1:t1"}},
		{"stray result", []Message{u(text("x")), a(text("y")), u(result("t1"))}, []string{"stray-tool-result@2:t1"}},
		{"result twice", []Message{u(text("x")), a(use("t1")), u(result("t1"), result("t1"))}, []string{"stray-tool-result@2:t1"}},
		{"result in the first message", []Message{u(result("t1"))}, []string{"stray-tool-result@0:t1"}},
		{"result after text", []Message{u(text("x")), a(use("t1")), u(text("wait"), result("t1"))}, []string{"tool-result-not-first@2:t1"}},
		{"call id repeated", []Message{u(text("x")), a(use("t1")), u(result("t1")), a(use("t1"))}, []string{"duplicate-tool-use@3:t1", "unanswered-tool-use@3:t1"}},
		{"signed thinking before the reply", []Message{u(text("x")), a(think("sig"), redacted("enc"), text("y")), u(text("z"))}, nil},
		{"reply cut off after its thinking", []Message{u(text("x")), a(think("sig")), u(text("z"))}, []string{"thinking-last@1"}},
		{"unsigned thinking", []Message{u(text("x")), a(think(""), text("y"))}, []string{"unsendable-block@1"}},
		{"web search server blocks", []Message{u(text("x")), a(serverUse, serverResult, text("y"))}, []string{"unsendable-block@1", "unsendable-block@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, kinds(Check(tt.msgs))); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRepair(t *testing.T) {
	tests := []struct {
		name  string
		msgs  []Message
		want  []Message
		fixes []string
	}{
		{"valid unchanged", []Message{u(text("hi")), a(use("t1")), u(result("t1"))}, []Message{u(text("hi")), a(use("t1")), u(result("t1"))}, nil},
		{"crash between call and result", []Message{u(text("hi")), a(text("reading"), use("t1"), use("t2"))},
			[]Message{u(text("hi")), a(text("reading"), use("t1"), use("t2")), u(Interrupted(use("t1"), ""), Interrupted(use("t2"), ""))},
			[]string{"unanswered-tool-use@1:t1", "unanswered-tool-use@1:t2"}},
		{"one parallel result lost, the user went on", []Message{u(text("hi")), a(use("t1"), use("t2")), u(result("t2"), text("继续"))},
			[]Message{u(text("hi")), a(use("t1"), use("t2")), u(Interrupted(use("t1"), ""), result("t2"), text("继续"))},
			[]string{"unanswered-tool-use@1:t1"}},
		{"stray result dropped, empty message dropped, assistants merged", []Message{u(text("hi")), a(text("a")), u(result("t9")), a(text("b"))},
			[]Message{u(text("hi")), a(text("a"), text("b"))},
			[]string{"stray-tool-result@2:t9", "empty-message@2", "same-role@2"}},
		{"first message the assistant's", []Message{a(use("t1")), u(result("t1"))},
			[]Message{NewText(User, "[The conversation before this point is not available.]"), a(use("t1")), u(result("t1"))},
			[]string{"first-not-user@0"}},
		{"same role merged, results first", []Message{u(text("x")), a(use("t1")), u(text("note")), u(result("t1"))},
			[]Message{u(text("x")), a(use("t1")), u(result("t1"), text("note"))},
			[]string{"same-role@3"}},
		{"result after text moved", []Message{u(text("x")), a(use("t1")), u(text("wait"), result("t1"))},
			[]Message{u(text("x")), a(use("t1")), u(result("t1"), text("wait"))},
			[]string{"tool-result-not-first@2:t1"}},
		{"blank text dropped", []Message{u(text("x"), text("  "))}, []Message{u(text("x"))}, []string{"empty-text@0"}},
		{"a reply cut off after its thinking dropped, the user messages merged", []Message{u(text("x")), a(think("sig"), redacted("enc")), u(text("z"))},
			[]Message{u(text("x"), text("z"))},
			[]string{"thinking-last@1", "thinking-last@1", "empty-message@1", "same-role@1"}},
		{"unsigned thinking dropped; a reply of only that dropped", []Message{u(text("x")), a(think(""), text("y")), u(text("z")), a(think("")), u(text("w"))},
			[]Message{u(text("x")), a(text("y")), u(text("z"), text("w"))},
			[]string{"unsendable-block@1", "unsendable-block@3", "empty-message@3", "same-role@3"}},
		{"web search blocks dropped, the answer kept", []Message{u(text("x")), a(think("sig"), serverUse, serverResult, text("Go 1.26 is out")), u(text("z"))},
			[]Message{u(text("x")), a(think("sig"), text("Go 1.26 is out")), u(text("z"))},
			[]string{"unsendable-block@1", "unsendable-block@1"}},
		{"a copied call dropped with its second result", []Message{u(text("x")), a(use("t1"), text("y"), use("t1")), u(result("t1"), result("t1"))},
			[]Message{u(text("x")), a(use("t1"), text("y")), u(result("t1"))},
			[]string{"duplicate-tool-use@1:t1", "stray-tool-result@2:t1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := cloneMsgs(tt.msgs)
			got, fixes := Repair(tt.msgs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("repaired (-want +got):\n%s", diff)
			}
			var ps []Problem
			for _, f := range fixes {
				ps = append(ps, f.Problem)
				if f.Action == "" || !strings.Contains(f.String(), f.Action) {
					t.Errorf("fix %v says nothing", f)
				}
			}
			if diff := cmp.Diff(tt.fixes, kinds(ps)); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tt.msgs); diff != "" {
				t.Errorf("Repair changed its input (-before +after):\n%s", diff)
			}
			if p := Check(got); len(p) != 0 {
				t.Errorf("repaired messages still break rules: %v", p)
			}
		})
	}
}

func cloneMsgs(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = Message{Role: m.Role, Content: slices.Clone(m.Content)}
	}
	return out
}

// randomMessages builds a damaged conversation: random roles, calls, results (some for calls
// that do not exist, some missing), blank and Chinese text.
func randomMessages(rng *rand.Rand) []Message {
	var out []Message
	next := 0
	var calls []string
	for range rng.IntN(12) {
		role := User
		if rng.IntN(2) == 0 {
			role = Assistant
		}
		var bs []Block
		for range rng.IntN(4) {
			switch k := rng.IntN(6); {
			case k == 0:
				bs = append(bs, text(""))
			case k == 1:
				bs = append(bs, text("中文 "+fmt.Sprint(rng.IntN(9))))
			case role == Assistant && k == 4 && len(calls) > 0:
				bs = append(bs, use(calls[rng.IntN(len(calls))])) // a copy of an earlier call
			case role == Assistant && k == 3 && rng.IntN(3) == 0:
				bs = append(bs, think([]string{"", "sig"}[rng.IntN(2)])) // signed or not
			case role == Assistant && k < 5:
				next++
				id := fmt.Sprint("t", next)
				calls = append(calls, id)
				bs = append(bs, use(id))
			case role == User && k < 5 && len(calls) > 0:
				bs = append(bs, result(calls[rng.IntN(len(calls))]))
			case role == User:
				bs = append(bs, result(fmt.Sprint("ghost", rng.IntN(3))))
			}
		}
		out = append(out, Message{Role: role, Content: bs})
	}
	return out
}

// TestRepairProperty: whatever the damage, the repaired messages pass Check (unless nothing
// sendable is left), Repair is idempotent, and nothing but blank text, thinking that cannot be
// sent and results answering no call is lost: every call and every non-blank text is still
// there.
func TestRepairProperty(t *testing.T) {
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 13))
		msgs := randomMessages(rng)
		checkRepair(t, msgs)
	}
}

func checkRepair(t *testing.T, msgs []Message) {
	t.Helper()
	got, fixes := Repair(msgs)
	if len(got) == 0 {
		// Nothing sendable: only blank text, thinking and results answering no call.
		for _, m := range msgs {
			for _, b := range m.Content {
				if !blankText(b) && b.Type != ToolResult && b.Type != Thinking {
					t.Fatalf("Repair(%v) dropped everything", msgs)
				}
			}
		}
		return
	}
	if p := Check(got); len(p) != 0 {
		t.Fatalf("Repair(%v) = %v still breaks %v", msgs, got, p)
	}
	if len(Check(msgs)) == 0 && len(fixes) != 0 {
		t.Fatalf("valid %v repaired: %v", msgs, fixes)
	}
	again, more := Repair(got)
	if len(more) != 0 || !cmp.Equal(got, again) {
		t.Fatalf("Repair is not idempotent on %v: %v", got, more)
	}
	count := func(ms []Message) (calls, texts map[string]int) {
		calls, texts = map[string]int{}, map[string]int{}
		for _, m := range ms {
			for _, b := range m.Content {
				switch {
				case b.Type == ToolUse:
					calls[b.ID]++
				case b.Type == Text && strings.TrimSpace(b.Text) != "":
					texts[b.Text]++
				}
			}
		}
		return
	}
	c0, t0 := count(msgs)
	c1, t1 := count(got)
	for id := range c0 {
		if c1[id] != 1 {
			t.Fatalf("call %s lost or kept twice: %v -> %v", id, c0, c1)
		}
	}
	if len(c1) != len(c0) {
		t.Fatalf("calls added: %v -> %v", c0, c1)
	}
	for k, n := range t0 {
		if t1[k] < n {
			t.Fatalf("text %q lost: %v -> %v", k, msgs, got)
		}
	}
}

func FuzzRepair(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkRepair(t, randomMessages(rand.New(rand.NewPCG(a, b))))
	})
}

func TestOpenCalls(t *testing.T) {
	tests := []struct {
		msgs []Message
		want []string
	}{
		{[]Message{u(text("x")), a(use("t1"), use("t2"))}, []string{"t1", "t2"}},
		{[]Message{u(text("x")), a(use("t1"), use("t2")), u(result("t1"))}, []string{"t2"}},
		{[]Message{u(text("x")), a(use("t1"), use("t2")), u(result("t1")), u(result("t2"))}, nil},
		{[]Message{u(text("x")), a(use("t1")), u(result("t1")), a(text("done"))}, nil},
		{[]Message{u(text("x"))}, nil},
	}
	for i, tt := range tests {
		var got []string
		for _, c := range OpenCalls(tt.msgs) {
			got = append(got, c.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%d: OpenCalls (-want +got):\n%s", i, diff)
		}
	}
}

func TestMerge(t *testing.T) {
	in := []Message{u(text("a")), u(text("b")), a(use("t1")), a(text("c")), u(text("note")), u(result("t1"))}
	want := []Message{u(text("a"), text("b")), a(use("t1"), text("c")), u(result("t1"), text("note"))}
	before := cloneMsgs(in)
	if diff := cmp.Diff(want, Merge(in)); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if !cmp.Equal(before, in) {
		t.Error("Merge changed its input")
	}
}
