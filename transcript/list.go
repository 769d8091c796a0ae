package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Info is what listing learns about a session from the head and tail of its file.
type Info struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	// Project is the name of the project directory (the slug of the session's cwd).
	Project string `json:"project"`
	CWD     string `json:"cwd,omitempty"`
	// Title is the session's title as Claude Code's resume list shows it (see Title): custom
	// title, AI title, a summary of this session, else the first prompt.
	Title string `json:"title,omitempty"`
	// FirstPrompt is the first real prompt (or the slash command the session began with).
	FirstPrompt string `json:"firstPrompt,omitempty"`
	LastPrompt  string `json:"lastPrompt,omitempty"`
	Tag         string `json:"tag,omitempty"`
	// Branch is the git branch of the newest entry that names one.
	Branch  string    `json:"branch,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// LastActivity is the newest timestamp in the tail, else the file's modification time.
	LastActivity time.Time `json:"lastActivity"`
	Size         int64     `json:"size"`
}

// Label is what a list shows for the session: its title, else its last prompt.
func (i Info) Label() string {
	if i.Title != "" {
		return i.Title
	}
	return i.LastPrompt
}

// headFirst and tailFirst are the windows read first; listing reads the full TailWindow only
// when they do not hold what it needs.
const (
	headFirst = 8 << 10
	tailFirst = 16 << 10
)

// statState is what the head and tail windows said about the title.
type statState struct {
	prompt promptScan
	// side is the first prompt on a sidechain: a subagent transcript's title.
	side       promptScan
	tail, head Metadata
	// sums are the summaries seen, newest first (the tail's from the end, then the head's).
	sums       []summaryLeaf
	headBranch string
}

// Stat reads at most TailWindow bytes from each end of the transcript at path (and, when no
// prompt comes before it, the whole line the head window ends in) and returns what
// they say about the session. It never parses the middle of the file; only when the title
// falls to a summary does it look for the summary's leaf in the rest of the file.
func Stat(path string) (Info, error) {
	f, size, mtime, err := openForStat(path)
	if err != nil {
		return Info{}, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	info := Info{ID: SessionIDOf(path), Path: path, Project: filepath.Base(filepath.Dir(path)), Size: size}
	bp := windowPool.Get().(*[]byte)
	defer windowPool.Put(bp)
	var st statState
	if err := statHead(f, *bp, size, &info, &st); err != nil {
		return info, fmt.Errorf("transcript: %s: %w", path, err)
	}
	if err := statTail(f, *bp, size, &info, &st); err != nil {
		return info, fmt.Errorf("transcript: %s: %w", path, err)
	}
	if info.LastActivity.IsZero() {
		info.LastActivity = mtime
	}
	if info.Branch == "" {
		info.Branch = st.headBranch
	}
	info.FirstPrompt = cmp.Or(st.prompt.result(), st.side.result())
	custom := cmp.Or(st.tail.CustomTitle, st.head.CustomTitle)
	ai := cmp.Or(st.tail.AITitle, st.head.AITitle)
	summary := ""
	if custom == "" && ai == "" && len(st.sums) > 0 {
		for k, ok := range leavesInFile(f, size, st.sums) {
			if ok {
				summary = st.sums[k].summary
				break
			}
		}
	}
	latest := ""
	if len(st.sums) > 0 {
		latest = st.sums[0].summary
	}
	info.Title = Title(custom, ai, summary, info.FirstPrompt, latest)
	return info, nil
}

// windowPool holds TailWindow-sized read buffers; nothing read into them outlives a Stat call
// (every string taken from them is a copy).
var windowPool = sync.Pool{New: func() any { b := make([]byte, TailWindow); return &b }}

// window reads [start, start+n) of r, clipped to size, into buf (at least n bytes).
func window(r io.ReaderAt, buf []byte, size, start, n int64) ([]byte, error) {
	start = max(0, start)
	n = min(n, size-start)
	if n <= 0 {
		return nil, nil
	}
	b := buf[:n]
	if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

func statHead(r io.ReaderAt, buf []byte, size int64, info *Info, st *statState) error {
	var cut int64
	for _, n := range []int64{headFirst, TailWindow} {
		b, err := window(r, buf, size, 0, n)
		if err != nil {
			return err
		}
		whole := int64(len(b)) == size
		if !whole {
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				b = b[:i]
			} else {
				b = nil
			}
		}
		// The second, larger window starts from the top again.
		st.prompt, st.side, st.head, st.sums = promptScan{}, promptScan{}, Metadata{}, st.sums[:0]
		scanHead(b, info, st)
		if st.prompt.found() || whole {
			return nil
		}
		cut = int64(len(b))
		if len(b) > 0 {
			cut++ // past the newline
		}
	}
	// The window ends inside a line longer than what is left of it: a pasted log, a message
	// with images. That line is read whole (up to longHeadLine), since it is often the prompt.
	line, err := lineAt(r, cut, size)
	if err != nil {
		return err
	}
	sums := st.sums
	scanHead(line, info, st)
	st.sums = append(st.sums, sums...)
	return nil
}

// longHeadLine is the most listing reads of one line that does not fit in the head window.
const longHeadLine = 16 << 20

// lineAt returns the line of r that starts at off, without its newline; a line longer than
// longHeadLine is returned cut (it then does not parse).
func lineAt(r io.ReaderAt, off, size int64) ([]byte, error) {
	line, err := readLine(bufio.NewReader(io.NewSectionReader(r, off, min(size-off, longHeadLine))))
	if err != nil && err != io.EOF {
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

func scanHead(b []byte, info *Info, st *statState) {
	var sums []summaryLeaf
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if info.Created.IsZero() {
			if ts := keyString(line, "timestamp"); ts != "" {
				info.Created, _ = time.Parse(time.RFC3339Nano, ts)
			}
		}
		if info.CWD == "" {
			info.CWD = keyString(line, "cwd")
		}
		if st.headBranch == "" {
			st.headBranch = keyString(line, "gitBranch")
		}
		if maybeMetadata(line) {
			if e, _ := ParseEntry(line); e != nil && metadataTypes[e.Type] {
				st.head.add(e)
				if e.Type == TypeSummary && e.Summary != "" && e.LeafUUID != "" {
					sums = append(sums, summaryLeaf{leaf: e.LeafUUID, summary: e.Summary})
				}
			}
		}
		if !st.prompt.found() && mayBeUser(line) && !bytes.Contains(line, []byte(`"tool_result"`)) {
			userPrompt(line, &st.prompt, &st.side)
		}
		if st.prompt.found() && !info.Created.IsZero() && info.CWD != "" && st.headBranch != "" {
			break
		}
	}
	// The head's summaries, newest first; statTail puts the tail's before them.
	slices.Reverse(sums)
	st.sums = sums
}

var plainPrompt = []byte(`"message":{"role":"user","content":"`)

// userPrompt feeds the prompt typed in a user entry's line to p, or to side when the entry is
// on a sidechain. A prompt stored as a plain string (the usual case) is read without parsing
// the whole line.
func userPrompt(line []byte, p, side *promptScan) {
	if i := bytes.Index(line, plainPrompt); i >= 0 && !bytes.Contains(line, []byte(`"isMeta":true`)) &&
		!bytes.Contains(line, []byte(`"isCompactSummary":true`)) && !bytes.Contains(line, []byte(`"isSidechain":true`)) {
		start := i + len(`"message":{"role":"user",`)
		if t := keyString(line[start:], "content"); t != "" {
			p.text(t)
			return
		}
	}
	e, _ := ParseEntry(line)
	switch {
	case e == nil:
	case e.IsSidechain:
		if !side.found() {
			c := *e
			c.IsSidechain = false
			side.entry(&c)
		}
	default:
		p.entry(e)
	}
}

// Shorten collapses whitespace in s and cuts it to at most n runes, ending in "…" when cut.
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func statTail(r io.ReaderAt, buf []byte, size int64, info *Info, st *statState) error {
	var m Metadata
	var sums []summaryLeaf
	ends := make([]int, 0, 64)
	for _, n := range []int64{tailFirst, TailWindow} {
		b, err := window(r, buf, size, size-n, n)
		if err != nil {
			return err
		}
		whole := int64(len(b)) >= size
		if !whole {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				continue
			}
			b = b[i+1:]
		}
		m, sums = Metadata{}, sums[:0]
		// Split forward (IndexByte is vectorised, LastIndexByte is not), then walk back.
		ends = ends[:0]
		for off := 0; off < len(b); {
			i := bytes.IndexByte(b[off:], '\n')
			if i < 0 {
				ends = append(ends, len(b))
				break
			}
			ends = append(ends, off+i)
			off += i + 1
		}
		for k := len(ends) - 1; k >= 0; k-- {
			start := 0
			if k > 0 {
				start = ends[k-1] + 1
			}
			line := b[start:ends[k]]
			if len(line) == 0 {
				continue
			}
			if info.LastActivity.IsZero() {
				if ts := keyString(line, "timestamp"); ts != "" {
					info.LastActivity, _ = time.Parse(time.RFC3339Nano, ts)
				}
			}
			if info.Branch == "" {
				info.Branch = keyString(line, "gitBranch")
			}
			if info.CWD == "" {
				info.CWD = keyString(line, "cwd")
			}
			if !maybeMetadata(line) {
				continue
			}
			if e, _ := ParseEntry(line); e != nil && metadataTypes[e.Type] {
				if e.Type == TypeSummary && e.Summary != "" && e.LeafUUID != "" {
					sums = append(sums, summaryLeaf{leaf: e.LeafUUID, summary: e.Summary})
				}
				if _, seen := m.Entries[e.Type]; !seen {
					m.add(e)
				}
			}
		}
		if m.CustomTitle != "" || m.AITitle != "" || whole {
			break
		}
	}
	st.tail = m
	head := st.sums
	st.sums = append(sums, head...)
	st.sums = dedupSummaries(st.sums)
	info.Tag = m.Tag
	info.LastPrompt = Shorten(m.LastPrompt, 200)
	return nil
}

