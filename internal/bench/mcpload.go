package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
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
