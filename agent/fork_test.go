package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

// Every tool, run in a fork's env, either works or refuses cleanly (an error wrapping
// errNotInFork): none panics, and none reaches the main conversation's todos, read cache or
// pending instructions. A tool added to the set without an entry here fails the test.
func TestEveryToolInAFork(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("sub/notes.txt", "one\ntwo\n")
	f.write("sub/CLAUDE.md", "Nested rules for sub.\n")
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	inputs := []struct {
		tool, input string
		refused     bool
	}{
		{"Read", `{"file_path":"sub/notes.txt"}`, false},
		{"Write", `{"file_path":"sub/new.txt","content":"x"}`, false},
		{"Edit", `{"file_path":"sub/notes.txt","old_string":"two","new_string":"2"}`, false},
		{"Glob", `{"pattern":"**/*.txt"}`, false},
		{"Grep", `{"pattern":"one","path":"sub"}`, false},
		{"Bash", `{"command":"echo hi"}`, false},
		{"TodoWrite", `{"todos":[{"content":"a","activeForm":"doing a","status":"pending"}]}`, true},
		{"memory_save", `{"name":"n","description":"d","type":"user","body":"b"}`, true},
		{"memory_forget", `{"name":"n"}`, true},
		{"memory_search", `{"query":"anything"}`, false},
	}
	covered := map[string]bool{}
	fe := a.forks.newEnv()
	for _, in := range inputs {
		covered[in.tool] = true
		t.Run(in.tool, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked in a fork: %v", in.tool, r)
				}
			}()
			tl := a.tools.Get(in.tool)
			if tl == nil {
				t.Fatalf("the agent does not offer %s", in.tool)
			}
			c, err := tool.Decode(fe, in.tool, []byte(in.input))
			if err != nil {
				t.Fatal(err)
			}
			out, err := tl.Run(context.Background(), fe, c)
			switch {
			case in.refused && !errors.Is(err, tool.ErrNotInFork):
				t.Errorf("%s in a fork = %q, %v; want a refusal wrapping tool.ErrNotInFork", in.tool, out, err)
			case !in.refused && err != nil:
				t.Errorf("%s in a fork: %v", in.tool, err)
			}
		})
	}
	for _, name := range a.Tools() {
		if !covered[name] {
			t.Errorf("tool %s is not tried in a fork", name)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(f.dir, "sub", "notes.txt")); string(data) != "one\n2\n" {
		t.Errorf("the fork's Edit (after its own Read) did not apply: %q", data)
	}
	if todos := a.Todos(); len(todos) != 0 {
		t.Errorf("the fork wrote the main todo list: %v", todos)
	}
	if _, taken, ok := a.prompt.Boundary(); ok {
		t.Errorf("the fork's file accesses queued %d instruction attachments in the main conversation", len(taken))
	}
	if _, ok := a.prompt.Cache().Get(filepath.Join(f.dir, "sub", "notes.txt")); ok {
		t.Error("the fork's Read is in the main agent's read cache")
	}
	if mems, _, err := a.store.List(context.Background()); err != nil || len(mems) != 0 {
		t.Errorf("the fork saved memory outside its policy: %v %v", mems, err)
	}
}