// dedupSummaries drops repeats (the same summary of the same leaf), keeping the first.
func dedupSummaries(s []summaryLeaf) []summaryLeaf {
	out := s[:0]
	seen := map[summaryLeaf]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ListOptions control List and ListAll.
type ListOptions struct {
	// Workers bounds how many files are read at once; 0 means 4 × GOMAXPROCS.
	Workers int
	// Index, when set, is a file (rewritten atomically when something changed) in which
	// listing remembers each transcript's Info with the size, modification and change time
	// and inode its file had; every file is still stat-ed at every listing, and one whose
	// four are unchanged is not opened. Without it every file's head and tail are read. A corrupt index is reported and rebuilt. Use one index
	// per listing (per project directory, and one for ListAll): entries for files not listed
	// are dropped.
	Index string
}

// List returns the sessions whose transcripts are in dir (a project directory), newest first.
// A missing dir is an empty list. Files that cannot be read are left out and reported in the
// error (errors.Join of one error per file); the rest are still returned.
func List(ctx context.Context, dir string, opts ListOptions) ([]Info, error) {
	index := startIndexLoad(opts.Index)
	d, err := openSessionDir(dir)
	if err != nil {
		index()
		return nil, fmt.Errorf("transcript: %w", err)
	}
	var dirs []*sessionDir
	if d != nil {
		defer d.release()
		dirs = append(dirs, d)
	}
	return listDirs(ctx, dirs, index, opts)
}

// maxOpenDirs bounds the directory descriptors ListAll keeps open; files of the directories
// past it are stat-ed by their full path.
const maxOpenDirs = 64

// ListAll returns the sessions of every project under projectsDir, newest first.
func ListAll(ctx context.Context, projectsDir string, opts ListOptions) ([]Info, error) {
	index := startIndexLoad(opts.Index)
	ents, err := os.ReadDir(projectsDir)
	if err != nil {
		index()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("transcript: %w", err)
	}
	var dirs []*sessionDir
	var errs []error
	defer func() {
		for _, d := range dirs {
			d.release()
		}
	}()
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d, err := openSessionDir(filepath.Join(projectsDir, e.Name()))
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: %w", err))
		}
		if d != nil {
			if len(dirs) >= maxOpenDirs {
				d.close()
			}
			dirs = append(dirs, d)
		}
	}
	infos, err := listDirs(ctx, dirs, index, opts)
	return infos, errors.Join(append(errs, err)...)
}

