package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

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
	a := f.agent(Options{Open: workspace.Options{Settings: settings, Allow: []string{"Bash(echo:*)"}}})
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

func TestApproverIsAskedInAskMode(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Bash", `{"command":"echo yes"}`), llmtest.ToolUse("t2", "Bash", `{"command":"echo no"}`)),
		llmtest.Text("done"),
	)
	var asked []string
	approver := func(_ context.Context, r permission.Request) (permission.Answer, error) {
		var in struct{ Command string }
		json.Unmarshal(r.Input, &in)
		asked = append(asked, r.Summary+" | "+r.Suggest)
		return permission.Answer{Allow: in.Command == "echo yes"}, nil
	}
	a := f.agent(Options{Approver: approver})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "Bash(echo:*)") {
		t.Errorf("asked = %q", asked)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != 2 || got[0] != "yes\n" || !strings.Contains(got[1], "the user declined") {
		t.Errorf("results = %q", got)
	}
}

// TestAllowPrefixEndToEnd drives the agent through the fake model server: with only
// Bash(echo:*) and Bash(find:*) allowed, every command that does more than echo or find is
// refused (the session cannot ask), and none of them creates its file.
func TestAllowPrefixEndToEnd(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("in.txt", "in\n")
	cmds := []string{
		"echo x > out1",
		"echo x >> out2",
		"echo x 2> out3",
		"echo x &> out4",
		"echo x >| out5",
		"echo x <> out6",
		"echo x <(touch out7)",
		"echo x >(touch out8)",
		"echo x; touch out9",
		"echo x && touch out10",
		"false || touch out11",
		"echo x | tee out12",
		"echo x & touch out13",
		"echo x\ntouch out14",
		"echo $(touch out15)",
		"echo `touch out16`",
		"echo ${x:-$(touch out17)}",
		"(echo x; touch out18)",
		"{ echo x; touch out19; }",
		"find . -maxdepth 0 -exec touch out20 \\;",
		"echo x 2>&1 >out21",
		"echo x <<EOF > out22\nx\nEOF",
		"echo x <<< x > out23",
		"echo x < in.txt",
		"echo $HOME",
	}
	var uses []conversation.Block
	for i, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		uses = append(uses, llmtest.ToolUse("t"+strconv.Itoa(i), "Bash", string(in)))
	}
	uses = append(uses, llmtest.ToolUse("ok", "Bash", `{"command":"echo ok"}`))
	f.srv.Script(llmtest.Blocks(uses...), llmtest.Text("done"))
	a := f.agent(Options{Open: workspace.Options{Allow: []string{"Bash(echo:*)", "Bash(find:*)", "Bash(false:*)"}}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != len(cmds)+1 {
		t.Fatalf("%d results for %d calls", len(got), len(cmds)+1)
	}
	for i, c := range cmds {
		if !strings.Contains(got[i], "needs the user's approval") {
			t.Errorf("%q ran without asking: %q", c, got[i])
		}
	}
	if got[len(cmds)] != "ok\n" {
		t.Errorf("the allowed command: %q", got[len(cmds)])
	}
	for i := 1; i <= 23; i++ {
		if _, err := os.Stat(filepath.Join(f.dir, "out"+strconv.Itoa(i))); err == nil {
			t.Errorf("out%d was created", i)
		}
	}
}

// TestDenyEverywhereEndToEnd: in bypass mode a deny rule stops the command it names wherever
// it stands in the command the model sends.
func TestDenyEverywhereEndToEnd(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	cmds := []string{
		"echo x; touch d1",
		"echo $(touch d2)",
		"echo `touch d3`",
		"sh -c 'touch d4'",
		"env FOO=1 touch d5",
		`\touch d6`,
		"find . -maxdepth 0 -exec touch d7 \\;",
		"echo x | xargs touch d8",
		"(touch d9)",
		"cat <(touch d10)",
		"command touch d11",
		"/usr/bin/env touch d12",
	}
	var uses []conversation.Block
	for i, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		uses = append(uses, llmtest.ToolUse("t"+strconv.Itoa(i), "Bash", string(in)))
	}
	uses = append(uses, llmtest.ToolUse("ok", "Bash", `{"command":"touch ok; echo made"}`))
	f.srv.Script(llmtest.Blocks(uses...), llmtest.Text("done"))
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Deny: []string{"Bash(touch d:*)"}}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != len(cmds)+1 {
		t.Fatalf("%d results for %d calls", len(got), len(cmds)+1)
	}
	for i, c := range cmds {
		if !strings.Contains(got[i], `denied by the permission rule "Bash(touch d:*)"`) {
			t.Errorf("%q was not denied: %q", c, got[i])
		}
	}
	if got[len(cmds)] != "made\n" {
		t.Errorf("the command the rule does not name: %q", got[len(cmds)])
	}
	for i := 1; i <= len(cmds); i++ {
		if _, err := os.Stat(filepath.Join(f.dir, "d"+strconv.Itoa(i))); err == nil {
			t.Errorf("d%d was created", i)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "ok")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

// TestIssue26RulesEndToEnd: the rules strata offers for "don't ask again" do not let issue
// 26's spellings run another program, and a deny rule is not beaten by wrappers, the
// dynamic loader, a shell reading stdin or ex's shell escape; through the agent and the fake
// model server, none of the commands creates its file.
func TestIssue26RulesEndToEnd(t *testing.T) {
	loader := ""
	for _, l := range []string{"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-musl-x86_64.so.1"} {
		if _, err := os.Stat(l); err == nil {
			loader = l
		}
	}
	for _, tt := range []struct {
		name string
		opts Options
		want string // in every refused call's result
		cmds []string
	}{
		{"allow", Options{Open: workspace.Options{Allow: []string{"Bash(git ls-remote:*)", "Bash(git grep:*)", "Bash(git fetch:*)",
			"Bash(go test:*)", "Bash(go vet:*)", "Bash(tar:*)", "Bash(sed -n 1p f)", "Bash(make:*)", "Bash(curl:*)", "Bash(scp:*)"}}},
			"needs the user's approval", []string{
				"git ls-remote --upload-pack='touch x1; false' .",
				"git grep -O'touch x2' main",
				"git fetch --upload-pack='touch x3; false' .",
				"go test --exec='touch x4' ./...",
				"go vet --vettool=./x5 ./...",
				"tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='touch x6' .",
				"sed -n '1e touch x7' f",
				"make --eval='all:;touch x8'",
				"curl -K x9 file:///dev/null",
				"scp -o ProxyCommand='touch x10' a h:b",
			}},
		{"deny", Options{Open: workspace.Options{Mode: permission.ModeBypass, Deny: []string{"Bash(touch:*)"}}},
			`denied by the permission rule "Bash(touch:*)"`, []string{
				"prlimit --nofile=64 touch x1",
				"setarch $(uname -m) -R touch x2",
				loader + " /usr/bin/touch x3",
				"echo dG91Y2ggeDQK | base64 -d | sh",
				"ex -s -c '!touch x5' -c q",
				"timeout 5 nice -n 1 touch x6",
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, llmtest.Anthropic)
			f.write("f", "line\n")
			var uses []conversation.Block
			for i, c := range tt.cmds {
				in, _ := json.Marshal(map[string]string{"command": c})
				uses = append(uses, llmtest.ToolUse("t"+strconv.Itoa(i), "Bash", string(in)))
			}
			f.srv.Script(llmtest.Blocks(uses...), llmtest.Text("done"))
			a := f.agent(tt.opts)
			if _, err := a.Run(context.Background(), "go", nil); err != nil {
				t.Fatal(err)
			}
			got := toolResults(f.srv.Requests()[1])
			for i, c := range tt.cmds {
				if c == " /usr/bin/touch x3" {
					continue // no dynamic loader here
				}
				if !strings.Contains(at(got, i), tt.want) {
					t.Errorf("%q: %q, want %q", c, at(got, i), tt.want)
				}
				if _, err := os.Stat(filepath.Join(f.dir, "x"+strconv.Itoa(i+1))); err == nil {
					t.Errorf("%q created x%d", c, i+1)
				}
			}
		})
	}
}

