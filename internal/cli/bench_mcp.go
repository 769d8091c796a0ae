package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
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

	load        []string // load modes: clients, abandoned, idle
	loadClients int
	abandoned   int
	idleSockets int
}

// benchMCPReport is what `strata bench mcp --json` prints.
type benchMCPReport struct {
	Memories int     `json:"memories"`
	StartMS  float64 `json:"start_ms"`
	// IndexedMS is when the first memory_search was answered: the store read and indexed.
	IndexedMS float64 `json:"indexed_ms"`
	Pipe      struct {
		Calls int     `json:"calls"`
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
	} `json:"pipe"`
	HTTP bench.HTTPLoadReport `json:"http"`
}

// benchMCPLoadReport is what `strata bench mcp --load … --json` prints.
type benchMCPLoadReport struct {
	Memories         int                    `json:"memories"`
	SessionTimeoutS  float64                `json:"session_timeout_s"`
	Clients          *bench.ClientsReport   `json:"clients,omitempty"`
	Abandoned        *bench.AbandonedReport `json:"abandoned,omitempty"`
	IdleSockets      int                    `json:"idle_sockets,omitempty"`
	IdleSocketCallMS float64                `json:"idle_socket_call_ms,omitempty"`
}

// Load-mode limits: what `strata bench mcp --load` holds the server to.
const (
	loadSessionTimeout = 30 * time.Second
	loadIdleCallLimit  = 2 * time.Second
	loadMaxLogLines    = 10
)

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

With --load MODES (a comma-separated list) it measures instead how the HTTP server holds
under load, with the session timeout at 30 s, once the store is read:

  idle:      --idle-sockets connections that send nothing, then one normal client's call
             (connect and memory_search): its time must stay under 2 s;
  clients:   --load-clients clients at once, each keeping its event stream and making 4
             memory_search calls: all must be served;
  abandoned: --abandoned sessions initialized and left, then one save: the lines the server
             logs for it (at most 10) and whether the sessions are reclaimed after the timeout.

