package recall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// sessionOf10000 writes a sidecar of 10,000 memories, as a session over a large store does.
func sessionOf10000(t *testing.T, st *Stats) []string {
	t.Helper()
	files := make([]string, 10000)
	for i := range files {
		files[i] = fmt.Sprintf("m%05d.md", i)
	}
	if err := st.RecordSession(t.Context(), files, t0); err != nil {
		t.Fatal(err)
	}
	return files
}

// A recall appends to the log: the 10,000-entry sidecar is not rewritten, and Load counts the
// recall all the same.
func TestStatsRecordAppends(t *testing.T) {
	dir := t.TempDir()
	st := NewStats(dir)
	sessionOf10000(t, st)
	before, err := os.ReadFile(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.Record(t.Context(), []string{"m00007.md"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := os.ReadFile(st.Path()); !bytes.Equal(before, after) {
		t.Fatal("Record rewrote the sidecar")
	}
	got, err := st.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if e := got["m00007.md"]; e.Recalled != 3 || e.IdleSessions != 0 || !e.LastRecalled.Equal(t0) || got["m00008.md"].IdleSessions != 1 {
		t.Fatalf("after 3 logged recalls: m00007 %+v, m00008 %+v", e, got["m00008.md"])
	}
	// The next whole update folds the log in and removes it.
	if err := st.RecordSession(t.Context(), []string{"m00007.md"}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.logPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("log after a fold: %v, want removed", err)
	}
	if got, _ := st.Load(t.Context()); got["m00007.md"].Recalled != 3 || got["m00007.md"].IdleSessions != 1 {
		t.Fatalf("after the fold: %+v", got["m00007.md"])
	}
}

// A crash in the middle of an append leaves a torn last line: Load skips it (that recall is
// lost, nothing else), and the next Record ends it and counts normally.
func TestStatsTornAppend(t *testing.T) {
	dir := t.TempDir()
	st := NewStats(dir)
	if err := st.Record(t.Context(), []string{"a.md"}, t0); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(st.logPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"at":"2026-03-01T00:00:00Z","files":["a.m`)
	f.Close()
	if got, err := st.Load(t.Context()); err != nil || got["a.md"].Recalled != 1 {
		t.Fatalf("Load with a torn last line = %v, %v; want a.md recalled once, no error", got, err)
	}
	if err := st.Record(t.Context(), []string{"a.md", "b.md"}, t0); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(t.Context())
	if err != nil || got["a.md"].Recalled != 2 || got["b.md"].Recalled != 1 {
		t.Fatalf("after a Record past the torn line: %v, %v", got, err)
	}
	// A damaged complete line is skipped and reported; the other counts stay.
	os.WriteFile(st.logPath(), append(mustRead(t, st.logPath()), "garbage\n"...), 0o600)
	if err := st.Record(t.Context(), []string{"b.md"}, t0); err != nil {
		t.Fatal(err)
	}
	got, err = st.Load(t.Context())
	if !errors.Is(err, ErrCorruptStats) || got["a.md"].Recalled != 2 || got["b.md"].Recalled != 2 {
		t.Fatalf("Load with a bad line = %v, %v; want the other counts and ErrCorruptStats", got, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A crash after a fold wrote the sidecar but before it removed the log: the sidecar's mark
// says how much of the log it holds, so no recall is counted twice, and later appends to that
// log still count.
func TestStatsCrashBeforeLogRemoved(t *testing.T) {
	dir := t.TempDir()
	st := NewStats(dir)
	for range 3 {
		if err := st.Record(t.Context(), []string{"a.md"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	log := mustRead(t, st.logPath())
	if err := st.Forget(t.Context(), []string{"gone.md"}); err != nil { // folds the log
		t.Fatal(err)
	}
	if err := os.WriteFile(st.logPath(), log, 0o600); err != nil { // as if never removed
		t.Fatal(err)
	}
	if got, err := st.Load(t.Context()); err != nil || got["a.md"].Recalled != 3 {
		t.Fatalf("after the crash = %v, %v; want a.md recalled 3 times", got, err)
	}
	if err := st.Record(t.Context(), []string{"a.md"}, t0); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Load(t.Context()); err != nil || got["a.md"].Recalled != 4 {
		t.Fatalf("after one more recall = %v, %v; want 4", got, err)
	}
}

// Writers in parallel (each its own Stats, as separate processes are), folding often, lose no
// count; a reader meanwhile never sees a count go down or a recall counted twice.
func TestStatsConcurrentLogAndFolds(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 6, 15
	var wg sync.WaitGroup
	errc := make(chan error, writers+1)
	done := make(chan struct{})
	for range writers {
		wg.Go(func() {
			st := NewStats(dir)
			st.foldAt = 300 // a fold every few recalls
			for range each {
				if err := st.Record(context.Background(), []string{"a.md"}, t0); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	var reader sync.WaitGroup
	reader.Go(func() {
		last := 0
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := NewStats(dir).Load(context.Background())
			if err != nil {
				errc <- err
				return
			}
			n := got["a.md"].Recalled
			if n < last || n > writers*each {
				errc <- fmt.Errorf("reader saw %d recalls after %d (at most %d)", n, last, writers*each)
				return
			}
			last = n
		}
	})
	wg.Wait()
	close(done)
	reader.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	got, err := NewStats(dir).Load(t.Context())
	if err != nil || got["a.md"].Recalled != writers*each {
		t.Fatalf("counts = %v, %v; want %d", got, err, writers*each)
	}
}
