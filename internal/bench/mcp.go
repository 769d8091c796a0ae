package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPLoadOptions configure HTTPLoad.
type HTTPLoadOptions struct {
	// Endpoint is the server's URL, e.g. http://127.0.0.1:7777/mcp.
	Endpoint string
	// Token is sent as a Bearer token when set.
	Token string
	// Clients is the number of concurrent sessions; Calls the tool calls each makes.
	Clients, Calls int
	// Queries are used in turn by the memory_search calls; every fourth call is instead a
	// memory_get of the previous search's best hit, to mix reads.
	Queries []string
}

// HTTPLoadReport holds the figures of an HTTPLoad run. Latencies are per call, in
// milliseconds. It is the "http" part of `strata bench mcp --json`.
type HTTPLoadReport struct {
	Clients    int     `json:"clients"`
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"calls_per_second"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Max        float64 `json:"max_ms"`
}

// HTTPLoad runs opts.Clients concurrent MCP sessions against a strata MCP server over
// streamable HTTP, each making opts.Calls tool calls (memory_search with the queries in turn,
// every fourth call a memory_get of the previous search's best hit), and reports errors and
// latencies. A call that fails or returns a tool error counts as an error; the run goes on.
func HTTPLoad(ctx context.Context, opts HTTPLoadOptions) (HTTPLoadReport, error) {
	if opts.Clients <= 0 || opts.Calls <= 0 || len(opts.Queries) == 0 {
		return HTTPLoadReport{}, fmt.Errorf("bench: mcp load: need clients, calls and queries")
	}
	hc := &http.Client{Transport: bearer{token: opts.Token, next: http.DefaultTransport}}
	sessions := make([]*mcp.ClientSession, opts.Clients)
	for i := range sessions {
		c := mcp.NewClient(&mcp.Implementation{Name: "strata-load", Version: "v1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: opts.Endpoint, HTTPClient: hc}, nil)
		if err != nil {
			for _, s := range sessions[:i] {
				s.Close()
			}
			return HTTPLoadReport{}, fmt.Errorf("bench: mcp load: connect client %d: %w", i, err)
		}
		sessions[i] = cs
	}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, opts.Clients*opts.Calls)
		errs      int
		first     string
		wg        sync.WaitGroup
	)
	start := time.Now()
	for ci, cs := range sessions {
		wg.Go(func() {
			local := make([]time.Duration, 0, opts.Calls)
			var nerr int
			var ferr string
			lastHit := ""
			for i := range opts.Calls {
				params := &mcp.CallToolParams{Name: "memory_search",
					Arguments: map[string]any{"query": opts.Queries[(ci*opts.Calls+i)%len(opts.Queries)], "k": 5}}
				if i%4 == 3 && lastHit != "" {
					params = &mcp.CallToolParams{Name: "memory_get", Arguments: map[string]any{"name": lastHit}}
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, params)
				local = append(local, time.Since(t0))
				switch {
				case err != nil:
					nerr++
					if ferr == "" {
						ferr = err.Error()
					}
				case res.IsError:
					nerr++
					if ferr == "" {
						ferr = fmt.Sprintf("%s: %v", params.Name, toolError(res))
					}
				case params.Name == "memory_search":
					if m, ok := res.StructuredContent.(map[string]any); ok {
						if rs, ok := m["results"].([]any); ok && len(rs) > 0 {
							if r, ok := rs[0].(map[string]any); ok {
								if mem, ok := r["memory"].(map[string]any); ok {
									lastHit, _ = mem["name"].(string)
								}
							}
						}
					}
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			errs += nerr
			if first == "" {
				first = ferr
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	rep := HTTPLoadReport{Clients: opts.Clients, Calls: len(latencies), Errors: errs, FirstError: first, Seconds: elapsed.Seconds()}
	if elapsed > 0 {
		rep.PerSecond = float64(len(latencies)) / elapsed.Seconds()
	}
	if len(latencies) > 0 {
		rep.P50, rep.P99, rep.Max = ms(percentile(latencies, 0.5)), ms(percentile(latencies, 0.99)), ms(slices.Max(latencies))
	}
	return rep, nil
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// PipeSearch measures memory_search on srv (a strata MCP server) over an in-process pipe
// carrying the stdio wire format, one call at a time: the server's own cost, without process
// start or a client's runtime. It makes calls timed calls (queries in turn, k 5) after 50
// untimed ones that warm up, and returns their p50 and p99 in milliseconds. A call that fails
// or returns a tool error ends the run with that error.
func PipeSearch(ctx context.Context, srv *mcp.Server, queries []string, calls int) (p50, p99 float64, err error) {
	if calls <= 0 || len(queries) == 0 {
		return 0, 0, fmt.Errorf("bench: mcp pipe: need calls and queries")
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		return 0, 0, err
	}
	defer ss.Wait()
	c := mcp.NewClient(&mcp.Implementation{Name: "strata-bench", Version: "v1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		ss.Close()
		return 0, 0, err
	}
	defer cs.Close()
	times := make([]time.Duration, 0, calls)
	for i := range calls + pipeWarmup {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": queries[i%len(queries)], "k": 5}})
		if err != nil {
			return 0, 0, err
		}
		if res.IsError {
			return 0, 0, fmt.Errorf("bench: mcp pipe: memory_search: %w", toolError(res))
		}
		if i >= pipeWarmup {
			times = append(times, time.Since(t0))
		}
	}
	return ms(percentile(times, 0.5)), ms(percentile(times, 0.99)), nil
}

// pipeWarmup is how many untimed calls PipeSearch makes first.
const pipeWarmup = 50

// toolError is the error a tool result reports. On the client side the SDK leaves
// CallToolResult.GetError nil, so the error is the result's text.
func toolError(res *mcp.CallToolResult) error {
	if err := res.GetError(); err != nil {
		return err
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return errors.New("tool error without a message")
	}
	return errors.New(strings.Join(parts, "; "))
}
