package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolsListed(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.server(t, nil), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description, input or output schema missing", tool.Name)
		}
	}
	want := []string{"instructions", "memory_forget", "memory_get", "memory_list", "memory_save", "memory_search", "session_search"}
	slices.Sort(names)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestMemoryRoundTrip(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.server(t, nil), nil)

	saves := []SaveInput{
		{Name: "prefer tabs", Type: "feedback", Description: "indent Go with tabs, never spaces", Body: "Use tabs.\n\n**Why:** gofmt.\n\n**How to apply:** every Go file.\n"},
		{Name: "部署流程", Type: "project", Description: "生产部署需要先在预发布环境验证", Body: "部署前先在预发布环境跑完整测试。\n"},
		{Name: "bug tracker", Type: "reference", Description: "bugs are tracked in Linear project INGEST", Body: "Linear, project INGEST.\n"},
	}
	for _, in := range saves {
		var out SaveOutput
		mustCall(t, cs, "memory_save", in, &out)
		if !out.Created || out.File == "" || !strings.HasPrefix(out.URI, URIPrefix) {
			t.Errorf("save %q: %+v", in.Name, out)
		}
	}
	// Saving again replaces.
	var again SaveOutput
	mustCall(t, cs, "memory_save", saves[0], &again)
	if again.Created {
		t.Errorf("second save of %q created a new memory", saves[0].Name)
	}

	var list ListOutput
	mustCall(t, cs, "memory_list", map[string]any{}, &list)
	var got []string
	for _, m := range list.Memories {
		got = append(got, m.Name)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"bug tracker", "prefer tabs", "部署流程"}, got); diff != "" {
		t.Errorf("memory_list names (-want +got):\n%s", diff)
	}

	var mem GetOutput
	mustCall(t, cs, "memory_get", GetInput{Name: "部署流程"}, &mem)
	if mem.Memory.Type != "project" || !strings.Contains(mem.Body, "预发布环境") {
		t.Errorf("memory_get 部署流程 = %+v", mem)
	}

	for _, q := range []struct{ query, want string }{
		{"how should I indent Go code", "prefer tabs"},
		{"预发布 部署", "部署流程"},
		{"where are bugs tracked", "bug tracker"},
	} {
		var res SearchOutput
		mustCall(t, cs, "memory_search", SearchInput{Query: q.query, K: 2}, &res)
		if len(res.Results) == 0 || res.Results[0].Memory.Name != q.want {
			t.Errorf("memory_search %q: got %+v, want %q first", q.query, res.Results, q.want)
			continue
		}
		if res.Results[0].Content == "" || res.Searched != 3 {
			t.Errorf("memory_search %q: content %q, searched %d", q.query, res.Results[0].Content, res.Searched)
		}
	}

	var fo ForgetOutput
	mustCall(t, cs, "memory_forget", ForgetInput{Name: "bug tracker", Archive: true}, &fo)
	if fo.File == "" || fo.ArchivedTo == "" || fo.IndexLines != 1 {
		t.Errorf("memory_forget: %+v", fo)
	}
	if msg := call(t, cs, "memory_get", GetInput{Name: "bug tracker"}, nil); !strings.Contains(msg, "no memory called") {
		t.Errorf("memory_get after forget: %q", msg)
	}
	var res SearchOutput
	mustCall(t, cs, "memory_search", SearchInput{Query: "where are bugs tracked"}, &res)
	for _, h := range res.Results {
		if h.Memory.Name == "bug tracker" {
			t.Errorf("forgotten memory still found by memory_search")
		}
	}
}

