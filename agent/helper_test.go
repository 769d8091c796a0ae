package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm"
	_ "github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
	_ "github.com/strata-mem/strata/llm/openai"
	"github.com/strata-mem/strata/transcript"
)

// fixture is a project directory, a STRATA_HOME and a fake model server.
type fixture struct {
	t    testing.TB
	srv  *llmtest.Server
	dir  string // the project (working directory)
	env  config.Env
	prov llm.Provider
	// background leaves the session's background work (notes, extraction, auto-dream) on;
	// other tests keep it off so that their scripted replies are not taken by a fork.
	background bool
}

func newFixture(t testing.TB, format llmtest.Format) *fixture {
	t.Helper()
	var srv *llmtest.Server
	if format == llmtest.OpenAI {
		srv = llmtest.NewOpenAI(t)
	} else {
		srv = llmtest.NewAnthropic(t)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := config.Env{Home: filepath.Join(root, "home", ".strata"), UserHome: filepath.Join(root, "home"), Getenv: func(string) string { return "" }}
	prov, err := llm.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, srv: srv, dir: dir, env: env, prov: prov}
}

func (f *fixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) agent(opts Options) *Agent {
	f.t.Helper()
	opts.Provider = f.prov
	if opts.Open.Cwd == "" {
		opts.Open.Cwd = f.dir
	}
	opts.Open.Env = f.env
	if !f.background {
		opts.NoBackground = true
	}
	if opts.Open.Settings == nil {
		opts.Open.Settings = &config.Settings{}
	}
	a, err := New(context.Background(), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) sink(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// autoCompactions counts the automatic compactions among the events, and reports as an error
// every compaction event that holds one of bad (a failure, a skip, the breaker).
func (r *recorder) autoCompactions(t *testing.T, bad ...string) int {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Kind != EventCompact {
			continue
		}
		if strings.HasPrefix(e.Text, "conversation compacted automatically") {
			n++
		}
		for _, b := range bad {
			if strings.Contains(e.Text, b) {
				t.Errorf("compaction event: %s", e.Text)
				break
			}
		}
	}
	return n
}

func (r *recorder) kinds() []EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []EventKind
	for _, e := range r.events {
		out = append(out, e.Kind)
	}
	return out
}

func (r *recorder) toolEnds() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Kind == EventToolEnd || e.Kind == EventPermission {
			out = append(out, e)
		}
	}
	return out
}

// toolResults returns the text of every tool_result block in a recorded request's last
// message, in order.
func toolResults(req llmtest.Request) []string {
	msgs, _ := req.At("messages").([]any)
	if len(msgs) == 0 {
		return nil
	}
	var out []string
	content, _ := llmtest.At(msgs[len(msgs)-1], "content").([]any)
	for _, c := range content {
		if llmtest.At(c, "type") != "tool_result" {
			continue
		}
		var b strings.Builder
		switch v := llmtest.At(c, "content").(type) {
		case string:
			b.WriteString(v)
		case []any:
			for _, x := range v {
				s, _ := llmtest.At(x, "text").(string)
				b.WriteString(s)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// loadTranscript loads the agent's transcript and checks that every tool_use on the chain has
// a result.
func loadTranscript(t *testing.T, a *Agent) *transcript.Session {
	t.Helper()
	sess, err := transcript.Load(context.Background(), a.TranscriptPath(), transcript.ReadOptions{})
	if err != nil {
		t.Fatalf("transcript does not load: %v", err)
	}
	for _, p := range sess.Problems {
		t.Errorf("transcript problem: %s", p)
	}
	for _, tu := range sess.ToolUses() {
		if tu.Result == nil {
			t.Errorf("tool_use %s (%s) has no tool_result in the transcript", tu.ID, tu.Name)
		}
	}
	return sess
}

// stall rebuilds the provider with a short stall timeout.
func (f *fixture) stall(d time.Duration) {
	cfg := f.srv.Config()
	cfg.StallTimeout = d
	p, err := llm.New(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.prov = p
}

// forkCall runs one call as a fork whose policy runs every call: the session's deny patterns
// and ForkRefuses still decide. denied reports a refusal by them.
func forkCall(a *Agent, name, input string) (out string, isErr, denied bool) {
	r := &forkRun{f: a.forks, base: &forkBase{}}
	out, isErr = a.forks.loop(r, 1).call(context.Background(), &ToolCall{Name: name, Input: []byte(input)}, 1)
	return out, isErr, len(r.denied) > 0
}
