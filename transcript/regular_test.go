//go:build unix

package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
)

// The sessions list cache and the transcripts are files other processes write: a FIFO, a
// symlink to /dev/zero or a 100 GB sparse file in their place is skipped or refused at once,
// never a hang or an exhausted memory.
func TestNonRegularFilesRefused(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p1 := session(t, env, "/w", "s1", "first", "", t0)
	dir := ProjectDir(env, "/w")
	want, err := List(t.Context(), dir, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	cache := t.TempDir()
	index := map[string]string{
		"fifo":   filepath.Join(cache, "fifo"),
		"zero":   filepath.Join(cache, "zero"),
		"sparse": filepath.Join(cache, "sparse"),
	}
	if err := syscall.Mkfifo(index["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", index["zero"]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index["sparse"], []byte(indexMagic), 0o600); err != nil || os.Truncate(index["sparse"], 100<<30) != nil {
		t.Skip("no sparse files")
	}
	for kind, path := range index {
		got, err := inTime(t, func() ([]Info, error) { return List(t.Context(), dir, ListOptions{Index: path}) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("listing with the index a %s (%v) differs (-want +got):\n%s", kind, err, diff)
		}
	}

	if _, err := inTime(t, func() (*File, error) { return ReadFile(t.Context(), fifo, ReadOptions{}) }); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("ReadFile(FIFO) = %v, want ErrNotRegular", err)
	}
	hits, err := inTime(t, func() ([]Hit, error) { return Search(t.Context(), []string{p1, fifo}, "first", SearchOptions{}) })
	if len(hits) == 0 || !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("Search over a transcript and a FIFO = %d hits, %v; want the hits before it and ErrNotRegular", len(hits), err)
	}
}

func inTime[T any](t *testing.T, fn func() (T, error)) (T, error) {
	t.Helper()
	type res struct {
		v   T
		err error
	}
	done := make(chan res, 1)
	go func() { v, err := fn(); done <- res{v, err} }()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("blocked for 10 s")
		var zero T
		return zero, nil
	}
}
