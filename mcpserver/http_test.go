package mcpserver

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/internal/bench"
	"github.com/strata-mem/strata/internal/bench/synth"
)

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr, token, want string
		tokenErr          bool
	}{
		{"7777", "", "127.0.0.1:7777", false},
		{":7777", "", "127.0.0.1:7777", false},
		{"127.0.0.1:0", "", "127.0.0.1:0", false},
		{"localhost:80", "", "localhost:80", false},
		{"[::1]:7777", "", "[::1]:7777", false},
		{"0.0.0.0:7777", "", "", true},
		{"[::]:7777", "", "", true},
		{"192.168.1.5:7777", "", "", true},
		{"example.com:7777", "", "", true},
		{"0.0.0.0:7777", "s3cret", "0.0.0.0:7777", false},
	}
	for _, tt := range tests {
		got, err := CheckListenAddr(tt.addr, tt.token)
		if tt.tokenErr {
			if !errors.Is(err, ErrTokenRequired) {
				t.Errorf("CheckListenAddr(%q, %q) = %q, %v; want ErrTokenRequired", tt.addr, tt.token, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CheckListenAddr(%q, %q) = %q, %v; want %q", tt.addr, tt.token, got, err, tt.want)
		}
	}
	if _, err := CheckListenAddr("", ""); err == nil {
		t.Error("empty address accepted")
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`

func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestHTTPAuthAndOrigin(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	const token = "tok-123"
	ts := httptest.NewServer(s.Handler(HTTPOptions{Token: token, AllowedOrigins: []string{"https://app.example.com"}}))
	defer ts.Close()
	url := ts.URL + Endpoint
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"not bearer", map[string]string{"Authorization": "Basic " + token}, http.StatusUnauthorized},
		{"token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		{"foreign origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"foreign origin, no token", map[string]string{"Origin": "http://evil.example:8080"}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "null"}, http.StatusForbidden},
		{"loopback origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://localhost:5173"}, http.StatusOK},
		{"loopback ip origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://127.0.0.1:3000"}, http.StatusOK},
		{"allowed origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://app.example.com"}, http.StatusOK},
		{"rebinding host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header
			if host, ok := h["Host"]; ok {
				req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(initBody))
				req.Host = host
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", h["Authorization"])
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != tt.want {
					t.Errorf("status %d, want %d", res.StatusCode, tt.want)
				}
				return
			}
			if got := post(t, url, h); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
	if got := post(t, ts.URL+"/other", map[string]string{"Authorization": "Bearer " + token}); got != http.StatusNotFound {
		t.Errorf("POST /other: %d, want 404", got)
	}

	// A real client with the token works end to end.
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "memory_save", SaveInput{Name: "http", Type: "reference", Description: "saved over HTTP", Body: "hello\n"}, nil)
	var res SearchOutput
	mustCall(t, cs, "memory_search", SearchInput{Query: "saved over HTTP"}, &res)
	if len(res.Results) != 1 {
		t.Errorf("search over HTTP: %+v", res)
	}
	// Without the token the client cannot connect.
	c2 := mcp.NewClient(&mcp.Implementation{Name: "no-token"}, nil)
	if cs2, err := c2.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		cs2.Close()
		t.Error("client without token connected")
	}
}

// TestHTTPLoad is the load target: 8 concurrent HTTP clients × 1,000 calls with no error
// (100 calls each under -short, 250 under the race detector; `strata bench mcp` runs the full
// 8 × 1,000 on 10,000 memories).
func TestHTTPLoad(t *testing.T) {
	f := newFixture(t)
	mem := f.dir + "/mem"
	n := 1000
	if testing.Short() {
		n = 300
	}
	if err := synth.Memories(mem, n, 1); err != nil {
		t.Fatal(err)
	}
	s := f.server(t, func(o *Options) { o.MemoryDir = mem })
	ts := httptest.NewServer(s.Handler(HTTPOptions{Token: "t"}))
	defer ts.Close()
	calls := 1000
	switch {
	case testing.Short():
		calls = 100
	case raceEnabled:
		calls = 250
	}
	rep, err := bench.HTTPLoad(t.Context(), bench.HTTPLoadOptions{Endpoint: ts.URL + Endpoint, Token: "t", Clients: 8, Calls: calls, Queries: synth.Queries(64, 2)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 clients × %d calls over HTTP on %d memories: %d calls, %d errors, %.0f calls/s, p50 %.2f ms, p99 %.2f ms",
		calls, n, rep.Calls, rep.Errors, rep.PerSecond, rep.P50, rep.P99)
	if rep.Errors != 0 || rep.Calls != 8*calls {
		t.Errorf("load: %d of %d calls failed (first: %s)", rep.Errors, rep.Calls, rep.FirstError)
	}
}

func BenchmarkHTTPSearch(b *testing.B) {
	dir := b.TempDir()
	mem := dir + "/mem"
	if err := synth.Memories(mem, 10000, 1); err != nil {
		b.Fatal(err)
	}
	s, err := New(b.Context(), Options{Env: benchEnv(dir), Project: dir, MemoryDir: mem, PollInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer ts.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
	cs, err := c.Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + Endpoint}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	qs := synth.Queries(64, 2)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": qs[i%len(qs)]}})
		if err != nil || res.IsError {
			b.Fatal(err, fmt.Sprint(res))
		}
	}
}

// bearer adds an Authorization header to every request of a test client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
