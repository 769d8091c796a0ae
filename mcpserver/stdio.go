package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the server keeps answering calls after its input ended.
const drainTimeout = 30 * time.Second

// RunStdio serves one session over r and w (newline-delimited JSON-RPC, the stdio transport)
// until the input ends or ctx is cancelled. When the input ends, calls already read are
// answered before it returns (for up to 30 seconds), so `strata mcp < requests.jsonl` gets
// every answer and every write it asked for is done.
//
// A line that is not a JSON-RPC message (not JSON, too long, not a message) is answered with
// a JSON-RPC error (parse error or invalid request, id null unless the line had one) and the
// session goes on.
func (s *Server) RunStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	out := &lockedWriter{w: w}
	in := newFrameFilter(r, out, maxFrame, s.log.Warn)
	return s.Run(ctx, &drainTransport{inner: &mcp.IOTransport{Reader: in, Writer: out}})
}

// drainTransport wraps a transport so that the end of input waits for calls in flight.
type drainTransport struct{ inner mcp.Transport }

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c}, nil
}

// drainConn counts the calls read and the responses written.
type drainConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending int
	wake    chan struct{} // closed when pending drops to 0 while someone waits
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending++
			c.mu.Unlock()
		}
		return msg, nil
	}
	if errors.Is(err, io.EOF) {
		c.waitIdle(ctx)
	}
	return nil, err
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending > 0 {
			c.pending--
		}
		if c.pending == 0 && c.wake != nil {
			close(c.wake)
			c.wake = nil
		}
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) waitIdle(ctx context.Context) {
	deadline := time.NewTimer(drainTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if c.pending == 0 {
			c.mu.Unlock()
			return
		}
		if c.wake == nil {
			c.wake = make(chan struct{})
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		}
	}
}
