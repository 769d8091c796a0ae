package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		bad  bool
	}{
		{"Read", Rule{Tool: "Read"}, false},
		{"Bash(go test:*)", Rule{Tool: "Bash", Spec: "go test:*"}, false},
		{"Edit(src/**)", Rule{Tool: "Edit", Spec: "src/**"}, false},
		{"Edit(*)", Rule{Tool: "Edit"}, false},
		{"", Rule{}, true},
		{"Bash(go", Rule{}, true},
		{"(x)", Rule{}, true},
		{"Edit([)", Rule{}, true},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if (err != nil) != tt.bad || !tt.bad && got != tt.want {
			t.Errorf("ParseRule(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func TestPermissionsCheck(t *testing.T) {
	p, err := NewPermissions(ModeAsk, []string{"Bash(go test:*)", "Edit(src/**)", "Bash(make)"}, []string{"Bash(go test ./secret:*)", "Read(.env)"}, "/p", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		c    class
		s    subject
		want Decision
	}{
		{"Bash", classExec, subject{command: "go test ./..."}, Allow},
		{"Bash", classExec, subject{command: "go test"}, Allow},
		{"Bash", classExec, subject{command: "go testing"}, AskUser},
		{"Bash", classExec, subject{command: "go test ./... && rm -rf /"}, AskUser},
		{"Bash", classExec, subject{command: "go test ./secret/x"}, Deny},
		{"Bash", classExec, subject{command: "make"}, Allow},
		{"Bash", classExec, subject{command: "go test ./x; go test ./secret/y"}, Deny},
		{"Bash", classExec, subject{command: "make all"}, AskUser},
		{"Edit", classEdit, subject{path: "/p/src/a/b.go"}, Allow},
		{"Write", classEdit, subject{path: "/p/src/new.go"}, Allow},
		{"Edit", classEdit, subject{path: "/p/main.go"}, AskUser},
		{"Read", classRead, subject{path: "/p/main.go"}, Allow},
		{"Read", classRead, subject{path: "/p/.env"}, Deny},
		{"Grep", classRead, subject{path: "/p/.env"}, Deny},
		{"memory_save", classMemory, subject{}, Allow},
		{"TodoWrite", classState, subject{}, Allow},
	}
	for _, tt := range tests {
		if got, _ := p.check(tt.tool, tt.c, tt.s); got != tt.want {
			t.Errorf("%s %+v = %v, want %v", tt.tool, tt.s, got, tt.want)
		}
	}
	for mode, want := range map[Mode][2]Decision{ModeAsk: {AskUser, AskUser}, ModeAcceptEdits: {Allow, AskUser}, ModeBypass: {Allow, Allow}} {
		p := &Permissions{Mode: mode, Cwd: "/p"}
		e, _ := p.check("Edit", classEdit, subject{path: "/p/x"})
		b, _ := p.check("Bash", classExec, subject{command: "ls"})
		if [2]Decision{e, b} != want {
			t.Errorf("mode %s: edit %v, bash %v; want %v", mode, e, b, want)
		}
	}
	// Deny wins even in bypass mode.
	p.Mode = ModeBypass
	if d, _ := p.check("Read", classRead, subject{path: "/p/.env"}); d != Deny {
		t.Errorf("bypass overrode a deny rule")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAsk, "default": ModeAsk, "acceptEdits": ModeAcceptEdits, "accept-edits": ModeAcceptEdits, "bypass": ModeBypass, "bypassPermissions": ModeBypass} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Errorf("unknown mode accepted")
	}
}

func TestNonInteractiveDenialsReachTheModel(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("src/a.txt", "a\n")
	f.write("b.txt", "b\n")
	f.srv.Script(
		llmtest.Blocks(
			llmtest.ToolUse("t1", "Bash", `{"command":"echo hi"}`),
			llmtest.ToolUse("t2", "Bash", `{"command":"rm -rf build"}`),
			llmtest.ToolUse("t3", "Read", `{"file_path":"src/a.txt"}`),
			llmtest.ToolUse("t4", "Edit", `{"file_path":"src/a.txt","old_string":"a","new_string":"A"}`),
			llmtest.ToolUse("t5", "Write", `{"file_path":"b.txt","content":"B"}`),
		),
		llmtest.Text("done"),
	)
	settings := &config.Settings{Permissions: config.Permissions{Allow: []string{"Edit(src/**)"}, Deny: []string{"Bash(rm:*)"}}}
	a := f.agent(Options{Settings: settings, Allow: []string{"Bash(echo:*)"}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	checks := []string{"hi\n", `denied by the permission rule "Bash(rm:*)"`, "     1\ta", "Edited", "--allow 'Edit(b.txt)'"}
	for i, want := range checks {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want it to contain %q", i+1, at(got, i), want)
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

func TestApproverIsAskedInAskMode(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo yes"}`), llmtest.ToolUse("t2", "Bash", `{"command":"echo no"}`)),
		llmtest.Text("done"),
	)
	var asked []string
	approver := func(_ context.Context, r PermissionRequest) (bool, error) {
		var in struct{ Command string }
		json.Unmarshal(r.Input, &in)
		asked = append(asked, r.Summary+" | "+r.Suggest)
		return in.Command == "echo yes", nil
	}
	a := f.agent(Options{Approver: approver})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "Bash(echo yes:*)") {
		t.Errorf("asked = %q", asked)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != 2 || got[0] != "yes\n" || !strings.Contains(got[1], "the user declined") {
		t.Errorf("results = %q", got)
	}
}
