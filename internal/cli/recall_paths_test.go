package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/mcpserver"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

// shortlistSelector records the shortlist recall hands the selector (the ranker's order, with
// scores) and keeps the lexical order.
type shortlistSelector struct {
	got  chan []recall.Candidate
	done bool
}

func (s *shortlistSelector) Select(ctx context.Context, q string, short []recall.Candidate, max int) ([]string, error) {
	if !s.done {
		s.done = true
		s.got <- short
	}
	return recall.Lexical{}.Select(ctx, q, short, max)
}

// ranked is one memory of a ranking: its store ("" for the project's), file and score (to
// the 3 decimals memory search prints).
type ranked struct {
	Ref   string
	Score float64
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// TestRecallRanksAlikeOnEveryPath: a session's recall, strata memory search and the MCP
// server's memory_search rank the project's and a mounted store's memories the same way for
// the same query: same memories of both stores, in the same order, with the same scores.
func TestRecallRanksAlikeOnEveryPath(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	proj, team := filepath.Join(dir, "proj"), filepath.Join(dir, "team")
	for _, d := range []string{filepath.Join(proj, ".git"), team} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := config.Env{Home: filepath.Join(dir, "home", ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home"),
		Getenv: func(k string) string {
			if k == config.StoresVar {
				return "team=" + team
			}
			return ""
		}}
	ws, err := workspace.Open(t.Context(), workspace.Options{Cwd: proj, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ws.Store()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := memdir.Open(team, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(s *memdir.Store, name, desc, body string) {
		t.Helper()
		if _, err := s.Add(t.Context(), memdir.Input{Name: name, Description: desc, Type: memdir.TypeProject, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	add(ps, "deploy steps", "How to deploy the service to production", "Run make deploy after the tests pass; production deploys need a green build.")
	add(ps, "release notes", "Where release notes are written", "Each release gets notes in CHANGELOG.md before the tag.")
	add(ps, "friday freeze", "Never deploy on Fridays", "A Friday deploy to production broke the release twice.")
	add(ps, "staging", "The staging cluster", "Staging mirrors production; deploy there first.")
	add(ps, "db migrations", "How schema migrations run", "Migrations run on Mondays, never during a deploy.")
	add(ps, "rollback", "How to roll back a bad release", "Redeploy the previous tag to production with make rollback.")
	add(ts, "release train", "How the team ships releases to production", "Releases leave on Tuesdays; deploy with the release bot.")
	add(ts, "on call", "Who is on call for production", "The rota is in the wiki.")
	// The same memory in both stores: each is ranked in its own store's index, both are found.
	add(ps, "deploy bot", "The deploy bot posts every production release", "It posts in #deploys.")
	add(ts, "deploy bot", "The deploy bot posts every production release", "It posts in #deploys.")
	const query = "how do we deploy a release to production?"
	const k = 5

	// strata memory search.
	var out, errb bytes.Buffer
	app := &App{In: strings.NewReader(""), Out: &out, Err: &errb, Env: env, Getwd: func() (string, error) { return proj, nil }, Now: time.Now}
	if code := Run(app, []string{"memory", "search", "--json", "-k", fmt.Sprint(k), query}); code != 0 {
		t.Fatalf("memory search: exit %d: %s", code, errb.String())
	}
	var cli struct{ Hits []searchHitJSON }
	if err := json.Unmarshal(out.Bytes(), &cli); err != nil {
		t.Fatalf("memory search --json: %v\n%s", err, out.String())
	}
	var bySearch []ranked
	for _, h := range cli.Hits {
		bySearch = append(bySearch, ranked{recall.Ref(h.Store, h.File), h.Score})
	}

	// The MCP server's memory_search.
	srv, err := mcpserver.New(t.Context(), mcpserver.Options{Env: env, Project: proj, PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_search", Arguments: mcpserver.SearchInput{Query: query, K: k}})
	if err != nil || res.IsError {
		t.Fatalf("memory_search: %v %+v", err, res)
	}
	data, _ := json.Marshal(res.StructuredContent)
	var so mcpserver.SearchOutput
	if err := json.Unmarshal(data, &so); err != nil {
		t.Fatal(err)
	}
	var byMCP []ranked
	for _, h := range so.Results {
		byMCP = append(byMCP, ranked{recall.Ref(h.Memory.Store, h.Memory.File), round3(h.Score)})
	}

	// A session's recall: the shortlist its selector is handed, best first.
	fake := llmtest.NewAnthropic(t)
	prov, err := llm.New(fake.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "a.txt"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sel := &shortlistSelector{got: make(chan []recall.Candidate, 1)}
	a, err := agent.New(t.Context(), agent.Options{Provider: prov, Open: workspace.Options{Cwd: proj, Env: env}, Selector: sel, NoBackground: true, NoTranscript: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	fake.Script(
		llmtest.Blocks(llmtest.TextBlock("Checking."), llmtest.ToolUse("t1", "Read", `{"file_path":"a.txt"}`)),
		llmtest.Text("Done."),
	)
	var short []recall.Candidate
	sink := func(e agent.Event) {
		if e.Kind == agent.EventToolEnd && short == nil {
			select {
			case short = <-sel.got:
			case <-time.After(30 * time.Second):
				t.Error("recall never reached its selector")
			}
		}
	}
	if _, err := a.Run(t.Context(), query, sink); err != nil {
		t.Fatal(err)
	}
	var byAgent []ranked
	for _, c := range short[:min(k, len(short))] {
		byAgent = append(byAgent, ranked{c.File, round3(c.Score)})
	}

	if len(bySearch) != k {
		t.Fatalf("memory search found %v, want %d memories", bySearch, k)
	}
	stores := map[bool]bool{}
	for _, r := range bySearch {
		stores[strings.HasPrefix(r.Ref, "team:")] = true
	}
	if !stores[true] || !stores[false] {
		t.Errorf("memory search %v: want memories of both stores", bySearch)
	}
	if diff := cmp.Diff(bySearch, byMCP); diff != "" {
		t.Errorf("MCP memory_search against strata memory search (-search +mcp):\n%s", diff)
	}
	if diff := cmp.Diff(bySearch, byAgent); diff != "" {
		t.Errorf("the agent's recall against strata memory search (-search +agent):\n%s", diff)
	}
}
