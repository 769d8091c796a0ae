package webui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/workspace"
)

// benchServer is a server over a project with memories synthetic memories and sessions
// synthetic transcripts, its caches warm (the first request builds the recall index and the
// session list's index, as a browser's first visit does).
func benchServer(b *testing.B, memories, sessions int) *Server {
	b.Helper()
	root := b.TempDir()
	project := filepath.Join(root, "project")
	must(b, os.MkdirAll(project, 0o755))
	env := config.Env{Home: filepath.Join(root, "home", ".strata"), ManagedDir: filepath.Join(root, "managed"), UserHome: filepath.Join(root, "home")}
	ws, err := workspace.Open(context.Background(), workspace.Options{Cwd: project, Env: env})
	must(b, err)
	dir, err := ws.MemoryDir()
	must(b, err)
	must(b, synth.Memories(dir, memories, 1))
	for i := range sessions {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		must(b, synth.Session(filepath.Join(ws.TranscriptDir(), id+".jsonl"), synth.SessionOptions{SessionID: id, CWD: project,
			Size: 16 << 10, Title: fmt.Sprintf("session %d", i), Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute), Seed: uint64(i)}))
	}
	s, err := New(Options{Workspace: ws, Addr: "127.0.0.1:1", SessionIndex: filepath.Join(root, "sessions.gob")})
	must(b, err)
	b.Cleanup(s.Close)
	return s
}

// serve runs one request through the whole handler (the checks included) and fails b unless
// it answers 200.
func serve(b *testing.B, h http.Handler, s *Server, path string) {
	req := httptest.NewRequest("GET", "http://127.0.0.1:1"+path, nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: s.session})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body)
	}
}

// BenchmarkPages measures the server-side time of the memory page and a search on a
// 10,000-memory store, and of the session list of 1,000 sessions (docs/ui.md has figures);
// WhileRescanning is the memory page when the stores are due to be scanned again (every
// refreshEvery), in the background; Rescan10k is that scan (which a write of ours waits for);
// NoSpendIndex the session list before each session's tokens and cost are remembered.
func BenchmarkPages(b *testing.B) {
	s := benchServer(b, 10_000, 1_000)
	h := s.Handler()
	queries := synth.Queries(16, 2)
	for _, bc := range []struct {
		name string
		path func(i int) string
	}{
		{"MemoryPage10k", func(int) string { return "/" }},
		// A scan is due on every request: it runs in the background (one at a time).
		{"MemoryPage10kWhileRescanning", func(int) string { s.due(); return "/" }},
		{"MemorySearch10k", func(i int) string { return "/memory/search?q=" + urlQuery(queries[i%len(queries)]) }},
		{"SessionList1k", func(int) string { return "/sessions" }},
		// The first visit without the spend index: every transcript read whole once.
		{"SessionList1kNoSpendIndex", func(int) string { s.spends = &spendIndex{}; return "/sessions" }},
	} {
		serve(b, h, s, bc.path(0)) // warm
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				serve(b, h, s, bc.path(i))
				i++
			}
		})
	}
	b.Run("Rescan10k", func(b *testing.B) {
		for b.Loop() {
			must(b, s.rescan(b.Context()))
		}
	})
}

func urlQuery(s string) string {
	return (&url.URL{RawQuery: url.Values{"q": {s}}.Encode()}).RawQuery[2:]
}
