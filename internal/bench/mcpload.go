package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientsOptions configure Clients.
type ClientsOptions struct {
	// Endpoint is the server's URL; Token is sent as a Bearer token when set.
	Endpoint, Token string
	// Clients connect at once, each then making Calls memory_search calls (Queries in turn).
	Clients, Calls int
	Queries        []string
	// Wait bounds each client's whole run (connecting and its calls); 0 means 60 s. A client
	// still waiting then is counted as not served.
	Wait time.Duration
}

// ClientsReport holds the figures of a Clients run: how many clients were served (connected
// and had every call answered), and the latencies of the calls, in milliseconds.
type ClientsReport struct {
	Clients    int     `json:"clients"`
	Served     int     `json:"served"`
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Max        float64 `json:"max_ms"`
}

// Clients connects opts.Clients MCP sessions over streamable HTTP at once, each keeping the
// event stream the SDK opens and making opts.Calls calls, and reports how many were served.
// A server that lets only some clients in leaves the others waiting until opts.Wait.
func Clients(ctx context.Context, opts ClientsOptions) (ClientsReport, error) {
	if opts.Clients <= 0 || opts.Calls <= 0 || len(opts.Queries) == 0 {
		return ClientsReport{}, fmt.Errorf("bench: mcp clients: need clients, calls and queries")
	}
	if opts.Wait <= 0 {
		opts.Wait = time.Minute
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: bearer{token: opts.Token, next: tr}}
	var (
		mu    sync.Mutex
		rep   = ClientsReport{Clients: opts.Clients}
		times []time.Duration
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		rep.Errors++
		if rep.FirstError == "" {
			rep.FirstError = err.Error()
		}
	}
	start := time.Now()
	for ci := range opts.Clients {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, opts.Wait)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "strata-load", Version: "v1"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: opts.Endpoint, HTTPClient: hc}, nil)
			if err != nil {
				mu.Lock()
				fail(fmt.Errorf("client %d: connect: %w", ci, err))
				mu.Unlock()
				return
			}
			defer cs.Close()
			var local []time.Duration
			var ferr error
			for i := range opts.Calls {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search",
					Arguments: map[string]any{"query": opts.Queries[(ci+i)%len(opts.Queries)], "k": 5}})
				local = append(local, time.Since(t0))
				if err == nil && res.IsError {
					err = toolError(res)
				}
				if err != nil {
					ferr = fmt.Errorf("client %d: memory_search: %w", ci, err)
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			times = append(times, local...)
			rep.Calls += len(local)
			if ferr != nil {
				fail(ferr)
				return
			}
			rep.Served++
		})
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	if len(times) > 0 {
		rep.P50, rep.P99, rep.Max = ms(percentile(times, 0.5)), ms(percentile(times, 0.99)), ms(slices.Max(times))
	}
	return rep, nil
}

