package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// Auto-dream defaults.
const (
	// LockFile is the consolidation lock in the memory dir: its mtime is the last run, its
	// body the PID of the process that holds (or last held) it.
	LockFile            = ".consolidate-lock"
	DefaultMinInterval  = 24 * time.Hour
	DefaultMinSessions  = 5
	DefaultLockStale    = time.Hour
	DefaultScanInterval = 10 * time.Minute
)

// ErrLockHeld is returned by AcquireLock when a live process holds the lock.
var ErrLockHeld = errors.New("extract: consolidation lock is held")

// GateConfig sets the auto-dream gate; zero fields take the defaults.
type GateConfig struct {
	MinInterval  time.Duration // since the last run (24 h)
	MinSessions  int           // sessions touched since the last run (5)
	LockStale    time.Duration // a held lock older than this is taken over (1 h)
	ScanInterval time.Duration // Gate.Check looks at most this often (10 min)
}

func (c GateConfig) withDefaults() GateConfig {
	if c.MinInterval == 0 {
		c.MinInterval = DefaultMinInterval
	}
	if c.MinSessions == 0 {
		c.MinSessions = DefaultMinSessions
	}
	if c.LockStale == 0 {
		c.LockStale = DefaultLockStale
	}
	if c.ScanInterval == 0 {
		c.ScanInterval = DefaultScanInterval
	}
	return c
}

// ShouldDream reports whether a dream is due at now: at least MinInterval since lastRun (a
// zero lastRun means never ran) and at least MinSessions sessions touched since. reason says
// why not (or "due").
func ShouldDream(now, lastRun time.Time, sessions int, cfg GateConfig) (ok bool, reason string) {
	cfg = cfg.withDefaults()
	if !lastRun.IsZero() {
		if since := now.Sub(lastRun); since < cfg.MinInterval {
			return false, fmt.Sprintf("last run %s ago, less than %s", since.Round(time.Minute), cfg.MinInterval)
		}
	}
	if sessions < cfg.MinSessions {
		return false, fmt.Sprintf("%d session(s) since the last run, fewer than %d", sessions, cfg.MinSessions)
	}
	return true, "due"
}

// LastRun returns the mtime of the memory dir's lock file: the time of the last run, zero
// when there was none.
func LastRun(memDir string) (time.Time, error) {
	fi, err := os.Stat(filepath.Join(memDir, LockFile))
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("extract: %w", err)
	}
	return fi.ModTime(), nil
}

// CountSessions counts the transcripts (*.jsonl) in dir modified after since.
func CountSessions(dir string, since time.Time) (int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("extract: sessions: %w", err)
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if fi.ModTime().After(since) {
			n++
		}
	}
	return n, nil
}

// Gate decides when auto-dream runs for one memory dir. It looks at the disk at most every
// ScanInterval; between looks Check answers false without any I/O. Safe for concurrent use.
type Gate struct {
	MemDir      string // the memory dir (holds the lock file)
	SessionsDir string // where the project's transcripts are
	// Subdirs also counts the transcripts of the project directories beside SessionsDir whose
	// names extend its name with "-": sessions started in a subdirectory of the project root
	// (transcripts are kept per working directory, the memory per project root).
	Subdirs bool
	Config  GateConfig

	mu       sync.Mutex
	lastScan time.Time
}

// Check reports whether a dream is due at now, and why (or why not).
func (g *Gate) Check(now time.Time) (bool, string, error) {
	cfg := g.Config.withDefaults()
	g.mu.Lock()
	if !g.lastScan.IsZero() && now.Sub(g.lastScan) < cfg.ScanInterval {
		g.mu.Unlock()
		return false, fmt.Sprintf("scanned %s ago, less than %s", now.Sub(g.lastScan).Round(time.Second), cfg.ScanInterval), nil
	}
	g.lastScan = now
	g.mu.Unlock()
	last, err := LastRun(g.MemDir)
	if err != nil {
		return false, "", err
	}
	if !last.IsZero() && now.Sub(last) < cfg.MinInterval {
		ok, why := ShouldDream(now, last, cfg.MinSessions, cfg)
		return ok, why, nil
	}
	n, err := g.countSessions(last)
	if err != nil {
		return false, "", err
	}
	ok, why := ShouldDream(now, last, n, cfg)
	return ok, why, nil
}

