package bench

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeMemory is an MCP server with strata's memory_search and memory_get shapes: a search
// for "missing" is a tool error, a search finds "m-<query>", and it records every memory_get.
type fakeMemory struct {
	mu   sync.Mutex
	gets []string
}

type fakeSearchIn struct {
	Query string `json:"query"`
	K     int    `json:"k,omitempty"`
}

type fakeMemoryInfo struct {
	Name string `json:"name"`
}

type fakeHit struct {
	Memory fakeMemoryInfo `json:"memory"`
}

type fakeSearchOut struct {
	Results []fakeHit `json:"results"`
}

type fakeGetIn struct {
	Name string `json:"name"`
}

func (f *fakeMemory) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fake-strata", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "memory_search"}, func(_ context.Context, _ *mcp.CallToolRequest, in fakeSearchIn) (*mcp.CallToolResult, fakeSearchOut, error) {
		if in.Query == "missing" {
			return nil, fakeSearchOut{}, errors.New("no such memory")
		}
		return nil, fakeSearchOut{Results: []fakeHit{{Memory: fakeMemoryInfo{Name: "m-" + in.Query}}}}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "memory_get"}, func(_ context.Context, _ *mcp.CallToolRequest, in fakeGetIn) (*mcp.CallToolResult, any, error) {
		f.mu.Lock()
		f.gets = append(f.gets, in.Name)
		f.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Name}}}, nil, nil
	})
	return s
}

// serveHTTP serves s over streamable HTTP, refusing requests without the Bearer token.
func serveHTTP(t *testing.T, s *mcp.Server, token string) string {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestHTTPLoad(t *testing.T) {
	f := &fakeMemory{}
	url := serveHTTP(t, f.server(), "tok")
	rep, err := HTTPLoad(t.Context(), HTTPLoadOptions{Endpoint: url, Token: "tok", Clients: 3, Calls: 8, Queries: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Clients != 3 || rep.Calls != 24 || rep.Errors != 0 || rep.FirstError != "" {
		t.Fatalf("report %+v, want 3 clients, 24 calls, no error", rep)
	}
	if rep.P50 <= 0 || rep.P50 > rep.P99 || rep.P99 > rep.Max || rep.Seconds <= 0 || rep.PerSecond <= 0 {
		t.Errorf("figures out of order: %+v", rep)
	}
	// Every fourth call (two per client) is a memory_get of the previous search's best hit.
	if len(f.gets) != 6 {
		t.Errorf("memory_get calls %v, want 6", f.gets)
	}
	for _, g := range f.gets {
		if g != "m-a" && g != "m-b" {
			t.Errorf("memory_get(%q): not the best hit of a search", g)
		}
	}

	// Tool errors are counted and the run goes on.
	rep, err = HTTPLoad(t.Context(), HTTPLoadOptions{Endpoint: url, Token: "tok", Clients: 2, Calls: 5, Queries: []string{"missing"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 10 || rep.Errors != 10 || rep.FirstError != "memory_search: no such memory" {
		t.Errorf("report %+v, want 10 calls, all failed, first error named", rep)
	}

	// A refused connection fails the run; so do missing options.
	if _, err := HTTPLoad(t.Context(), HTTPLoadOptions{Endpoint: url, Token: "wrong", Clients: 1, Calls: 1, Queries: []string{"a"}}); err == nil {
		t.Error("wrong token: want an error")
	}
	if _, err := HTTPLoad(t.Context(), HTTPLoadOptions{Endpoint: url, Token: "tok", Clients: 1, Calls: 1}); err == nil {
		t.Error("no queries: want an error")
	}
}

func TestPipeSearch(t *testing.T) {
	f := &fakeMemory{}
	p50, p99, err := PipeSearch(t.Context(), f.server(), []string{"a", "b"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p50 <= 0 || p50 > p99 {
		t.Errorf("p50 %v, p99 %v", p50, p99)
	}
	if _, _, err := PipeSearch(t.Context(), f.server(), []string{"missing"}, 5); err == nil || !strings.Contains(err.Error(), "no such memory") {
		t.Errorf("a tool error: got %v, want it returned", err)
	}
	if _, _, err := PipeSearch(t.Context(), f.server(), nil, 5); err == nil {
		t.Error("no queries: want an error")
	}
}
