package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// TestDontAskAgain: "yes, don't ask again" for "echo one" allows "echo two" in the same
// session without asking, is saved to the project's settings.local.json (merged, other keys
// kept) and to the user's approvals, and holds in the next session; a clone's unapproved
// local rule does not. "No, and tell the model" sends the user's words back.
func TestDontAskAgain(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	local := config.LocalSettingsPath(f.dir)
	f.write(".claude/settings.local.json", "{\n  \"model\": \"kept\"\n}\n")
	var asked []permission.Request
	approver := func(_ context.Context, r permission.Request) (permission.Answer, error) {
		asked = append(asked, r)
		if strings.Contains(r.Summary, "rm") {
			return permission.Answer{Feedback: "use git clean instead"}, nil
		}
		return permission.Answer{Allow: true, Always: true}, nil
	}
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo one"}`)),
		llmtest.Blocks(llmtest.ToolUse("t2", "Bash", `{"command":"echo two"}`)),
		llmtest.Blocks(llmtest.ToolUse("t3", "Bash", `{"command":"rm -r build"}`)),
		llmtest.Text("done"),
	)
	// Settings read from the files (nil Settings would use the fixture's empty ones).
	open := func() *Agent {
		ws := f.env
		a, err := New(context.Background(), Options{Provider: f.prov, Approver: approver, NoBackground: true, Open: workspace.Options{Cwd: f.dir, Env: ws}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(context.Background()) })
		return a
	}
	a := open()
	if _, err := a.Run(t.Context(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0].Always != "Bash(echo:*)" || !asked[0].AlwaysSaved {
		t.Fatalf("asked %+v; want echo one (offering Bash(echo:*)) and rm, not echo two", asked)
	}
	results := toolResults(f.srv.Requests()[3])
	if len(results) != 1 || !strings.Contains(results[0], "use git clean instead") {
		t.Errorf("the declined call's result = %q, want the user's words", results)
	}
	data, _ := os.ReadFile(local)
	var v struct {
		Model       string
		Permissions struct{ Allow []string }
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Model != "kept" || len(v.Permissions.Allow) != 1 || v.Permissions.Allow[0] != "Bash(echo:*)" {
		t.Errorf("settings.local.json = %s (%v)", data, err)
	}
	if got, _ := f.env.Approvals(f.dir); len(got) != 1 || got[0] != "Bash(echo:*)" {
		t.Errorf("approvals = %q", got)
	}
	a.Close(t.Context())

	// The next session: echo three runs without asking.
	asked = nil
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t4", "Bash", `{"command":"echo three"}`)), llmtest.Text("done"))
	b := open()
	if _, err := b.Run(t.Context(), "again", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 0 {
		t.Errorf("the next session asked about %+v", asked)
	}

	// Without the user's approval, the same local rule (a clone's) allows nothing.
	os.Remove(f.env.ApprovalsPath(f.dir))
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("t5", "Bash", `{"command":"echo four"}`)), llmtest.Text("done"))
	c := open()
	if _, err := c.Run(t.Context(), "once more", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 {
		t.Errorf("an unapproved local rule was honoured (asked %d times)", len(asked))
	}
}

// TestEditDontAskAgain: "don't ask again" for an edit allows every edit for the rest of the
// session, and saves nothing.
func TestEditDontAskAgain(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	n := 0
	approver := func(_ context.Context, r permission.Request) (permission.Answer, error) {
		n++
		if r.Always != "Edit" || r.AlwaysSaved {
			t.Errorf("edit request offers %q (saved %v)", r.Always, r.AlwaysSaved)
		}
		return permission.Answer{Allow: true, Always: true}, nil
	}
	a := f.agent(Options{Approver: approver})
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`)),
		llmtest.Blocks(llmtest.ToolUse("w2", "Write", `{"file_path":"sub/b.txt","content":"b"}`)),
		llmtest.Text("done"),
	)
	if _, err := a.Run(t.Context(), "write", nil); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "sub", "b.txt")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(config.LocalSettingsPath(f.dir)); err == nil {
		t.Error("an edit allowance was saved")
	}
}
