package mcpserver

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/bench"
	"github.com/strata-mem/strata/internal/bench/synth"
)

// More clients than connections are all served: each keeps an event stream (up to
// MaxStreams; the others are told the server offers none) and calls through connections that
// are closed when idle while the bound is near. (With the cap taken at accept and held by
// keep-alive and streams, only the first clients were ever served.)
func TestHTTPMoreClientsThanConnections(t *testing.T) {
	s := newFixture(t).server(t, nil)
	addr := serveHTTP(t, s, HTTPOptions{Token: "tok", MaxConns: 16, MaxCalls: 4, ReapAfter: 100 * time.Millisecond})
	const clients = 40
	rep, err := bench.Clients(t.Context(), bench.ClientsOptions{Endpoint: "http://" + addr + Endpoint, Token: "tok",
		Clients: clients, Calls: 2, Queries: []string{"deploy", "部署"}, Wait: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep)
	if rep.Served != clients {
		t.Errorf("%d of %d clients served through 16 connections (first error: %s)", rep.Served, clients, rep.FirstError)
	}
}

// Sockets that connect and send nothing do not keep a normal client waiting: from three
// quarters of MaxConns on, the oldest of them are closed to make room.
func TestHTTPIdleSocketsDoNotDelayCalls(t *testing.T) {
	s := newFixture(t).server(t, nil)
	addr := serveHTTP(t, s, HTTPOptions{Token: "tok", MaxConns: 32, ReapAfter: 200 * time.Millisecond})
	closeAll, err := bench.IdleSockets(t.Context(), addr, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	d, err := bench.OneCall(t.Context(), "http://"+addr+Endpoint, "tok", "deploy")
	if err != nil {
		t.Fatal(err)
	}
	if d > 2*time.Second {
		t.Errorf("a call behind 100 idle sockets took %v, want under 2 s", d)
	}
}

// A call over MaxCalls waits for a slot, and is answered 503 once it has waited BodyTimeout;
// event streams take no call slot.
func TestHTTPCallSlots(t *testing.T) {
	release := make(chan struct{})
	inside := make(chan struct{}, 8)
	h := limitCalls(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inside <- struct{}{}
		if r.Method != http.MethodGet {
			<-release
		}
	}), HTTPOptions{MaxCalls: 2, MaxStreams: 1, BodyTimeout: 300 * time.Millisecond}, slog.New(slog.DiscardHandler))
	do := func(method string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, Endpoint, nil))
		return w.Code
	}
	codes := make(chan int, 2)
	for range 2 {
		go func() { codes <- do("POST") }()
		<-inside
	}
	if c := do("GET"); c != http.StatusOK {
		t.Errorf("an event stream while the call slots are taken: %d, want 200", c)
	}
	<-inside
	start := time.Now()
	if c := do("POST"); c != http.StatusServiceUnavailable {
		t.Errorf("a third call: %d, want 503", c)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("the third call was refused after %v, before the 300 ms wait", d)
	}
	late := make(chan int, 1)
	go func() { late <- do("POST") }()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if c := <-late; c != http.StatusOK {
		t.Errorf("a call that got a slot within its wait: %d, want 200", c)
	}
	for range 2 {
		<-codes
	}
}

// Abandoned sessions cost one log line per change, not one per session, and are closed once
// idle for SessionTimeout: the SDK then forgets them.
func TestHTTPAbandonedSessions(t *testing.T) {
	f := newFixture(t)
	var buf syncBuffer
	s := f.server(t, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	addr := serveHTTP(t, s, HTTPOptions{SessionTimeout: time.Minute})
	const abandoned = 40 // the sessions=40 below
	if err := bench.AbandonSessions(t.Context(), "http://"+addr+Endpoint, "", abandoned); err != nil {
		t.Fatal(err)
	}
	if n := sessions(s); n != abandoned {
		t.Fatalf("%d sessions open, want the %d abandoned", n, abandoned)
	}
	cs := connect(t, s, nil)
	before := buf.lines()
	mustCall(t, cs, "memory_save", SaveInput{Name: "fresh", Description: "a fresh memory", Type: "project", Body: "text"}, nil)
	time.Sleep(noticeWindow + 300*time.Millisecond) // the list_changed is sent 10 ms after; its summary a window later
	logged := buf.since(before)
	if n := strings.Count(logged, "notifications/"); n > 2 || !strings.Contains(logged, "sessions=40") {
		t.Errorf("one save after %d abandoned sessions logged %d lines about notifications:\n%s", abandoned, n, logged)
	}

	// Through a handler whose sessions time out, abandoned ones go.
	open := sessions(s)
	short := serveHTTP(t, s, HTTPOptions{SessionTimeout: 300 * time.Millisecond})
	if err := bench.AbandonSessions(t.Context(), "http://"+short+Endpoint, "", 10); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sessions(s) > open && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := sessions(s); n != open {
		t.Errorf("%d sessions open after the timeout, want the %d from before", n, open)
	}
}

func sessions(s *Server) int {
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	return n
}

// syncBuffer is a log sink that many goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) lines() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.b.String(), "\n")
}

// since returns what was written after the first n lines.
func (b *syncBuffer) since(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ls := strings.SplitAfter(b.b.String(), "\n")
	if n > len(ls) {
		return ""
	}
	return strings.Join(ls[n:], "")
}

// The server answers initialize and tools/list while it is still reading the store (114 s on
// 100,000 memories); a call that needs the memories waits for them.
func TestAnswersBeforeTheIndexIsFilled(t *testing.T) {
	f := newFixture(t)
	mem := f.dir + "/mem"
	if err := synth.Memories(mem, 20, 1); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	beforeFill = func() { <-hold }
	t.Cleanup(func() { beforeFill = func() {} })
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	defer release()
	opts := f.options()
	opts.MemoryDir = mem
	s, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(); s.Close() })
	cs := connect(t, s, nil) // initialize
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list while the index is filled: %v, %v", tools, err)
	}
	found := make(chan int, 1)
	go func() {
		var out SearchOutput
		if msg := call(t, cs, "memory_search", SearchInput{Query: synth.Queries(1, 2)[0]}, &out); msg != "" {
			t.Errorf("memory_search: %s", msg)
		}
		found <- len(out.Results)
	}()
	select {
	case <-found:
		t.Fatal("memory_search answered before the memories were read")
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if n := <-found; n == 0 {
		t.Error("memory_search found nothing once the memories were read")
	}
}
