package memsync

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// fakeSyncer counts syncs per store and answers with scripted results.
type fakeSyncer struct {
	mu      sync.Mutex
	calls   map[string]int
	results []error // popped per call; nil when empty
	offline bool
	block   chan struct{} // when set, a sync waits for it
}

func (f *fakeSyncer) sync(ctx context.Context, dir string, o Options) (Report, error) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[dir]++
	var err error
	if len(f.results) > 0 {
		err, f.results = f.results[0], f.results[1:]
	}
	return Report{Offline: f.offline, Upstream: "origin/main"}, err
}

func (f *fakeSyncer) count(dir string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[dir]
}

// lines collects reported lines.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) add(s string) { l.mu.Lock(); l.got = append(l.got, s); l.mu.Unlock() }
func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

func addMemory(t *testing.T, dir, name string) {
	t.Helper()
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(context.Background(), memdir.Input{Name: name, Description: "d", Type: memdir.TypeProject, Body: "b"}); err != nil {
		t.Fatal(err)
	}
}

func TestBackgroundSyncsAtStartAndDebouncesWrites(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		f := &fakeSyncer{calls: map[string]int{}}
		bg := NewBackground(BackgroundOptions{Dirs: []string{a, b}, Debounce: 5 * time.Second, Poll: time.Second, Sync: f.sync})
		var l lines
		bg.Start(l.add)
		synctest.Wait()
		if f.count(a) != 1 || f.count(b) != 1 {
			t.Fatalf("after Start: %d, %d syncs, want one each", f.count(a), f.count(b))
		}
		// Three writes to a within the debounce time make one sync, 5 s after the last.
		for i, name := range []string{"one", "two", "three"} {
			addMemory(t, a, name)
			bg.Nudge()
			time.Sleep(2 * time.Second)
			synctest.Wait()
			if f.count(a) != 1 {
				t.Fatalf("write %d: synced before the store went quiet", i)
			}
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if f.count(a) != 2 || f.count(b) != 1 {
			t.Fatalf("after the writes: %d, %d syncs, want 2, 1", f.count(a), f.count(b))
		}
		// A quiet store is not synced again.
		time.Sleep(time.Minute)
		synctest.Wait()
		if f.count(a) != 2 {
			t.Fatalf("a quiet store was synced again: %d", f.count(a))
		}
		// A write found by the poll alone (the extractor's, say), then Close before the
		// debounce ended: Close runs the sync that is due.
		addMemory(t, b, "late")
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if err := bg.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if f.count(b) != 2 {
			t.Fatalf("Close did not run the due sync of b: %d", f.count(b))
		}
		if len(l.all()) != 0 {
			t.Fatalf("reported %v, want nothing", l.all())
		}
	})
}

func TestBackgroundReportsFailuresOnceAndRetries(t *testing.T) {
	a := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		f := &fakeSyncer{calls: map[string]int{}, results: []error{boom, boom, nil, boom}}
		bg := NewBackground(BackgroundOptions{Dirs: []string{a}, Debounce: 5 * time.Second, Retry: time.Minute, Sync: f.sync})
		var l lines
		bg.Start(l.add)
		synctest.Wait()
		time.Sleep(time.Minute + time.Second) // the retry fails the same way: no new line
		synctest.Wait()
		if f.count(a) != 2 || len(l.all()) != 1 || !strings.Contains(l.all()[0], "boom") {
			t.Fatalf("after two failures: %d syncs, lines %q", f.count(a), l.all())
		}
		time.Sleep(time.Minute + time.Second) // succeeds: no retry after it
		synctest.Wait()
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if f.count(a) != 3 {
			t.Fatalf("syncs = %d, want 3 (no retry after a success)", f.count(a))
		}
		addMemory(t, a, "x") // fails again: reported again
		bg.Nudge()
		time.Sleep(6 * time.Second)
		synctest.Wait()
		if got := l.all(); len(got) != 2 {
			t.Fatalf("lines = %q, want the failure reported again after a success", got)
		}
		bg.Close(context.Background())
	})
}

func TestBackgroundNeverBlocksTheCaller(t *testing.T) {
	a := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		f := &fakeSyncer{calls: map[string]int{}, block: make(chan struct{})}
		bg := NewBackground(BackgroundOptions{Dirs: []string{a}, Sync: f.sync})
		bg.Start(nil)
		for range 100 {
			bg.Nudge() // a sync is stuck in flight: nudges still return at once
		}
		close(f.block)
		bg.Close(context.Background())
		if f.count(a) != 1 {
			t.Fatalf("syncs = %d, want 1", f.count(a))
		}
	})
}

func TestBackgroundWithGit(t *testing.T) {
	c := newCluster(t, 2)
	bg := NewBackground(BackgroundOptions{Dirs: []string{c.clones[0]}, Debounce: 100 * time.Millisecond, Poll: 50 * time.Millisecond, Options: c.opts()})
	var l lines
	bg.Start(l.add)
	c.add(t, 0, "shared", "written during a session")
	bg.Nudge()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cmd := exec.Command("git", "--git-dir", c.remote, "log", "--format=%B", "main")
		cmd.Env = c.env
		out, _ := cmd.Output()
		if strings.Contains(string(out), "shared.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the write never reached the remote; log:\n%s\nlines %q", out, l.all())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := bg.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.sync(t, 1)
	if _, ok := c.files(t, 1)["shared.md"]; !ok {
		t.Fatal("the other clone did not get the memory")
	}
	if len(l.all()) != 0 {
		t.Fatalf("reported %q", l.all())
	}
}
