package conversation

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Limits of the read cache; the reference system's numbers.
const (
	DefaultReadCacheEntries       = 100
	DefaultReadCacheBytes   int64 = 25 << 20
)

// What compaction re-injects from the read cache (see Recent); the reference system's numbers.
const (
	PostCompactFiles      = 5      // most recent files re-injected
	PostCompactFileTokens = 5_000  // per file
	PostCompactTokens     = 50_000 // for all of them
)

// UnchangedStub is what a re-read of an unchanged file returns instead of its content: the
// model already has that exact view in the conversation, so sending it again only costs tokens.
const UnchangedStub = "File unchanged since last read. The content from the earlier Read result in this conversation is still current; refer to it instead of reading the file again."

// Errors of CheckWritable. They are wrapped with the file's path; test with errors.Is.
var (
	// ErrNotRead is returned when an existing file is edited or overwritten without a Read in
	// this conversation (or after the cache forgot it).
	ErrNotRead = errors.New("file has not been read yet; Read it first before writing to it")
	// ErrPartialView is returned when the model saw the file only in altered form (comments or
	// frontmatter stripped, truncated): an edit based on that view could destroy what it did not see.
	ErrPartialView = errors.New("only a partial view of the file was shown (altered or truncated when injected); Read the file before writing to it")
	// ErrModified is returned when the file changed on disk (mtime and content) since the model's
	// view of it was recorded.
	ErrModified = errors.New("file has been modified since it was read, by the user or another process; Read it again before writing to it")
)

// Source says how the model came to see a file's content.
type Source string

// Sources of a file view.
const (
	// SourceRead: the Read tool returned the content (the range Offset/Limit). Only such views
	// are answered with UnchangedStub on an identical re-read.
	SourceRead Source = "read"
	// SourceWrite: the agent wrote the content itself (Edit/Write), so it knows the file.
	SourceWrite Source = "write"
	// SourceInjected: the engine put the content in the context (nested instructions, recalled
	// memories, attachments). Partial says whether it was altered on the way.
	SourceInjected Source = "injected"
)

// FileState is what the model was shown of one file. In snapshots (JSON) the content is left out.
type FileState struct {
	// Path is the normalised key (see NormalizePath).
	Path string `json:"path"`
	// Content is the content as shown; empty when HasContent is false.
	Content string `json:"-"`
	// HasContent is false for entries restored from a snapshot or too big to keep.
	HasContent bool `json:"-"`
	// ModTime is the file's modification time when it was shown.
	ModTime time.Time `json:"mtime"`
	// Offset and Limit are the range the Read tool was asked for (0: from the start / to the end).
	Offset int `json:"offset,omitempty"`
	Limit  int `json:"limit,omitempty"`
	// Partial marks a view in altered form (comments or frontmatter stripped, truncated).
	Partial bool   `json:"partial,omitempty"`
	Source  Source `json:"source,omitempty"`
	// At is when the view was recorded.
	At time.Time `json:"at"`
}

func (s FileState) size() int64 {
	if !s.HasContent {
		return 0
	}
	return int64(len(s.Content))
}

