package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestShouldDream(t *testing.T) {
	tests := []struct {
		name     string
		lastRun  time.Time
		sessions int
		want     bool
		why      string
	}{
		{"never ran, enough sessions", time.Time{}, 5, true, "due"},
		{"never ran, too few sessions", time.Time{}, 4, false, "4 session(s) since the last run, fewer than 5"},
		{"24 h and 5 sessions", t0.Add(-24 * time.Hour), 5, true, "due"},
		{"23 h", t0.Add(-23 * time.Hour), 50, false, "last run 23h0m0s ago, less than 24h0m0s"},
		{"long ago, 4 sessions", t0.Add(-100 * time.Hour), 4, false, "4 session(s) since the last run, fewer than 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := ShouldDream(t0, tt.lastRun, tt.sessions, GateConfig{})
			if ok != tt.want || why != tt.why {
				t.Errorf("ShouldDream = %v, %q; want %v, %q", ok, why, tt.want, tt.why)
			}
		})
	}
}

func touch(t *testing.T, path string, when time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func TestGateCheck(t *testing.T) {
	mem, sess := t.TempDir(), t.TempDir()
	g := &Gate{MemDir: mem, SessionsDir: sess}
	now := t0
	check := func(want bool, whyPrefix string) {
		t.Helper()
		ok, why, err := g.Check(now)
		if err != nil {
			t.Fatal(err)
		}
		if ok != want || !strings.HasPrefix(why, whyPrefix) {
			t.Errorf("at %s: Check = %v, %q; want %v, %q…", now.Sub(t0), ok, why, want, whyPrefix)
		}
	}
	// Last run two days ago; three sessions since, one before.
	last := t0.Add(-48 * time.Hour)
	touch(t, filepath.Join(mem, LockFile), last)
	for i, age := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 72 * time.Hour} {
		touch(t, filepath.Join(sess, string(rune('a'+i))+".jsonl"), t0.Add(-age))
	}
	check(false, "3 session(s)")
	// Two more sessions appear, but the scan is throttled for 10 minutes.
	touch(t, filepath.Join(sess, "e.jsonl"), t0)
	touch(t, filepath.Join(sess, "f.jsonl"), t0)
	now = t0.Add(9 * time.Minute)
	check(false, "scanned 9m0s ago")
	now = t0.Add(10 * time.Minute)
	check(true, "due")
	// A run now (the lock's mtime moves) makes the next scan wait 24 h.
	touch(t, filepath.Join(mem, LockFile), now)
	now = now.Add(11 * time.Minute)
	check(false, "last run 11m0s ago")
}

// With Subdirs, sessions started in subdirectories of the project root count too; a project
// whose name merely starts the same way (no "-" after) does not.
func TestGateSubdirs(t *testing.T) {
	projects := t.TempDir()
	root := filepath.Join(projects, "-home-me-app")
	for _, d := range []string{root, root + "-web", root + "-api-v2", root + "le"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	touch(t, filepath.Join(root, "a.jsonl"), t0)
	touch(t, filepath.Join(root+"-web", "b.jsonl"), t0)
	touch(t, filepath.Join(root+"-web", "c.jsonl"), t0)
	touch(t, filepath.Join(root+"-api-v2", "d.jsonl"), t0)
	touch(t, filepath.Join(root+"le", "e.jsonl"), t0)
	for _, tt := range []struct {
		subdirs bool
		want    string
	}{{false, "1 session(s)"}, {true, "4 session(s)"}} {
		g := &Gate{MemDir: t.TempDir(), SessionsDir: root, Subdirs: tt.subdirs}
		ok, why, err := g.Check(t0.Add(time.Hour))
		if err != nil || ok || !strings.HasPrefix(why, tt.want) {
			t.Errorf("Subdirs=%v: Check = %v, %q, %v; want %q", tt.subdirs, ok, why, err, tt.want)
		}
	}
}

func TestAcquireLock(t *testing.T) {
	alive := map[int]bool{100: true, 200: true}
	isAlive := func(pid int) bool { return alive[pid] }
	chtim := func(p string, when time.Time) error { return os.Chtimes(p, when, when) }
	opts := func(pid int) LockOptions { return LockOptions{PID: pid, Alive: isAlive, Chtim: chtim} }
	readBody := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, LockFile))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}

	t.Run("free: PID body, mtime now", func(t *testing.T) {
		dir := t.TempDir()
		l, err := AcquireLock(dir, t0, opts(100))
		if err != nil {
			t.Fatal(err)
		}
		if got := readBody(dir); got != "100" {
			t.Errorf("body %q, want 100", got)
		}
		if last, _ := LastRun(dir); !last.Equal(t0) {
			t.Errorf("LastRun = %v, want %v", last, t0)
		}
		fi, _ := os.Stat(l.Path())
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode().Perm())
		}
	})
	t.Run("held by a live process", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := AcquireLock(dir, t0, opts(100)); err != nil {
			t.Fatal(err)
		}
		_, err := AcquireLock(dir, t0.Add(59*time.Minute), opts(200))
		if !errors.Is(err, ErrLockHeld) || !strings.Contains(err.Error(), "PID 100") {
			t.Fatalf("err = %v, want ErrLockHeld by PID 100", err)
		}
		if got := readBody(dir); got != "100" {
			t.Errorf("body %q changed", got)
		}
	})
	t.Run("stale after 1 h", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := AcquireLock(dir, t0, opts(100)); err != nil {
			t.Fatal(err)
		}
		if _, err := AcquireLock(dir, t0.Add(time.Hour), opts(200)); err != nil {
			t.Fatalf("stale lock not taken over: %v", err)
		}
		if got := readBody(dir); got != "200" {
			t.Errorf("body %q, want 200", got)
		}
	})
	t.Run("dead holder", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := AcquireLock(dir, t0, opts(300)); err != nil { // 300 is not alive
			t.Fatal(err)
		}
		if _, err := AcquireLock(dir, t0.Add(time.Minute), opts(100)); err != nil {
			t.Fatalf("dead holder's lock not taken: %v", err)
		}
	})
	t.Run("garbage body", func(t *testing.T) {
		dir := t.TempDir()
		touch(t, filepath.Join(dir, LockFile), t0)
		if _, err := AcquireLock(dir, t0, opts(100)); err != nil {
			t.Fatalf("lock with garbage body not taken: %v", err)
		}
	})
	t.Run("rollback restores the last run", func(t *testing.T) {
		dir := t.TempDir()
		prev := t0.Add(-30 * time.Hour)
		l, err := AcquireLock(dir, prev, opts(300))
		if err != nil {
			t.Fatal(err)
		}
		l, err = AcquireLock(dir, t0, opts(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Rollback(); err != nil {
			t.Fatal(err)
		}
		if last, _ := LastRun(dir); !last.Equal(prev) {
			t.Errorf("LastRun after rollback = %v, want %v", last, prev)
		}
	})
	t.Run("rollback of a first run removes the file", func(t *testing.T) {
		dir := t.TempDir()
		l, err := AcquireLock(dir, t0, opts(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Rollback(); err != nil {
			t.Fatal(err)
		}
		if last, _ := LastRun(dir); !last.IsZero() {
			t.Errorf("LastRun = %v, want zero", last)
		}
	})
	t.Run("real liveness: our own PID is alive", func(t *testing.T) {
		if !pidAlive(os.Getpid()) {
			t.Error("pidAlive(self) = false")
		}
	})
}