// AbandonSessions opens n MCP sessions over streamable HTTP as a client that goes away would:
// each is initialized (initialize, notifications/initialized) and never used again, without
// an event stream and without the DELETE that ends a session.
func AbandonSessions(ctx context.Context, endpoint, token string, n int) error {
	hc := &http.Client{Timeout: 30 * time.Second}
	for i := range n {
		id, err := rawPost(ctx, hc, endpoint, token, "",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"strata-abandon","version":"0"}}}`)
		if err == nil && id == "" {
			err = fmt.Errorf("no Mcp-Session-Id in the answer")
		}
		if err == nil {
			_, err = rawPost(ctx, hc, endpoint, token, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		if err != nil {
			return fmt.Errorf("bench: abandoned session %d: %w", i, err)
		}
	}
	hc.CloseIdleConnections()
	return nil
}

// rawPost posts one JSON-RPC message and returns the session id the server answered with.
func rawPost(ctx context.Context, hc *http.Client, endpoint, token, session, body string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(data))
	}
	return resp.Header.Get("Mcp-Session-Id"), nil
}

// IdleSockets opens n TCP connections to addr (host:port) that send nothing, as a client that
// connects and stalls, and returns a function that closes them.
func IdleSockets(ctx context.Context, addr string, n int) (closeAll func(), err error) {
	var d net.Dialer
	conns := make([]net.Conn, 0, n)
	closeAll = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for i := range n {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("bench: idle socket %d: %w", i, err)
		}
		conns = append(conns, c)
	}
	return closeAll, nil
}

// OneCall is what a normal client does: it connects over streamable HTTP, makes one
// memory_search call and disconnects. It returns how long that took.
func OneCall(ctx context.Context, endpoint, token, query string) (time.Duration, error) {
	start := time.Now()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: bearer{token: token, next: tr}}
	c := mcp.NewClient(&mcp.Implementation{Name: "strata-one", Version: "v1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		return time.Since(start), fmt.Errorf("bench: connect: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": query}})
	if err == nil && res.IsError {
		err = toolError(res)
	}
	if err != nil {
		return time.Since(start), fmt.Errorf("bench: memory_search: %w", err)
	}
	return time.Since(start), nil
}

// AbandonedReport holds the figures of an Abandoned run.
type AbandonedReport struct {
	Sessions int `json:"sessions"`
	// LogLines is what the server logged (every level) from the save to a second after it.
	LogLines int `json:"log_lines"`
	// Left is the sessions still open once the session timeout has passed (and 5 s more), and
	// ReclaimedSeconds how long after the save they were all gone (0 when some were left).
	Left             int     `json:"left"`
	ReclaimedSeconds float64 `json:"reclaimed_seconds,omitempty"`
}

// Abandoned opens n sessions on the HTTP endpoint of srv and abandons them (AbandonSessions),
// then saves one memory through a session of its own, counting what the server logs (lines
// reports how many lines it has logged so far), and waits up to timeout + 5 s for the
// abandoned sessions to be closed.
func Abandoned(ctx context.Context, srv *mcp.Server, endpoint, token string, n int, lines func() int, timeout time.Duration) (AbandonedReport, error) {
	rep := AbandonedReport{Sessions: n}
	if err := AbandonSessions(ctx, endpoint, token, n); err != nil {
		return rep, err
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return rep, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "strata-save", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return rep, err
	}
	before := lines()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_save", Arguments: map[string]any{
		"name": fmt.Sprintf("abandoned-%d", time.Now().UnixNano()), "type": "project",
		"description": "written by strata bench mcp after abandoning sessions", "body": "a save"}})
	if err == nil && res.IsError {
		err = toolError(res)
	}
	if err != nil {
		cs.Close()
		return rep, fmt.Errorf("bench: memory_save: %w", err)
	}
	time.Sleep(time.Second + 500*time.Millisecond) // the notifications are sent, and their failures summed up, within it
	rep.LogLines = lines() - before
	cs.Close()
	ss.Wait()
	deadline := start.Add(timeout + 5*time.Second)
	for {
		rep.Left = 0
		for range srv.Sessions() {
			rep.Left++
		}
		if rep.Left == 0 {
			rep.ReclaimedSeconds = time.Since(start).Seconds()
			return rep, nil
		}
		if time.Now().After(deadline) {
			return rep, nil
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// LineCounter is a slog.Handler that counts the records at any level, and keeps nothing else.
type LineCounter struct{ n *atomic.Int64 }

// NewLineCounter returns a LineCounter at 0.
func NewLineCounter() LineCounter { return LineCounter{n: new(atomic.Int64)} }

// Lines returns how many records were handled.
func (c LineCounter) Lines() int { return int(c.n.Load()) }

// Enabled implements slog.Handler: every level counts.
func (LineCounter) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (c LineCounter) Handle(context.Context, slog.Record) error { c.n.Add(1); return nil }

// WithAttrs implements slog.Handler.
func (c LineCounter) WithAttrs([]slog.Attr) slog.Handler { return c }

// WithGroup implements slog.Handler.
func (c LineCounter) WithGroup(string) slog.Handler { return c }

// OneSearch makes one memory_search call on srv over in-memory transports; it returns once
// the call is answered (the server has read its store).
func OneSearch(ctx context.Context, srv *mcp.Server, query string) error {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "strata-first", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": query}})
	if err == nil && res.IsError {
		err = toolError(res)
	}
	if err != nil {
		return fmt.Errorf("bench: memory_search: %w", err)
	}
	return nil
}
