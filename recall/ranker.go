package recall

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"runtime"
	"sync"

	"github.com/strata-mem/strata/memdir"
)

// RankerOptions configure a Ranker.
type RankerOptions struct {
	// Params tune the scoring; the zero value means DefaultParams.
	Params *Params
	// Workers bounds the goroutines reading and analysing files on a refresh (default: the
	// number of CPUs).
	Workers int
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
	// Cache is the file a store ranker (NewStoreRanker) saves its index in, so that the next
	// process opens it instead of reading every memory (see CachePath); "" saves nothing.
	Cache string
}

// Ranker is the offline lexical ranker: an Index kept in step with a Source. The first Refresh
// reads every file; later ones read only files whose mtime or size changed and drop files that
// disappeared, so the index stays warm across turns. It is safe for concurrent use.
type Ranker struct {
	src     Source
	feed    ChangeSource    // set instead of src for a store that tracks its own changes
	snap    memdir.Snapshot // what feed reported last
	cache   *cacheState     // the saved index of a feed, if any
	ix      *Index
	workers int
	log     *slog.Logger

	mu     sync.Mutex // serialises refreshes
	seen   map[string]FileInfo
	infos  map[string]FileInfo // during a Refresh: the stamps Scan returned
	listed bool                // during a first Refresh: files listed without stamps
}

// NewRanker returns a Ranker over src with an empty index; call Refresh before searching.
func NewRanker(src Source, opts RankerOptions) *Ranker {
	p := DefaultParams()
	if opts.Params != nil {
		p = *opts.Params
	}
	w := opts.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Ranker{src: src, ix: NewIndex(p), workers: w, log: log, seen: map[string]FileInfo{}}
}

// ChangeSource is a store that reports what changed since a snapshot, reading only changed
// files: *memdir.Store is one. A Ranker over it indexes exactly what the store lists.
type ChangeSource interface {
	Changes(ctx context.Context, since memdir.Snapshot) (changed []memdir.Memory, removed []string, next memdir.Snapshot, err error)
}

// NewStoreRanker returns a Ranker kept in step with a store's own change detection (see
// ChangeSource); call Refresh before searching.
func NewStoreRanker(store ChangeSource, opts RankerOptions) *Ranker {
	r := NewRanker(nil, opts)
	r.feed = store
	if opts.Cache != "" {
		r.cache = &cacheState{path: opts.Cache}
	}
	return r
}

// Index returns the ranker's index.
func (r *Ranker) Index() *Index { return r.ix }

// Len returns the number of memories in the ranker's index.
func (r *Ranker) Len() int { return r.ix.Len() }

// RefreshStats says what a Refresh changed, by file (relative to the store's directory).
type RefreshStats struct {
	Added, Updated, Removed []string
	// Relabelled are the updated files whose name, type or description changed.
	Relabelled []string
}

// empty reports whether the Refresh changed nothing.
func (st *RefreshStats) empty() bool {
	return len(st.Added)+len(st.Updated)+len(st.Removed) == 0
}

// Refresh brings the index in step with the source: new and changed files are (re)read,
// vanished ones dropped. Diagnostics of the files read (broken frontmatter …) are returned;
// such files are still indexed by their body. An error reading one file is reported as an
// error diagnostic and the file is left out; only a failing Scan fails the refresh.
func (r *Ranker) Refresh(ctx context.Context) (RefreshStats, []memdir.Diagnostic, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.feed != nil {
		return r.refreshFeed(ctx)
	}
	var st RefreshStats
	if ds, ok := r.src.(DirSource); ok && len(r.seen) == 0 {
		// Nothing read from the source yet, so no stamps to compare: list the files and
		// take each one's stamp as it is read, in parallel, instead of a stat of each file
		// one after the other before reading any.
		files, err := ds.list()
		if err != nil {
			return st, nil, err
		}
		st.Added = files
		r.listed = true
		diags, err := r.load(ctx, files, &st)
		r.listed = false
		if len(files) > 0 {
			r.log.Debug("recall: refresh", "added", len(files))
		}
		return st, diags, err
	}
	infos, err := r.src.Scan(ctx)
	if err != nil {
		return st, nil, err
	}
	present := make(map[string]bool, len(infos))
	var todo []string
	r.infos = map[string]FileInfo{}
	for _, fi := range infos {
		present[fi.File] = true
		old, ok := r.seen[fi.File]
		if ok && old.ModTime.Equal(fi.ModTime) && old.Size == fi.Size {
			continue
		}
		if ok {
			st.Updated = append(st.Updated, fi.File)
		} else {
			st.Added = append(st.Added, fi.File)
		}
		todo = append(todo, fi.File)
		r.infos[fi.File] = fi
	}
	for file := range r.seen {
		if !present[file] {
			r.ix.Remove(file)
			delete(r.seen, file)
			st.Removed = append(st.Removed, file)
		}
	}
	diags, err := r.load(ctx, todo, &st)
	r.infos = nil
	if !st.empty() {
		r.log.Debug("recall: refresh", "added", len(st.Added), "updated", len(st.Updated), "removed", len(st.Removed))
	}
	return st, diags, err
}

