package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

// slowSelector takes up to delay to answer, or until release is closed; returned closes when
// it has answered.
type slowSelector struct {
	delay    time.Duration
	release  chan struct{}
	returned chan struct{}
}

func (s *slowSelector) Select(ctx context.Context, q string, short []recall.Candidate, max int) ([]string, error) {
	defer close(s.returned)
	select {
	case <-s.release:
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return recall.Lexical{}.Select(ctx, q, short, max)
}

func TestSlowRecallDoesNotDelayTheFirstToken(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "x\n")
	sel := &slowSelector{delay: 2 * time.Second, release: make(chan struct{}), returned: make(chan struct{})}
	a := f.agent(Options{Selector: sel})
	if _, err := a.store.Add(context.Background(), memdir.Input{Name: "deploy steps", Description: "How to deploy the service to production", Type: memdir.TypeProject, Body: "Run make deploy after the tests pass."}); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(
		llmtest.Blocks(llmtest.TextBlock("Checking."), llmtest.ToolUse("t1", "Read", `{"file_path":"a.txt"}`)),
		llmtest.Text("Deploy with make deploy."),
	)
	var order []string
	sink := func(e Event) {
		switch e.Kind {
		case EventText:
			if len(order) == 0 {
				select {
				case <-sel.returned:
					order = append(order, "recall")
				default:
				}
				order = append(order, "first token")
				close(sel.release) // recall may finish now
			}
		case EventToolEnd:
			a.prompt.WaitRecall() // the tool takes as long as recall: the next boundary has it
		case EventRecall:
			order = append(order, "recall injected")
		}
	}
	res, err := a.Run(context.Background(), "how do we deploy to production?", sink)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first token", "recall injected"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	reqs := f.srv.Requests()
	if strings.Contains(string(reqs[0].Body), "make deploy") {
		t.Errorf("the first request waited for recall")
	}
	if tail := lastUserText(reqs[1]); !strings.Contains(tail, "Run make deploy") || !strings.Contains(tail, `<memory file="deploy-steps.md"`) {
		t.Errorf("second request's tail lacks the recalled memory: %q", tail)
	}
	if res.Text != "Deploy with make deploy." {
		t.Errorf("text = %q", res.Text)
	}
}

func TestModelSelectorDropsUnknownNamesAndCaps(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Blocks(llmtest.ToolUse("s1", "select_memories", `{"selected":["b.md","nope.md","a.md","b.md","c.md"]}`)))
	short := []recall.Candidate{{File: "a.md", Name: "a"}, {File: "b.md", Name: "b"}, {File: "c.md", Name: "c"}}
	sel := &ModelSelector{Provider: f.prov, Model: "small"}
	got, err := sel.Select(context.Background(), "which?", short, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b.md", "a.md"}, got); diff != "" {
		t.Errorf("selected (-want +got):\n%s", diff)
	}
	req := f.srv.Requests()[0]
	if req.At("model") != "small" || req.At("tool_choice", "name") != "select_memories" {
		t.Errorf("request: model %v, tool_choice %v", req.At("model"), req.At("tool_choice"))
	}
	body, _ := json.Marshal(req.At("messages"))
	if !strings.Contains(string(body), "a.md") {
		t.Errorf("the shortlist is not in the prompt")
	}
	// A failing model falls back to the lexical order.
	f.srv.Script(llmtest.StatusError(400, "invalid_request_error", "bad"))
	got, err = sel.Select(context.Background(), "which?", short, 2)
	if err != nil || len(got) != 2 || got[0] != "a.md" {
		t.Errorf("fallback = %v, %v", got, err)
	}
}

// withTeamStore returns Options mounting a store "team" that holds one memory, "release train".
func withTeamStore(t *testing.T) Options {
	team := t.TempDir()
	ts, err := memdir.Open(team, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Add(context.Background(), memdir.Input{Name: "release train", Description: "How the team ships releases to production", Type: memdir.TypeProject, Body: "Releases leave on Tuesdays."}); err != nil {
		t.Fatal(err)
	}
	return Options{Open: workspace.Options{Settings: &config.Settings{MemoryStores: []config.MemoryStore{{Name: "team", Path: team, From: "settings.json"}}}}}
}

// A mounted store's memories are recalled with the project's, the injected text names their
// store, and its index is in the session context beside the project's.
func TestRecallFromMountedStore(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("a.txt", "x\n")
	a := f.agent(withTeamStore(t))
	f.srv.Script(
		llmtest.Blocks(llmtest.TextBlock("Checking."), llmtest.ToolUse("t1", "Read", `{"file_path":"a.txt"}`)),
		llmtest.Text("Tuesdays."),
	)
	sink := func(e Event) {
		if e.Kind == EventToolEnd {
			a.prompt.WaitRecall()
		}
	}
	if _, err := a.Run(context.Background(), "when do releases ship to production?", sink); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if !strings.Contains(string(reqs[0].Body), `store=\"team\"`) || !strings.Contains(string(reqs[0].Body), "How the team ships releases") {
		t.Errorf("the team's index is not in the first request")
	}
	tail := lastUserText(reqs[1])
	if !strings.Contains(tail, `<memory file="release-train.md" name="release train" type="project" store="team">`) ||
		!strings.Contains(tail, "from the shared memory stores named by store=") {
		t.Errorf("second request's tail lacks the team memory: %q", tail)
	}
}

// The session's memory_search ranks the mounted stores with the project's and names a team
// memory store:file; a fork's searches only the project's store, where its writes go.
func TestMemorySearchToolRanksMountedStores(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(withTeamStore(t))
	mustCall(t, a, "memory_save", `{"name":"release notes","description":"Where this project's release notes live","type":"reference","body":"docs/CHANGES.md, one line per release."}`)

	out := mustCall(t, a, "memory_search", `{"query":"releases production"}`)
	if !strings.Contains(out, "release train (team:release-train.md,") || !strings.Contains(out, "release notes (release-notes.md,") {
		t.Errorf("the session's memory_search lacks the team's memory or the project's:\n%s", out)
	}
	fe := a.forks.newEnv()
	c, err := tool.Decode(fe, "memory_search", json.RawMessage(`{"query":"releases production"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err = a.tools.Get("memory_search").Run(context.Background(), fe, c)
	if err != nil || strings.Contains(out, "release train") || !strings.Contains(out, "release notes") {
		t.Errorf("a fork's memory_search: %v\n%s", err, out)
	}
}