func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	if err := os.Symlink(f.home, filepath.Join(f.project, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.dir, "outside.md"), filepath.Join(f.project, "link.md")); err != nil {
		t.Fatal(err)
	}
	f.write(t, "outside.md", "secret plans\n")
	cs := connect(t, f.server(t, nil), nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "x", Type: "user", Description: "d", Body: "b"}, nil)
	tests := []struct {
		tool string
		args any
		want string // in the error text
	}{
		{"memory_get", map[string]any{}, "name"},
		{"memory_get", map[string]any{"name": 5}, "name"},
		{"memory_get", GetInput{Name: ""}, "name is empty"},
		{"memory_get", GetInput{Name: "../../etc/passwd"}, "no memory called"},
		{"memory_get", GetInput{Name: "nope"}, "no memory called"},
		{"memory_save", SaveInput{Name: "a/b", Type: "user", Description: "d", Body: "b"}, "bad name"},
		{"memory_save", SaveInput{Name: "..", Type: "user", Description: "d", Body: "b"}, "bad name"},
		{"memory_save", SaveInput{Name: "", Type: "user", Description: "d", Body: "b"}, "bad name"},
		{"memory_save", SaveInput{Name: "ok", Type: "opinion", Description: "d", Body: "b"}, "bad type"},
		{"memory_save", SaveInput{Name: "key", Type: "reference", Description: "d", Body: "token: ghp_" + strings.Repeat("a1B2", 9)}, "secret"},
		{"memory_save", map[string]any{"name": "n"}, "type"},
		{"memory_forget", ForgetInput{Name: ""}, "name is empty"},
		{"memory_forget", ForgetInput{Name: "nope"}, "no memory called"},
		{"memory_search", SearchInput{Query: ""}, "query is empty"},
		{"memory_search", SearchInput{Query: "x", K: -1}, "between 1 and 5"},
		{"memory_search", SearchInput{Query: "x", K: 99}, "between 1 and 5"},
		{"memory_search", SearchInput{Query: strings.Repeat("a ", maxQueryBytes)}, "limit"},
		{"instructions", InstructionsInput{Path: "../.."}, "refused"},
		{"instructions", InstructionsInput{Path: "/etc"}, "outside the project"},
		{"instructions", InstructionsInput{Path: "escape"}, "refused"},
		{"instructions", InstructionsInput{Path: "link.md"}, "refused"},
		{"instructions", InstructionsInput{Path: "missing/dir"}, "no such file"},
		{"instructions", InstructionsInput{Path: "a\x00b"}, "NUL"},
		{"no_such_tool", map[string]any{}, "no_such_tool"},
	}
	for _, tt := range tests {
		msg := call(t, cs, tt.tool, tt.args, nil)
		if msg == "" {
			t.Errorf("%s(%v) succeeded, want an error mentioning %q", tt.tool, tt.args, tt.want)
		} else if !strings.Contains(msg, tt.want) {
			t.Errorf("%s(%v) = %q, want it to mention %q", tt.tool, tt.args, msg, tt.want)
		}
	}
	// The store is untouched by the refused writes.
	var list ListOutput
	mustCall(t, cs, "memory_list", ListInput{}, &list)
	if len(list.Memories) != 1 {
		t.Errorf("after refused writes the store has %d memories, want 1", len(list.Memories))
	}
}

func TestIndexFull(t *testing.T) {
	f := newFixture(t)
	f.write(t, "home/.strata/settings.json", `{"memoryIndexMaxLines": 2}`)
	cs := connect(t, f.server(t, nil), nil)
	for i := range 2 {
		mustCall(t, cs, "memory_save", SaveInput{Name: fmt.Sprint("m", i), Type: "user", Description: "d", Body: "b"}, nil)
	}
	msg := call(t, cs, "memory_save", SaveInput{Name: "m2", Type: "user", Description: "d", Body: "b"}, nil)
	if !strings.Contains(msg, "limit") {
		t.Errorf("third save with a 2-line index: %q, want a limit error", msg)
	}
}

func TestPanicIsAnError(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	mcp.AddTool(s.MCP(), &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, ListInput) (*mcp.CallToolResult, any, error) {
		panic("kaboom")
	})
	cs := connect(t, s, nil)
	if msg := call(t, cs, "boom", map[string]any{}, nil); !strings.Contains(msg, "kaboom") {
		t.Errorf("panicking tool: %q", msg)
	}
	mustCall(t, cs, "memory_list", ListInput{}, nil) // the session survives
}

func TestProjectFromRoots(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.dir, "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	s := f.server(t, func(o *Options) { o.Project = ""; o.WorkDir = other })
	c := mcp.NewClient(&mcp.Implementation{Name: "roots"}, nil)
	c.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(f.project)})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	// Roots can be asked for in the middle of a call up to protocol 2025-11-25.
	cs, err := c.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "memory_list", ListInput{}, nil)
	if got := s.ProjectRoot(); got != f.project {
		t.Errorf("project root = %q, want the client's root %q", got, f.project)
	}
}

func TestProjectFallsBackToWorkDir(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, func(o *Options) { o.Project = ""; o.WorkDir = f.project })
	cs := connect(t, s, nil) // a client with no roots
	mustCall(t, cs, "memory_list", ListInput{}, nil)
	if got := s.ProjectRoot(); got != f.project {
		t.Errorf("project root = %q, want the work dir %q", got, f.project)
	}
}