// countSessions counts the transcripts modified after since in SessionsDir and, with
// Subdirs, in its subdirectory siblings.
func (g *Gate) countSessions(since time.Time) (int, error) {
	n, err := CountSessions(g.SessionsDir, since)
	if err != nil || !g.Subdirs {
		return n, err
	}
	parent, prefix := filepath.Dir(g.SessionsDir), filepath.Base(g.SessionsDir)+"-"
	ents, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return n, nil
	}
	if err != nil {
		return n, fmt.Errorf("extract: sessions: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		m, err := CountSessions(filepath.Join(parent, e.Name()), since)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// Lock is a held consolidation lock.
type Lock struct {
	path  string
	prior time.Time // mtime before acquisition; zero when the file did not exist
}

// LockOptions tune AcquireLock; the zero value uses os.Getpid, a real liveness check and a
// 1 h staleness.
type LockOptions struct {
	PID   int                           // our PID; 0 means os.Getpid()
	Alive func(int) bool                // whether a PID runs; nil means a signal-0 probe
	Stale time.Duration                 // 0 means DefaultLockStale
	Chtim func(string, time.Time) error // sets mtime; nil means os.Chtimes (tests may fake it)
}

// AcquireLock takes the memory dir's consolidation lock at now. The lock is held by another
// when the file's mtime is within Stale of now and its body names a live PID other than ours;
// then it returns ErrLockHeld (wrapped, naming the PID). Otherwise it writes our PID, sets the
// mtime to now, and re-reads the body: if another process wrote it in between, it lost the
// race and returns ErrLockHeld too.
func AcquireLock(memDir string, now time.Time, o LockOptions) (*Lock, error) {
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	if o.Alive == nil {
		o.Alive = pidAlive
	}
	if o.Stale == 0 {
		o.Stale = DefaultLockStale
	}
	if o.Chtim == nil {
		o.Chtim = func(p string, t time.Time) error { return os.Chtimes(p, t, t) }
	}
	path := filepath.Join(memDir, LockFile)
	l := &Lock{path: path}
	if fi, err := os.Stat(path); err == nil {
		l.prior = fi.ModTime()
		body, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil, fmt.Errorf("extract: lock %s: %w", path, rerr)
		}
		pid, perr := strconv.Atoi(strings.TrimSpace(string(body)))
		if perr == nil && pid > 0 && pid != o.PID && now.Sub(l.prior) < o.Stale && o.Alive(pid) {
			return nil, fmt.Errorf("%w by PID %d since %s (%s)", ErrLockHeld, pid, l.prior.UTC().Format(time.RFC3339), path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("extract: lock %s: %w", path, err)
	}
	if err := os.MkdirAll(memDir, fsutil.DirMode); err != nil {
		return nil, fmt.Errorf("extract: lock %s: %w", path, err)
	}
	if err := fsutil.WriteFile(path, []byte(strconv.Itoa(o.PID)+"\n"), fsutil.FileMode); err != nil {
		return nil, fmt.Errorf("extract: lock %s: %w", path, err)
	}
	if err := o.Chtim(path, now); err != nil {
		return nil, fmt.Errorf("extract: lock %s: %w", path, err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("extract: lock %s: %w", path, err)
	}
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(body))); pid != o.PID {
		return nil, fmt.Errorf("%w by PID %d (lost the race) (%s)", ErrLockHeld, pid, path)
	}
	return l, nil
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Rollback gives the run back after a failure: the mtime returns to the previous last run
// (the file is removed when there was none), so the gate fires again.
func (l *Lock) Rollback() error {
	if l.prior.IsZero() {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("extract: lock %s: %w", l.path, err)
		}
		return nil
	}
	if err := os.Chtimes(l.path, l.prior, l.prior); err != nil {
		return fmt.Errorf("extract: lock %s: %w", l.path, err)
	}
	return nil
}

// pidAlive probes a PID with signal 0.
func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