// startIndexLoad starts reading the index at path (none when path is ""), so that it is read
// on one processor while the caller reads the directories and stats the files; the function
// it returns waits for it, and must be called.
func startIndexLoad(path string) func() (*listIndex, error) {
	if path == "" {
		return func() (*listIndex, error) { return nil, nil }
	}
	var idx *listIndex
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { idx, err = loadIndex(path) })
	return func() (*listIndex, error) {
		wg.Wait()
		return idx, err
	}
}

// Files returns the session transcripts in dir (a project directory): *.jsonl files other than
// Claude Code 2.0's agent-*.jsonl subagent files.
func Files(dir string) ([]string, error) { return sessionFiles(dir) }

func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	var out []string
	for _, d := range ents {
		if d.Type().IsRegular() && isSessionFile(d.Name()) {
			out = append(out, filepath.Join(dir, d.Name()))
		}
	}
	return out, nil
}

// listFile is the k-th file of a listing: name i of directory d.
type listFile struct {
	d *sessionDir
	i int
}

func (f listFile) name() string { return f.d.name(f.i) }
func (f listFile) path() string { return f.d.file(f.i) }

// What listing knows about a file after the stat pass.
const (
	fileToRead  uint8 = iota // read its head and tail
	fileIndexed              // unchanged since its index entry (at[k]) was written
	fileSkip                 // not a regular file
	fileFailed               // the stat or the read failed (errs holds why)
	fileRead                 // read now (fresh[at[k]] holds its Info)
)

