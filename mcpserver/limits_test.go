package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveHTTP runs s.Serve on a loopback port with opts until the test ends and returns the
// address.
func serveHTTP(t *testing.T, s *Server, opts HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// An authenticated client that sends its body slowly is answered 408 and cut off once the
// body timeout passes (it used to hold the connection for ever).
func TestHTTPSlowBody(t *testing.T) {
	s := newFixture(t).server(t, nil)
	addr := serveHTTP(t, s, HTTPOptions{Token: "tok", BodyTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", Endpoint, addr)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response to a slow body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("connection still open after a 408 (read: %v)", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("cut after %v, want about the 300 ms body timeout", d)
	}
}

// A body over the limit is refused with 413 before it is handled.
func TestHTTPBodyTooLarge(t *testing.T) {
	s := newFixture(t).server(t, nil)
	addr := serveHTTP(t, s, HTTPOptions{MaxBodyBytes: 64})
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`
	req, _ := http.NewRequest("POST", "http://"+addr+Endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

// With the connection cap reached, a new client waits until a slot is free: here until the
// header timeout cuts the client that holds the only slot without sending anything.
func TestHTTPConnectionCap(t *testing.T) {
	s := newFixture(t).server(t, nil)
	addr := serveHTTP(t, s, HTTPOptions{MaxConns: 1, HeaderTimeout: 500 * time.Millisecond})
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(50 * time.Millisecond) // let the server accept it
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("second connection served after %v while the only slot was held", d)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil {
		t.Error("the silent connection was not closed")
	}
}

// A client that stops reading a response cannot hold its handler: each write has WriteTimeout
// to complete, then fails, while a stream that is read lives on.
func TestHTTPWriteTimeout(t *testing.T) {
	ended := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &timedWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: 300 * time.Millisecond}
		chunk := make([]byte, 64<<10)
		for {
			if _, err := tw.Write(chunk); err != nil {
				ended <- err
				return
			}
			tw.Flush()
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
	select {
	case <-ended: // the write failed once its deadline passed
	case <-time.After(10 * time.Second):
		t.Fatal("the handler is still writing to a client that does not read")
	}
}