func TestNewRefusesMissingProject(t *testing.T) {
	f := newFixture(t)
	_, err := New(t.Context(), Options{Env: f.env, Project: filepath.Join(f.dir, "nope")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("New with a missing project: %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	const workers, rounds = 8, 10
	var wg sync.WaitGroup
	errs := make(chan string, workers*rounds)
	for w := range workers {
		cs := connect(t, s, nil)
		wg.Go(func() {
			for i := range rounds {
				name := fmt.Sprintf("w%d-m%d", w, i%5)
				steps := []struct {
					tool string
					args any
				}{
					{"memory_save", SaveInput{Name: name, Type: "project", Description: fmt.Sprintf("fact %d of worker %d", i, w), Body: "the build uses make 工具\n"}},
					{"memory_search", SearchInput{Query: "build make 工具"}},
					{"memory_get", GetInput{Name: name}},
					{"memory_list", ListInput{}},
				}
				if i%5 == 4 {
					steps = append(steps, struct {
						tool string
						args any
					}{"memory_forget", ForgetInput{Name: name}})
				}
				for _, st := range steps {
					if msg := call(t, cs, st.tool, st.args, nil); msg != "" {
						errs <- fmt.Sprintf("worker %d %s: %s", w, st.tool, msg)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var list ListOutput
	cs := connect(t, s, nil)
	mustCall(t, cs, "memory_list", ListInput{}, &list)
	if len(list.Memories) != workers*4 {
		t.Errorf("after the run: %d memories, want %d", len(list.Memories), workers*4)
	}
	if s.proj.ranker.Len() != workers*4 {
		t.Errorf("search index holds %d memories, want %d", s.proj.ranker.Len(), workers*4)
	}
}

func TestSearchBudgetAndAge(t *testing.T) {
	f := newFixture(t)
	later := time.Now().Add(80 * time.Hour)
	cs := connect(t, f.server(t, func(o *Options) { o.Now = func() time.Time { return later } }), nil)
	long := strings.Repeat("缓存失效的处理步骤，每一行都很重要。\n", 300)
	mustCall(t, cs, "memory_save", SaveInput{Name: "缓存", Type: "project", Description: "缓存失效的处理", Body: long}, nil)
	var res SearchOutput
	mustCall(t, cs, "memory_search", SearchInput{Query: "缓存失效"}, &res)
	if len(res.Results) != 1 {
		t.Fatalf("memory_search: %+v", res)
	}
	h := res.Results[0]
	if !h.Truncated || !strings.Contains(h.Content, "[strata: cut") || len(h.Content) > budget.FileBytes+300 {
		t.Errorf("content of %d bytes, truncated=%v, want it cut to the %d-byte budget with a note", len(h.Content), h.Truncated, budget.FileBytes)
	}
	if !strings.Contains(h.Age, "3 days old") {
		t.Errorf("age = %q, want a 3-day note", h.Age)
	}
	var got GetOutput
	mustCall(t, cs, "memory_get", GetInput{Name: "缓存"}, &got)
	if strings.TrimSpace(got.Body) != strings.TrimSpace(long) || !strings.Contains(got.Age, "3 days old") {
		t.Errorf("memory_get: body of %d bytes (want %d), age %q", len(got.Body), len(long), got.Age)
	}
}

// A notification the SDK could not send is not logged once per session (a save after 2,200
// abandoned sessions wrote 2,200 warnings): one line per notification method says to how many
// sessions it was not delivered. Other warnings pass.
func TestNoticeLogCountsFailedNotifications(t *testing.T) {
	var buf strings.Builder
	nl := newNoticeLog(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	log := slog.New(nl).With("component", "sdk")
	for range 300 {
		log.Warn("calling notifications/resources/list_changed: rejected: undelivered message: stream not connected")
	}
	log.Warn("calling notifications/resources/updated: client is closing: EOF")
	if buf.Len() != 0 {
		t.Errorf("failed notifications logged one by one: %q", buf.String())
	}
	nl.n.flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "sessions=300") || !strings.Contains(lines[0], "stream not connected") ||
		!strings.Contains(lines[1], "notifications/resources/updated") {
		t.Errorf("summary = %q, want one line per method with its count", buf.String())
	}
	buf.Reset()
	log.Warn("calling tools/call: something else")
	if !strings.Contains(buf.String(), "something else") {
		t.Errorf("another warning was dropped: %q", buf.String())
	}
}