// statBlock is how many files a stat worker claims at a time.
const statBlock = 32

// listDirs lists the session files of dirs: one stat pass (every file when there is an index,
// else only those of unknown type), then the index (index waits for it; nil without one)
// decides which files are unchanged, then the others are read, and the index is rewritten
// when anything differed.
func listDirs(ctx context.Context, dirs []*sessionDir, index func() (*listIndex, error), opts ListOptions) ([]Info, error) {
	count := 0
	for _, d := range dirs {
		count += len(d.ents)
	}
	files := make([]listFile, 0, count)
	for _, d := range dirs {
		for i := range d.ents {
			files = append(files, listFile{d, i})
		}
	}
	n := len(files)
	state := make([]uint8, n)
	at := make([]int32, n) // the index entry, or the slot in fresh, of file k
	keys := make([]fileKey, n)
	var errMu sync.Mutex
	errs := make(map[int]error)
	fail := func(k int, err error) {
		errMu.Lock()
		state[k], errs[k] = fileFailed, err
		errMu.Unlock()
	}
	// The stat pass, while the index may still be loading: with an index every file costs one
	// stat (its key decides whether the remembered Info holds); without one, only files whose
	// type the directory did not give. The processors each take blocks of files; results go
	// to slots, so the order is the directory's whatever the scheduling.
	withIndex := opts.Index != ""
	parallel(n, statBlock, func(lo, hi int) {
		if ctx.Err() != nil {
			return // reported below
		}
		for k := lo; k < hi; k++ {
			f := files[k]
			if !withIndex && f.d.ents[f.i].Regular {
				continue
			}
			key, regular, err := f.d.stat(f.i)
			switch {
			case err != nil:
				fail(k, fmt.Errorf("transcript: %w", err))
			case !regular:
				state[k] = fileSkip
			default:
				keys[k] = key
			}
		}
	})
	// Each file's entry is the one written for its position, else looked up by path; it
	// holds when the key is the same.
	idx, idxErr := index()
	var byPos []int32
	if idx != nil {
		byPos = idx.positions(n)
		for k, f := range files {
			if state[k] != fileToRead {
				continue
			}
			e := idx.at(byPos[k], f.d.path, f.name())
			if e < 0 {
				e = int32(idx.find(f.path()))
			}
			if e >= 0 && idx.entries[e].Key == keys[k] {
				state[k], at[k] = fileIndexed, e
			}
		}
	}
	// The read pass: head and tail of every file not known unchanged.
	var todo []int
	for k, s := range state {
		if s == fileToRead {
			at[k] = int32(len(todo))
			todo = append(todo, k)
		}
	}
	fresh := make([]Info, len(todo))
	if len(todo) > 0 {
		workers := opts.Workers
		if workers <= 0 {
			workers = 4 * runtime.GOMAXPROCS(0)
		}
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(todo)) {
			wg.Go(func() {
				for k := range next {
					info, err := Stat(files[k].path())
					if err != nil {
						fail(k, err)
						continue
					}
					fresh[at[k]], state[k] = info, fileRead
				}
			})
		}
	feed:
		for _, k := range todo {
			select {
			case next <- k:
			case <-ctx.Done():
				break feed
			}
		}
		close(next)
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []error
	for k := range files { // in listing order
		if err := errs[k]; err != nil {
			all = append(all, err)
		}
	}
	order, same := resultOrder(idx, state, at, byPos, fresh)
	if idx != nil && !same {
		if err := saveIndexFor(opts.Index, idx, order, state, at, keys, fresh); err != nil {
			all = append(all, err)
		}
	}
	out := make([]Info, len(order))
	for j, k := range order {
		if state[k] == fileIndexed {
			idx.info(int(at[k]), &out[j])
		} else {
			out[j] = fresh[at[k]]
		}
	}
	return out, errors.Join(append(all, idxErr)...)
}