// ReadCacheOptions configures a ReadCache. Zero values mean the defaults.
type ReadCacheOptions struct {
	// MaxEntries bounds the number of files (default 100).
	MaxEntries int
	// MaxBytes bounds the sum of the kept contents' sizes in bytes (default 25 MB). A single
	// content larger than that is not kept; its path, mtime and range are.
	MaxBytes int64
	// Dir resolves relative paths; empty means the process's working directory.
	Dir string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// ReadCache remembers which files the model has seen, in which form, and at which mtime (the
// reference's readFileState). It is an LRU bounded by entries and by content bytes, safe for
// concurrent use.
type ReadCache struct {
	maxEntries int
	maxBytes   int64
	dir        string
	now        func() time.Time

	mu    sync.Mutex
	order *list.List // of *FileState, most recent at the front
	byKey map[string]*list.Element
	bytes int64
}

// NewReadCache returns an empty cache.
func NewReadCache(opts ReadCacheOptions) *ReadCache {
	c := &ReadCache{
		maxEntries: opts.MaxEntries,
		maxBytes:   opts.MaxBytes,
		dir:        opts.Dir,
		now:        opts.Now,
		order:      list.New(),
		byKey:      map[string]*list.Element{},
	}
	if c.maxEntries <= 0 {
		c.maxEntries = DefaultReadCacheEntries
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultReadCacheBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// NormalizePath returns the cache key of path: made absolute against dir (the working directory
// when dir is empty), cleaned, and with symlinks resolved when the file (or else its directory)
// exists. Two spellings of one file get one key.
func NormalizePath(dir, path string) string {
	path = cleanAbs(dir, path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	// A file about to be created: resolve its directory so the key matches a later read.
	d, base := filepath.Split(path)
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return filepath.Join(r, base)
	}
	return path
}

func (c *ReadCache) lookup(key string) (*list.Element, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	return el, ok
}

// cleanAbs is NormalizePath without symlink resolution.
func cleanAbs(dir, path string) string {
	if !filepath.IsAbs(path) {
		if dir != "" {
			return filepath.Join(dir, path)
		}
		if abs, err := filepath.Abs(path); err == nil {
			return abs
		}
	}
	return filepath.Clean(path)
}

// Key returns the normalised key under which path is cached.
func (c *ReadCache) Key(path string) string { return NormalizePath(c.dir, path) }

// Record stores the view the model was just shown of st.Path, making it the most recent entry.
// Path is normalised, HasContent set, At defaults to now and Source to SourceRead. A partial
// view does not replace a full view of the same file at the same mtime (the full view is still
// in the conversation). Older entries are evicted to stay within the limits.
func (c *ReadCache) Record(st FileState) error {
	if st.Path == "" {
		return errors.New("conversation: read cache: record without a path")
	}
	st.Path = c.Key(st.Path)
	st.HasContent = true
	if st.At.IsZero() {
		st.At = c.now()
	}
	if st.Source == "" {
		st.Source = SourceRead
	}
	if int64(len(st.Content)) > c.maxBytes {
		st.Content, st.HasContent = "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[st.Path]; ok && st.Partial {
		old := el.Value.(*FileState)
		if !old.Partial && old.ModTime.Equal(st.ModTime) {
			return nil
		}
	}
	c.put(&st)
	return nil
}

// put inserts or replaces st at the front and evicts from the back. Callers hold c.mu.
func (c *ReadCache) put(st *FileState) {
	if el, ok := c.byKey[st.Path]; ok {
		c.bytes -= el.Value.(*FileState).size()
		el.Value = st
		c.order.MoveToFront(el)
	} else {
		c.byKey[st.Path] = c.order.PushFront(st)
	}
	c.bytes += st.size()
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		back := c.order.Back()
		if back == c.order.Front() {
			break // cannot happen: a single entry never exceeds maxBytes
		}
		c.removeElement(back)
	}
}

func (c *ReadCache) removeElement(el *list.Element) {
	st := el.Value.(*FileState)
	c.bytes -= st.size()
	delete(c.byKey, st.Path)
	c.order.Remove(el)
}

// Reread answers a Read of path with the given range when the file's current mtime is mtime:
// if the model already has exactly that view from an earlier Read (same range, same mtime, not
// partial), it returns UnchangedStub and true and the entry becomes the most recent. Otherwise
// it returns "", false and the caller reads the file and Records the new view.
func (c *ReadCache) Reread(path string, offset, limit int, mtime time.Time) (string, bool) {
	// Fast path: a path already in its normal form is looked up without resolving symlinks.
	// Should a directory on it have become a symlink since, the mtime check below still catches
	// a different file (the caller stats the path as it resolves now).
	el, ok := c.lookup(cleanAbs(c.dir, path))
	if !ok {
		el, ok = c.lookup(c.Key(path))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ok || c.byKey[el.Value.(*FileState).Path] != el {
		return "", false // not cached, or evicted between the lookup and now
	}
	st := el.Value.(*FileState)
	if st.Source != SourceRead || st.Partial || st.Offset != offset || st.Limit != limit || !st.ModTime.Equal(mtime) {
		return "", false
	}
	c.order.MoveToFront(el)
	return UnchangedStub, true
}

// Get returns the entry of path without changing its recency.
func (c *ReadCache) Get(path string) (FileState, bool) {
	key := c.Key(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		return *el.Value.(*FileState), true
	}
	return FileState{}, false
}

// CheckWritable says whether Edit/Write may change path now. A file that does not exist may be
// created. An existing file must have been seen in full (a Read, or written by the agent) at its
// current mtime; when only the mtime changed but a full view's content still matches the disk,
// the write is allowed (some tools touch files without changing them). The error wraps
// ErrNotRead, ErrPartialView, ErrModified or the stat error, and names the path.
func (c *ReadCache) CheckWritable(path string) error {
	key := c.Key(path)
	fi, err := os.Stat(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("conversation: check %s: %w", key, err)
	}
	st, ok := c.Get(key)
	switch {
	case !ok:
		return fmt.Errorf("conversation: %s: %w", key, ErrNotRead)
	case st.Partial:
		return fmt.Errorf("conversation: %s: %w", key, ErrPartialView)
	case st.ModTime.Equal(fi.ModTime()):
		return nil
	case st.HasContent && st.Offset == 0 && st.Limit == 0:
		data, err := os.ReadFile(key)
		if err != nil {
			return fmt.Errorf("conversation: check %s: %w", key, err)
		}
		if bytes.Equal(data, []byte(st.Content)) {
			return nil
		}
	}
	return fmt.Errorf("conversation: %s: %w", key, ErrModified)
}

// Remove forgets path (for example after the file was deleted).
func (c *ReadCache) Remove(path string) {
	key := c.Key(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.removeElement(el)
	}
}

// Clear forgets every file. Compaction calls it: the views it summarised away are no longer in
// the conversation, so neither stubs nor edits may rely on them.
func (c *ReadCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.byKey = map[string]*list.Element{}
	c.bytes = 0
}

// Len returns the number of entries.
func (c *ReadCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Bytes returns the sum of the kept contents' sizes.
func (c *ReadCache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Recent returns up to n entries, most recent first, with their content (compaction re-injects
// the most recent files from them). n <= 0 means all.
func (c *ReadCache) Recent(n int) []FileState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n <= 0 || n > c.order.Len() {
		n = c.order.Len()
	}
	out := make([]FileState, 0, n)
	for el := c.order.Front(); el != nil && len(out) < n; el = el.Next() {
		out = append(out, *el.Value.(*FileState))
	}
	return out
}

// Snapshot returns every entry, most recent first, without content: what Restore needs to
// rebuild the cache on resume. It marshals to stable JSON.
func (c *ReadCache) Snapshot() []FileState {
	out := c.Recent(0)
	for i := range out {
		out[i].Content, out[i].HasContent = "", false
	}
	return out
}

// Skipped is an entry Restore did not bring back, and why.
type Skipped struct {
	Path   string
	Reason string
}

// Restore adds states (most recent first, as Snapshot returns them) to the cache without
// content, keeping their order. Each file is checked on disk: one that is gone, or whose mtime
// differs from the recorded one, is skipped and reported, since the model's view of it is stale.
// A state without ModTime (rebuilt from a Read tool use, see FileStateFromReadInput) takes the
// file's current mtime when the file was not modified after At. Restored entries answer
// identical re-reads with the stub and allow writes, so pass only views that are still in the
// restored conversation (after its last compact boundary). Restore stops at ctx's end.
func (c *ReadCache) Restore(ctx context.Context, states []FileState) ([]Skipped, error) {
	var skipped []Skipped
	for i := len(states) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return skipped, fmt.Errorf("conversation: restore read cache: %w", err)
		}
		st := states[i]
		if st.Path == "" {
			skipped = append(skipped, Skipped{Reason: "no path"})
			continue
		}
		st.Path = c.Key(st.Path)
		fi, err := os.Stat(st.Path)
		if errors.Is(err, fs.ErrNotExist) {
			skipped = append(skipped, Skipped{Path: st.Path, Reason: "no longer exists"})
			continue
		}
		if err != nil {
			skipped = append(skipped, Skipped{Path: st.Path, Reason: err.Error()})
			continue
		}
		switch {
		case st.ModTime.IsZero() && !st.At.IsZero() && fi.ModTime().After(st.At):
			skipped = append(skipped, Skipped{Path: st.Path, Reason: "modified after it was read"})
			continue
		case st.ModTime.IsZero():
			st.ModTime = fi.ModTime()
		case !st.ModTime.Equal(fi.ModTime()):
			skipped = append(skipped, Skipped{Path: st.Path, Reason: "modified since it was read"})
			continue
		}
		if st.Source == "" {
			st.Source = SourceRead
		}
		if st.At.IsZero() {
			st.At = c.now()
		}
		st.Content, st.HasContent = "", false
		c.mu.Lock()
		c.put(&st)
		c.mu.Unlock()
	}
	return skipped, nil
}

// FileStateFromReadInput rebuilds the view a Read tool use gave, from its input as Claude Code
// writes it ({"file_path":..,"offset":..,"limit":..}) and the time of the tool use. The result
// has no ModTime; Restore fills it from the disk when the file has not changed since at.
func FileStateFromReadInput(input []byte, at time.Time) (FileState, error) {
	st, _, err := FileStateFromToolUse("Read", input, at)
	return st, err
}

// FileStateFromToolUse rebuilds, for resume, what a file tool use of a transcript let the model
// know: Read gives a SourceRead view of its range; Write, Edit, MultiEdit and NotebookEdit give a
// SourceWrite view (the model wrote the content). ok is false for other tools. Pass as at the
// time of the tool's result, which comes after the tool changed the file. The result has no
// ModTime; Restore fills it from the disk when the file has not changed since at.
func FileStateFromToolUse(name string, input []byte, at time.Time) (st FileState, ok bool, err error) {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Offset       int    `json:"offset"`
		Limit        int    `json:"limit"`
	}
	switch name {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit":
	default:
		return FileState{}, false, nil
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return FileState{}, true, fmt.Errorf("conversation: %s input: %w", name, err)
	}
	path := in.FilePath
	if name == "NotebookEdit" && in.NotebookPath != "" {
		path = in.NotebookPath
	}
	if path == "" {
		return FileState{}, true, fmt.Errorf("conversation: %s input: no file path", name)
	}
	if name != "Read" {
		return FileState{Path: path, Source: SourceWrite, At: at}, true, nil
	}
	if in.Offset < 0 || in.Limit < 0 {
		return FileState{}, true, fmt.Errorf("conversation: Read input: negative offset %d or limit %d", in.Offset, in.Limit)
	}
	return FileState{Path: path, Offset: in.Offset, Limit: in.Limit, Source: SourceRead, At: at}, true, nil
}
