package bench

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestClients(t *testing.T) {
	url := serveHTTP(t, (&fakeMemory{}).server(), "tok")
	rep, err := Clients(t.Context(), ClientsOptions{Endpoint: url, Token: "tok", Clients: 6, Calls: 3, Queries: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Served != 6 || rep.Calls != 18 || rep.Errors != 0 || rep.P50 <= 0 || rep.P50 > rep.Max {
		t.Errorf("report %+v, want 6 served, 18 calls", rep)
	}
	rep, err = Clients(t.Context(), ClientsOptions{Endpoint: url, Token: "wrong", Clients: 2, Calls: 1, Queries: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Served != 0 || rep.Errors != 2 || !strings.Contains(rep.FirstError, "connect") {
		t.Errorf("wrong token: report %+v, want none served", rep)
	}
}

// Abandoned counts the sessions it leaves, the lines logged around its save, and sees the
// sessions go once the server's session timeout closes them.
func TestAbandoned(t *testing.T) {
	counter := NewLineCounter()
	s := mcp.NewServer(&mcp.Implementation{Name: "fake-strata", Version: "v0"}, &mcp.ServerOptions{Logger: slog.New(counter)})
	saves := 0
	mcp.AddTool(s, &mcp.Tool{Name: "memory_save"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		saves++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "saved"}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{SessionTimeout: 300 * time.Millisecond}))
	defer ts.Close()
	rep, err := Abandoned(t.Context(), s, ts.URL, "", 5, counter.Lines, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 5 || rep.Left != 0 || rep.ReclaimedSeconds <= 0 || saves != 1 {
		t.Errorf("report %+v after %d saves, want 5 sessions, all reclaimed, one save", rep, saves)
	}
	if rep.LogLines <= 0 {
		t.Errorf("log lines %d: the SDK logs the save's session at least", rep.LogLines)
	}
}

func TestOneSearch(t *testing.T) {
	if err := OneSearch(t.Context(), (&fakeMemory{}).server(), "a"); err != nil {
		t.Errorf("OneSearch: %v", err)
	}
	if err := OneSearch(t.Context(), (&fakeMemory{}).server(), "missing"); err == nil || !strings.Contains(err.Error(), "no such memory") {
		t.Errorf("a tool error: got %v, want it returned", err)
	}
}