// resultOrder returns the files listed (indexed or read), newest first, then by path. same
// reports that they are exactly the index's entries, each found at its position: then the
// index's order is the result's and the index needs no rewrite.
func resultOrder(idx *listIndex, state []uint8, at, byPos []int32, fresh []Info) (order []int32, same bool) {
	if idx != nil {
		hits, same := 0, true
		for k, s := range state {
			switch s {
			case fileRead:
				same = false
			case fileIndexed:
				hits++
				same = same && byPos[k] == at[k]
			}
		}
		if same && hits == len(idx.entries) {
			order = make([]int32, len(idx.entries))
			for e, x := range idx.entries {
				order[e] = int32(x.Pos)
			}
			return order, true
		}
	}
	type sortKey struct {
		k    int32
		at   int64 // last activity, UnixNano (math.MinInt64 for none)
		path string
	}
	keys := make([]sortKey, 0, len(state))
	for k, s := range state {
		switch s {
		case fileIndexed:
			e := &idx.entries[at[k]]
			la := e.LastActivity
			if la == 0 {
				la = math.MinInt64
			}
			keys = append(keys, sortKey{int32(k), la, e.Path})
		case fileRead:
			i := &fresh[at[k]]
			la := int64(math.MinInt64)
			if !i.LastActivity.IsZero() {
				la = i.LastActivity.UnixNano()
			}
			keys = append(keys, sortKey{int32(k), la, i.Path})
		}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	order = make([]int32, len(keys))
	for j, x := range keys {
		order[j] = x.k
	}
	return order, false
}

// saveIndexFor rewrites the index with the files listed, in the result's order.
func saveIndexFor(path string, idx *listIndex, order []int32, state []uint8, at []int32, keys []fileKey, fresh []Info) error {
	var w indexWriter
	for _, k := range order {
		if state[k] == fileRead {
			w.add(int(k), keys[k], &fresh[at[k]])
		} else {
			w.copy(int(k), idx, int(at[k]))
		}
	}
	return saveIndex(path, &w)
}

// parallel calls f on consecutive blocks of [0, n), from as many goroutines as there are
// processors to run them; it returns when every block is done.
func parallel(n, block int, f func(lo, hi int)) {
	var next atomic.Int64
	run := func() {
		for {
			lo := int(next.Add(int64(block))) - block
			if lo >= n {
				return
			}
			f(lo, min(n, lo+block))
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+block-1)/block) - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}

// Find returns the transcript whose session id is id or starts with id, looking first in
// projectDir and then in every project under projectsDir. An ambiguous prefix is an error that
// names the candidates.
func Find(projectsDir, projectDir, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("transcript: empty session id")
	}
	if err := ValidID(id); err != nil {
		return "", err
	}
	search := func(dirs []string) ([]string, error) {
		var exact, prefix []string
		for _, d := range dirs {
			files, err := sessionFiles(d)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				sid := SessionIDOf(f)
				if sid == id {
					exact = append(exact, f)
				} else if strings.HasPrefix(sid, id) {
					prefix = append(prefix, f)
				}
			}
		}
		if len(exact) > 0 {
			return exact, nil
		}
		return prefix, nil
	}
	if projectDir != "" {
		m, err := search([]string{projectDir})
		if err != nil {
			return "", err
		}
		if len(m) == 1 {
			return m[0], nil
		}
		if len(m) > 1 {
			return "", ambiguous(id, m)
		}
	}
	ents, err := os.ReadDir(projectsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("transcript: %w", err)
	}
	var dirs []string
	for _, d := range ents {
		if d.IsDir() {
			dirs = append(dirs, filepath.Join(projectsDir, d.Name()))
		}
	}
	m, err := search(dirs)
	if err != nil {
		return "", err
	}
	switch len(m) {
	case 0:
		return "", fmt.Errorf("%w: %s", ErrNoSession, id)
	case 1:
		return m[0], nil
	}
	return "", ambiguous(id, m)
}

// ErrNoSession is returned by Find when no transcript matches the id.
var ErrNoSession = errors.New("transcript: no session matches")

func ambiguous(id string, paths []string) error {
	ids := make([]string, len(paths))
	for i, p := range paths {
		ids[i] = SessionIDOf(p)
	}
	sort.Strings(ids)
	if len(ids) > 5 {
		ids = append(ids[:5], "…")
	}
	return fmt.Errorf("transcript: session id %q is ambiguous: %s", id, strings.Join(ids, ", "))
}
