package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LoadOptions configure Load.
type LoadOptions struct {
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

// LoadReport holds the figures of a Load run. Latencies are per call, in milliseconds.
type LoadReport struct {
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

// Load runs opts.Clients concurrent MCP sessions over streamable HTTP, each making
// opts.Calls tool calls (memory_search with the queries in turn, every fourth call a
// memory_get of the previous search's best hit), and reports errors and latencies. A call
// that fails or returns a tool error counts as an error; the run goes on.
func Load(ctx context.Context, opts LoadOptions) (LoadReport, error) {
	if opts.Clients <= 0 || opts.Calls <= 0 || len(opts.Queries) == 0 {
		return LoadReport{}, fmt.Errorf("mcpserver: load: need clients, calls and queries")
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
			return LoadReport{}, fmt.Errorf("mcpserver: load: connect client %d: %w", i, err)
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
						ferr = fmt.Sprintf("%s: %v", params.Name, res.GetError())
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
	rep := LoadReport{Clients: opts.Clients, Calls: len(latencies), Errors: errs, FirstError: first, Seconds: elapsed.Seconds()}
	if elapsed > 0 {
		rep.PerSecond = float64(len(latencies)) / elapsed.Seconds()
	}
	pc := Percentiles(latencies)
	rep.P50, rep.P99, rep.Max = pc[0], pc[1], pc[2]
	return rep, nil
}

// Percentiles returns the p50, the p99 and the maximum of ds, in milliseconds (zeros for no
// durations).
func Percentiles(ds []time.Duration) [3]float64 {
	if len(ds) == 0 {
		return [3]float64{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return [3]float64{ms(s[len(s)*50/100]), ms(s[min(len(s)-1, len(s)*99/100)]), ms(s[len(s)-1])}
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