With --write-store DIR it only writes the store (DIR/memory) and 64 queries (DIR/queries.json)
for other clients to use, and exits.`,
		Example: `  strata bench mcp
  strata bench mcp --memories 10000 --clients 8 --calls 1000 --json
  strata bench mcp --memories 1000 --load idle,clients,abandoned
  strata bench mcp --write-store /tmp/store --memories 10000`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.memories <= 0 || f.clients <= 0 || f.calls <= 0 || f.stdioCalls <= 0 ||
				f.loadClients <= 0 || f.abandoned <= 0 || f.idleSockets <= 0 {
				return usagef("--memories, --clients, --calls, --stdio-calls, --load-clients, --abandoned and --idle-sockets must be positive")
			}
			for _, m := range f.load {
				if m != "idle" && m != "clients" && m != "abandoned" {
					return usagef("--load %q: the modes are idle, clients and abandoned", m)
				}
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
	c.Flags().StringSliceVar(&f.load, "load", nil, "measure the HTTP server under load instead: `MODES` among idle, clients, abandoned")
	c.Flags().IntVar(&f.loadClients, "load-clients", 500, "clients at once in the clients load mode")
	c.Flags().IntVar(&f.abandoned, "abandoned", 300, "sessions abandoned in the abandoned load mode")
	c.Flags().IntVar(&f.idleSockets, "idle-sockets", 200, "silent connections in the idle load mode")
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
	if len(f.load) > 0 {
		return benchMCPLoad(ctx, app, f, env, project, mem, queries)
	}
	start := time.Now()
	srv, err := mcpserver.New(ctx, mcpserver.Options{Env: env, Project: project, MemoryDir: mem, PollInterval: -1, Version: version()})
	if err != nil {
		return err
	}
	defer srv.Close()
	var rep benchMCPReport
	rep.Memories = f.memories
	rep.StartMS = float64(time.Since(start).Microseconds()) / 1000
	if err := bench.OneSearch(ctx, srv.MCP(), queries[0]); err != nil {
		return err
	}
	rep.IndexedMS = float64(time.Since(start).Microseconds()) / 1000

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
		fmt.Fprintf(app.Out, "store:  %d memories, server answering in %.0f ms, first search answered (store indexed) in %.0f ms\n", rep.Memories, rep.StartMS, rep.IndexedMS)
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

// benchMCPLoad runs the load modes of f (see the command's help) against one server.
func benchMCPLoad(ctx context.Context, app *App, f benchMCPFlags, env config.Env, project, mem string, queries []string) error {
	counter := bench.NewLineCounter()
	srv, err := mcpserver.New(ctx, mcpserver.Options{Env: env, Project: project, MemoryDir: mem, PollInterval: -1,
		Version: version(), Logger: slog.New(counter)})
	if err != nil {
		return err
	}
	defer srv.Close()
	token := randomToken()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	endpoint := "http://" + addr + mcpserver.Endpoint
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var serveErr error
	wg.Go(func() {
		serveErr = srv.Serve(sctx, ln, mcpserver.HTTPOptions{Token: token, SessionTimeout: loadSessionTimeout})
	})
	rep := benchMCPLoadReport{Memories: f.memories, SessionTimeoutS: loadSessionTimeout.Seconds()}
	var failures []string
	err = func() error {
		// The first call waits for the store to be read; the modes measure the server after.
		if _, err := bench.OneCall(ctx, endpoint, token, queries[0]); err != nil {
			return err
		}
		if slices.Contains(f.load, "idle") {
			closeAll, err := bench.IdleSockets(ctx, addr, f.idleSockets)
			if err != nil {
				return err
			}
			d, err := bench.OneCall(ctx, endpoint, token, queries[0])
			closeAll()
			if err != nil {
				return err
			}
			rep.IdleSockets, rep.IdleSocketCallMS = f.idleSockets, float64(d.Microseconds())/1000
			if d > loadIdleCallLimit {
				failures = append(failures, fmt.Sprintf("a call behind %d idle sockets took %v (limit %v)", f.idleSockets, d.Round(time.Millisecond), loadIdleCallLimit))
			}
		}
		if slices.Contains(f.load, "clients") {
			r, err := bench.Clients(ctx, bench.ClientsOptions{Endpoint: endpoint, Token: token, Clients: f.loadClients, Calls: 4, Queries: queries})
			if err != nil {
				return err
			}
			rep.Clients = &r
			if r.Served < r.Clients {
				failures = append(failures, fmt.Sprintf("%d of %d clients served; first error: %s", r.Served, r.Clients, r.FirstError))
			}
		}
		if slices.Contains(f.load, "abandoned") {
			r, err := bench.Abandoned(ctx, srv.MCP(), endpoint, token, f.abandoned, counter.Lines, loadSessionTimeout)
			if err != nil {
				return err
			}
			rep.Abandoned = &r
			if r.LogLines > loadMaxLogLines {
				failures = append(failures, fmt.Sprintf("one save after %d abandoned sessions logged %d lines (limit %d)", r.Sessions, r.LogLines, loadMaxLogLines))
			}
			if r.Left > 0 {
				failures = append(failures, fmt.Sprintf("%d sessions still open after the %v session timeout", r.Left, loadSessionTimeout))
			}
		}
		return nil
	}()
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
		fmt.Fprintf(app.Out, "store:     %d memories; session timeout %.0f s\n", rep.Memories, rep.SessionTimeoutS)
		if rep.IdleSockets > 0 {
			fmt.Fprintf(app.Out, "idle:      %d silent connections open, then one client's connect and call in %.0f ms\n", rep.IdleSockets, rep.IdleSocketCallMS)
		}
		if c := rep.Clients; c != nil {
			fmt.Fprintf(app.Out, "clients:   %d at once × 4 calls: %d served, %d errors, in %.1f s; call p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
				c.Clients, c.Served, c.Errors, c.Seconds, c.P50, c.P99, c.Max)
		}
		if a := rep.Abandoned; a != nil {
			left := fmt.Sprintf("all closed %.1f s after the save", a.ReclaimedSeconds)
			if a.Left > 0 {
				left = fmt.Sprintf("%d still open", a.Left)
			}
			fmt.Fprintf(app.Out, "abandoned: %d sessions left open, then one save: %d log lines; %s\n", a.Sessions, a.LogLines, left)
		}
	}
	for _, m := range failures {
		fmt.Fprintf(app.Err, "strata: %s\n", m)
	}
	if len(failures) > 0 {
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
