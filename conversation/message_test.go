package conversation

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessageJSON(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":"hello"}`), &m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(NewText(User, "hello"), m); diff != "" {
		t.Fatalf("string content (-want +got):\n%s", diff)
	}
	in := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"x"}],"is_error":true}]}`
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Content[0].Content[0].Text != "ok" || !m.Content[1].IsError || m.TextOf() != "ok\nx" {
		t.Fatalf("tool results: %+v", m)
	}
	out, _ := json.Marshal(m)
	var back Message
	json.Unmarshal(out, &back)
	if diff := cmp.Diff(m, back); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestSources(t *testing.T) {
	msgs := []Message{
		NewText(User, "fix the bug"),
		{Role: Assistant, Content: []Block{{Type: Text, Text: "looking"}, {Type: ToolUse, ID: "1", Name: "Read"}}},
		{Role: User, Content: []Block{{Type: ToolResult, ToolUseID: "1", Content: []Block{{Type: Text, Text: "package main"}}}, {Type: Text, Text: "and test it"}}},
	}
	user, tools := Sources(msgs)
	if user != "fix the bug\nand test it\n" || tools != "package main\n" {
		t.Errorf("Sources = %q, %q", user, tools)
	}
}
