package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/bench"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/mcpserver"
)

type benchMCPFlags struct {
	memories   int
	clients    int
	calls      int
	stdioCalls int
	writeStore string
	asJSON     bool
}

// benchMCPReport is what `strata bench mcp --json` prints.
type benchMCPReport struct {
	Memories int     `json:"memories"`
	StartMS  float64 `json:"start_ms"`
	Pipe     struct {
		Calls int     `json:"calls"`
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
	} `json:"pipe"`
	HTTP bench.HTTPLoadReport `json:"http"`
}

func newBenchMCPCmd(app *App) *cobra.Command {
	var f benchMCPFlags
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Measure strata mcp: search latency and concurrent HTTP clients",
		Long: `Build a synthetic memory store in a temporary directory (half English, half Chinese
memories of about 1 KB), serve it with the MCP server, and measure:

  pipe: memory_search latency of one client over an in-process stdio-style pipe, one call at a
        time (the server's own cost, without process start or the client's runtime);
  http: --clients concurrent sessions over streamable HTTP on loopback, each making --calls
        calls (memory_search, every fourth a memory_get), with a Bearer token: errors,
        throughput, p50 and p99.

With --write-store DIR it only writes the store (DIR/memory) and 64 queries (DIR/queries.json)
for other clients to use, and exits.`,
		Example: `  strata bench mcp
  strata bench mcp --memories 10000 --clients 8 --calls 1000 --json
  strata bench mcp --write-store /tmp/store --memories 10000`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.memories <= 0 || f.clients <= 0 || f.calls <= 0 || f.stdioCalls <= 0 {
				return usagef("--memories, --clients, --calls and --stdio-calls must be positive")
			}
			return benchMCP(c.Context(), app, f)
		},
	}
	c.Flags().IntVar(&f.memories, "memories", 10000, "memories in the synthetic store")
	c.Flags().IntVar(&f.clients, "clients", 8, "concurrent HTTP clients")
	c.Flags().IntVar(&f.calls, "calls", 1000, "calls per HTTP client")
	c.Flags().IntVar(&f.stdioCalls, "stdio-calls", 1000, "sequential memory_search calls over the pipe")
	c.Flags().StringVar(&f.writeStore, "write-store", "", "only write the store and queries into `DIR`")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the figures as JSON")
	return c
}

func benchMCP(ctx context.Context, app *App, f benchMCPFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	queries := synth.Queries(64, 2)
	if f.writeStore != "" {
		return writeBenchStore(app, f.writeStore, f.memories, queries)
	}
	tmp, err := os.MkdirTemp("", "strata-bench-mcp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	mem := filepath.Join(tmp, "memory")
	if err := synth.Memories(mem, f.memories, 1); err != nil {
		return err
	}
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		return err
	}
	env := config.Env{Home: filepath.Join(tmp, "home"), ManagedDir: filepath.Join(tmp, "managed"), UserHome: tmp}
	start := time.Now()
	srv, err := mcpserver.New(ctx, mcpserver.Options{Env: env, Project: project, MemoryDir: mem, PollInterval: -1, Version: version()})
	if err != nil {
		return err
	}
	defer srv.Close()
	var rep benchMCPReport
	rep.Memories = f.memories
	rep.StartMS = float64(time.Since(start).Microseconds()) / 1000

	p50, p99, err := bench.PipeSearch(ctx, srv.MCP(), queries, f.stdioCalls)
	if err != nil {
		return err
	}
	rep.Pipe.Calls, rep.Pipe.P50, rep.Pipe.P99 = f.stdioCalls, p50, p99

	token := randomToken()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var serveErr error
	wg.Go(func() { serveErr = srv.Serve(sctx, ln, mcpserver.HTTPOptions{Token: token}) })
	rep.HTTP, err = bench.HTTPLoad(ctx, bench.HTTPLoadOptions{Endpoint: "http://" + ln.Addr().String() + mcpserver.Endpoint,
		Token: token, Clients: f.clients, Calls: f.calls, Queries: queries})
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	if serveErr != nil {
		return serveErr
	}
	if f.asJSON {
		if err := writeJSON(app.Out, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(app.Out, "store:  %d memories, server ready in %.0f ms\n", rep.Memories, rep.StartMS)
		fmt.Fprintf(app.Out, "pipe:   memory_search × %d, one at a time: p50 %.2f ms, p99 %.2f ms\n", rep.Pipe.Calls, rep.Pipe.P50, rep.Pipe.P99)
		h := rep.HTTP
		fmt.Fprintf(app.Out, "http:   %d clients × %d calls = %d calls in %.1f s (%.0f calls/s): %d errors, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
			h.Clients, f.calls, h.Calls, h.Seconds, h.PerSecond, h.Errors, h.P50, h.P99, h.Max)
	}
	if rep.HTTP.Errors > 0 {
		fmt.Fprintf(app.Err, "strata: %d HTTP calls failed; first: %s\n", rep.HTTP.Errors, rep.HTTP.FirstError)
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

func writeBenchStore(app *App, dir string, n int, queries []string) error {
	mem := filepath.Join(dir, "memory")
	if err := synth.Memories(mem, n, 1); err != nil {
		return err
	}
	data, err := json.Marshal(queries)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "queries.json"), data, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(app.Out, "wrote %d memories to %s and %d queries to %s\n", n, mem, len(queries), filepath.Join(dir, "queries.json"))
	return nil
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