// refreshFeed is Refresh over a ChangeSource. Caller holds r.mu.
func (r *Ranker) refreshFeed(ctx context.Context) (RefreshStats, []memdir.Diagnostic, error) {
	var st RefreshStats
	if r.ix.damaged.Load() {
		// A part of the saved base failed its check when it was first used: build the
		// index again from the files, and save it.
		r.log.Debug("recall: saved index damaged; rebuilding it", "path", r.cache.path)
		r.ix.reset()
		r.snap = memdir.Snapshot{}
		r.cache.base = false
	}
	var si *savedIndex
	since := r.snap
	if r.cache != nil && !r.cache.tried {
		// The saved index is read while the store is listed; its stamps are what the
		// listing is compared with.
		r.cache.tried = true
		read := make(chan *savedIndex, 1)
		go func() { read <- r.readCache() }()
		since = memdir.SnapshotLater(func() memdir.Snapshot {
			if si = <-read; si == nil {
				return memdir.Snapshot{}
			}
			return si.snapshot()
		})
	}
	changed, removed, next, err := r.feed.Changes(ctx, since)
	if si != nil && !r.linkCache(si) && err == nil {
		changed, removed, next, err = r.feed.Changes(ctx, r.snap)
	}
	if err != nil {
		return st, nil, err
	}
	r.apply(&st, changed, removed)
	r.snap = next
	if r.ix.damaged.Load() { // found by the changes' unlinking: once more, from the files
		return r.refreshFeed(ctx)
	}
	if r.cache != nil {
		r.saveCache(changed, removed)
	}
	return st, nil, nil
}

// apply links the changed memories into the index (analysed in parallel) and drops the
// removed ones, noting them in st. Caller holds r.mu.
func (r *Ranker) apply(st *RefreshStats, changed []memdir.Memory, removed []string) {
	as := make([]analysed, len(changed))
	workers := min(r.workers, len(changed))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			z := r.ix.newAnalyser()
			for i := w; i < len(changed); i += workers {
				as[i] = z.analyse(changed[i])
			}
		})
	}
	wg.Wait()
	r.ix.mu.Lock()
	defer r.ix.mu.Unlock()
	for _, f := range removed {
		if r.ix.unlink(f) {
			st.Removed = append(st.Removed, f)
		}
		delete(r.seen, f)
	}
	if len(r.ix.docs) == 0 {
		r.ix.bulkLink(as)
		for _, a := range as {
			st.Added = append(st.Added, a.mem.File)
		}
	} else {
		for _, a := range as {
			st.note(r.ix, a.mem)
			r.ix.link(a)
		}
	}
}

// Update re-reads the named files now (after the caller wrote them), without scanning the whole
// source: the cheap path for a store that knows what it changed. A named file that no longer
// exists is removed from the index. Over a ChangeSource, Update is Refresh.
func (r *Ranker) Update(ctx context.Context, files ...string) ([]memdir.Diagnostic, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.feed != nil {
		_, diags, err := r.refreshFeed(ctx)
		return diags, err
	}
	return r.load(ctx, files, nil)
}