// An Edit or Write the tool would refuse (a file not read, an old text not in it) is refused
// before the user is asked, with the tool's own message; one that can run is asked about.
func TestRefusedCallsAreNotAskedAbout(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "alpha\n")
	f.write("b.txt", "beta\n")
	f.srv.Script(
		llmtest.Blocks(
			llmtest.ToolUse("t1", "Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`),
			llmtest.ToolUse("t2", "Write", `{"file_path":"b.txt","content":"B"}`),
			llmtest.ToolUse("t3", "Read", `{"file_path":"a.txt"}`),
			llmtest.ToolUse("t4", "Edit", `{"file_path":"a.txt","old_string":"gamma","new_string":"GAMMA"}`),
			llmtest.ToolUse("t5", "Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`),
		),
		llmtest.Text("done"),
	)
	var asked []string
	approver := func(_ context.Context, r permission.Request) (permission.Answer, error) {
		asked = append(asked, r.Summary)
		return permission.Answer{Allow: true}, nil
	}
	a := f.agent(Options{Approver: approver})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	for i, want := range []string{"has not been read yet", "has not been read yet", "alpha", "old_string was not found", "Edited"} {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want it to contain %q", i+1, at(got, i), want)
		}
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "a.txt") {
		t.Errorf("asked about %q, want only the edit that can run", asked)
	}
}

// In plan mode the model may read but not change anything, and is told to present its plan;
// switching the mode lets the next call through.
func TestPlanModeDeniesChanges(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "alpha\n")
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("t1", "Read", `{"file_path":"a.txt"}`), llmtest.ToolUse("t2", "Bash", `{"command":"echo hi"}`)),
		llmtest.Text("Plan: change alpha."),
		llmtest.Blocks(llmtest.ToolUse("t3", "Bash", `{"command":"echo hi"}`)),
		llmtest.Text("done"),
	)
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModePlan}, Approver: func(context.Context, permission.Request) (permission.Answer, error) {
		return permission.Answer{Allow: true}, nil
	}})
	if _, err := a.Run(context.Background(), "plan it", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	if len(got) != 2 || !strings.Contains(got[0], "alpha") || !strings.Contains(got[1], "plan mode") {
		t.Errorf("results in plan mode: %q", got)
	}
	a.SetPermissionMode(permission.ModeAsk)
	if _, err := a.Run(context.Background(), "go ahead", nil); err != nil {
		t.Fatal(err)
	}
	if got := toolResults(f.srv.Requests()[3]); len(got) != 1 || got[0] != "hi\n" {
		t.Errorf("results after the switch: %q", got)
	}
}
