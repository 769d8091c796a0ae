package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

// project is what the server serves: one project's root, its memory store and the workspace's
// ranker over it, kept warm.
type project struct {
	root   string // project root, absolute, symlinks resolved
	dir    string // the directory the project was opened with (instructions start here)
	base   string // what path arguments are relative to: root, or dir when dir is not under root (a worktree)
	env    config.Env
	ws     *workspace.Workspace // the project's settings, read once
	store  *memdir.Store
	ranker *recall.Ranker // ws.Ranker: the agent's and strata memory search's
	now    func() time.Time
	// mounts are the stores mounted besides the project's (memoryStores, STRATA_MEMORY_STORES),
	// served through the tools' store argument.
	mounts []*mounted

	// syncMu serialises sync: the ranker's refresh and the stamp of MEMORY.md move together.
	syncMu    sync.Mutex
	indexStat fileStamp

	// ready is closed once the index holds every memory (fill); fillErr is then why not.
	ready   chan struct{}
	fillErr error
}

// fileStamp identifies one version of a file.
type fileStamp struct {
	size  int64
	mtime time.Time
	ok    bool
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: st.Size(), mtime: st.ModTime(), ok: true}
}

// openProject opens the project containing dir: its settings and memory store, with an empty
// search index that fill fills.
func openProject(ctx context.Context, opts Options, dir string, log *slog.Logger) (*project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: project %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: project %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("mcpserver: project %s: not a directory", dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: abs, Env: opts.Env, MemoryDir: opts.MemoryDir, Logger: log, Now: opts.Now})
	if err != nil {
		return nil, fmt.Errorf("mcpserver: project %s: %w", dir, err)
	}
	for _, e := range ws.Diagnostics() {
		log.Warn("mcpserver: settings", "problem", e) // a file skipped, or one key dropped
	}
	root := ws.Root()
	store, err := ws.Store()
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	ranker, err := ws.Ranker()
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	base := root
	if !within(abs, root) {
		base = abs
	}
	return &project{root: root, dir: abs, base: base, env: opts.Env, ws: ws, store: store,
		ranker: ranker, now: opts.Now, ready: make(chan struct{})}, nil
}

// fill reads every memory of the project's store and of the mounted stores into their indexes
// (seconds on a large store).
func (p *project) fill(ctx context.Context) error {
	beforeFill()
	if _, err := p.sync(ctx); err != nil {
		return err
	}
	mounts, err := openMounts(ctx, p.ws)
	p.mounts = mounts
	return err
}

// beforeFill lets a test hold fill back.
var beforeFill = func() {}

// wait returns once p's indexes are filled, with fill's error, or ctx's when it ends first.
func (p *project) wait(ctx context.Context) error {
	select {
	case <-p.ready:
		return p.fillErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// changeSet is what one sync found: the memory files the ranker's refresh added, updated,
// removed and relabelled, and whether MEMORY.md changed.
type changeSet struct {
	recall.RefreshStats
	index bool
}

func (c changeSet) empty() bool {
	return len(c.Added)+len(c.Updated)+len(c.Removed) == 0 && !c.index
}

// sync brings the ranker in step with the memory dir (it reads only files whose stamp changed)
// and reports what changed.
func (p *project) sync(ctx context.Context) (changeSet, error) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	var cs changeSet
	st, _, err := p.ranker.Refresh(ctx)
	if err != nil {
		return cs, fmt.Errorf("mcpserver: scan %s: %w", p.store.Dir(), err)
	}
	cs.RefreshStats = st
	if st := stampOf(p.store.IndexPath()); st != p.indexStat {
		cs.index = true
		p.indexStat = st
	}
	return cs, nil
}

// inScope reports whether path (absolute) may be read through the server: it lies, after
// resolving symlinks, under the project root, STRATA_HOME, the memory dir or one of extra.
func (p *project) inScope(path string, extra ...string) bool {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	for _, dir := range append([]string{p.root, p.base, p.env.Home, p.store.Dir()}, extra...) {
		if dir == "" {
			continue
		}
		if within(real, dir) {
			return true
		}
		if r, err := filepath.EvalSymlinks(dir); err == nil && within(real, r) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolvePath turns a path argument from a client into an absolute path inside the project,
// checked through an os.Root so that neither ".." nor a symlink can lead out of it. An empty
// path is the directory the project was opened with.
func (p *project) resolvePath(arg string) (abs string, isDir bool, err error) {
	if arg == "" {
		return p.dir, true, nil
	}
	if strings.ContainsRune(arg, 0) {
		return "", false, fmt.Errorf("path %q: contains a NUL byte", arg)
	}
	rel := filepath.FromSlash(arg)
	if filepath.IsAbs(rel) {
		clean := filepath.Clean(rel)
		if !within(clean, p.base) {
			return "", false, fmt.Errorf("path %q is outside the project (%s): only files in the project can be read", arg, p.base)
		}
		rel, _ = filepath.Rel(p.base, clean)
	}
	root, err := os.OpenRoot(p.base)
	if err != nil {
		return "", false, fmt.Errorf("open project root: %w", err)
	}
	defer root.Close()
	st, err := root.Stat(rel)
	if err != nil {
		if os.IsNotExist(err) {
			return "", false, fmt.Errorf("path %q: no such file or directory in the project", arg)
		}
		return "", false, fmt.Errorf("path %q: refused: %v (only files in the project can be read)", arg, err)
	}
	return filepath.Join(p.base, rel), st.IsDir(), nil
}
