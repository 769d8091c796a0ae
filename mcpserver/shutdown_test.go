//go:build unix

package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A FIFO in the memory dir is refused by resources/read and memory_get at once (it used to
// hang the call), and a call stuck anyway cannot keep Run from returning once the stop is
// asked: the server ends within shutdownGrace.
func TestFIFOReadThenShutdown(t *testing.T) {
	defer func(g time.Duration) { shutdownGrace = g }(shutdownGrace)
	shutdownGrace = 300 * time.Millisecond
	f := newFixture(t)
	s := f.server(t, nil)
	release := make(chan struct{})
	mcp.AddTool(s.MCP(), &mcp.Tool{Name: "stuck", Description: "blocks until the test ends"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
			<-release // ignores its context, as a blocked system call would
			return nil, struct{}{}, nil
		})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	stuckCtx, stopStuck := context.WithCancel(t.Context())
	defer func() { close(release); stopStuck(); cs.Close() }()
	mustCall(t, cs, "memory_save", SaveInput{Name: "first", Type: "user", Description: "d", Body: "b\n"}, nil)
	if err := syscall.Mkfifo(filepath.Join(s.MemoryDir(), "pipe.md"), 0o600); err != nil {
		t.Skip(err)
	}
	rctx, rcancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer rcancel()
	if _, err := readText(cs, rctx, MemoryURI("pipe.md")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("resources/read of a FIFO = %v, want a refusal naming it not a regular file", err)
	}
	if msg := call(t, cs, "memory_get", GetInput{Name: "pipe.md"}, nil); msg == "" {
		t.Error("memory_get of a FIFO succeeded")
	}

	go cs.CallTool(stuckCtx, &mcp.CallToolParams{Name: "stuck", Arguments: map[string]any{}})
	time.Sleep(100 * time.Millisecond) // let the call reach its handler
	start := time.Now()
	cancel()
	select {
	case <-ran:
		if d := time.Since(start); d < shutdownGrace {
			t.Errorf("Run returned after %v, before the grace period, with a call in flight", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after the stop with a call stuck")
	}
}
