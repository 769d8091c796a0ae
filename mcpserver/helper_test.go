package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
)

// fixture is a project, a STRATA_HOME and a managed dir inside one temp dir.
type fixture struct {
	dir, home, managed, project string
	env                         config.Env
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	f := &fixture{dir: dir, home: filepath.Join(dir, "home", ".strata"), managed: filepath.Join(dir, "managed"), project: filepath.Join(dir, "proj")}
	for _, d := range []string{f.home, f.managed, f.project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.env = config.Env{Home: f.home, ManagedDir: f.managed, UserHome: filepath.Join(dir, "home"), Getenv: func(string) string { return "" }}
	return f
}

func (f *fixture) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) options() Options {
	return Options{Env: f.env, Project: f.project, PollInterval: -1}
}

// server starts a server for f with opts changed by edit, and returns it.
func (f *fixture) server(t *testing.T, edit func(*Options)) *Server {
	t.Helper()
	opts := f.options()
	if edit != nil {
		edit(&opts)
	}
	s, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// The memories are read in the background; reading them first keeps the notification
	// their listing sends out of the tests' way.
	if s.proj != nil {
		if err := s.proj.wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// connect joins a client to s over in-memory transports.
func connect(t *testing.T, s *Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, copts)
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool and decodes its structured output into out (when non-nil). It returns the
// error text of a failed call ("" on success).
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "protocol error: " + err.Error()
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if b.Len() == 0 {
			b.WriteString("(error without text)")
		}
		return b.String()
	}
	if out != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: decode %s: %v", tool, data, err)
		}
	}
	return ""
}

// mustCall is call that fails the test on an error.
func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) {
	t.Helper()
	if msg := call(t, cs, tool, args, out); msg != "" {
		t.Fatalf("%s(%v): %s", tool, args, msg)
	}
}

func benchEnv(dir string) config.Env {
	return config.Env{Home: filepath.Join(dir, "home"), ManagedDir: filepath.Join(dir, "managed"), UserHome: dir}
}