// note counts m, about to be linked into ix, as added or updated, and as relabelled when its
// name, type or description changed. Caller holds ix.mu.
func (st *RefreshStats) note(ix *Index, m memdir.Memory) {
	id, ok := ix.byFile.get(m.File)
	if !ok {
		st.Added = append(st.Added, m.File)
		return
	}
	st.Updated = append(st.Updated, m.File)
	if old := ix.doc(id).mem; old.Name != m.Name || old.Type != m.Type || old.Description != m.Description {
		st.Relabelled = append(st.Relabelled, m.File)
	}
}

// load reads files in parallel and links them into the index, noting relabelled files in st
// (when not nil). Caller holds r.mu.
func (r *Ranker) load(ctx context.Context, files []string, st *RefreshStats) ([]memdir.Diagnostic, error) {
	if len(files) == 0 {
		return nil, nil
	}
	type result struct {
		a     analysed
		diags []memdir.Diagnostic
		err   error
	}
	res := make([]result, len(files))
	workers := min(r.workers, len(files))
	work := func(w int) {
		z := r.ix.newAnalyser()
		var buf []byte
		for i := w; i < len(files); i += workers {
			if ctx.Err() != nil {
				return
			}
			m, d, err := r.read(ctx, files[i], &buf)
			res[i] = result{diags: d, err: err}
			if err == nil {
				res[i].a = z.analyse(m)
			}
		}
	}
	if workers == 1 {
		work(0) // one file changed, as a writer says (Update): no goroutine to start and wait for
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { work(w) })
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var diags []memdir.Diagnostic
	r.ix.mu.Lock()
	defer r.ix.mu.Unlock()
	if len(r.ix.docs) == 0 {
		// A cold start: link everything in one pass with contiguous posting lists.
		var batch []analysed
		for i, x := range res {
			diags = append(diags, x.diags...)
			if x.err != nil {
				if !errors.Is(x.err, fs.ErrNotExist) {
					diags = append(diags, memdir.Diagnostic{Path: files[i], Severity: memdir.SevError, Message: x.err.Error()})
				}
				continue
			}
			batch = append(batch, x.a)
			r.seen[files[i]] = FileInfo{File: files[i], ModTime: x.a.mem.ModTime, Size: x.a.mem.Size}
		}
		r.ix.bulkLink(batch)
		return diags, nil
	}
	for i, x := range res {
		file := files[i]
		diags = append(diags, x.diags...)
		if x.err != nil {
			r.ix.unlink(file)
			delete(r.seen, file)
			if !errors.Is(x.err, fs.ErrNotExist) {
				diags = append(diags, memdir.Diagnostic{Path: file, Severity: memdir.SevError, Message: x.err.Error()})
			}
			continue
		}
		if st != nil {
			var seen RefreshStats
			seen.note(r.ix, x.a.mem)
			st.Relabelled = append(st.Relabelled, seen.Relabelled...)
		}
		r.ix.link(x.a)
		r.seen[file] = FileInfo{File: file, ModTime: x.a.mem.ModTime, Size: x.a.mem.Size}
	}
	return diags, nil
}

// read loads one file from the source, reading it into *buf when the source is a DirSource
// that has just been listed or scanned (see DirSource.loadStat and loadKnown).
func (r *Ranker) read(ctx context.Context, file string, buf *[]byte) (memdir.Memory, []memdir.Diagnostic, error) {
	if ds, ok := r.src.(DirSource); ok && r.listed {
		return ds.loadStat(file, buf)
	}
	if ds, ok := r.src.(DirSource); ok && r.infos != nil {
		if fi, ok := r.infos[file]; ok {
			return ds.loadKnown(fi, buf)
		}
	}
	return r.src.Load(ctx, file)
}

// Search ranks the indexed memories against query (see Index.Search). It does not refresh.
func (r *Ranker) Search(query string, k int) []Hit {
	resets := r.ix.resets.Load()
	hits := r.ix.Search(query, k)
	if (r.ix.damaged.Load() || r.ix.resets.Load() != resets) && r.feed != nil {
		// The search (or a concurrent one) used a part of the saved base that failed its
		// check: its hits are not to be trusted. Build the index again from the files (if
		// that is not done yet) and search that.
		r.mu.Lock()
		_, _, err := r.refreshFeed(context.Background())
		r.mu.Unlock()
		if hits = nil; err == nil {
			hits = r.ix.Search(query, k)
		}
	}
	return hits
}
