package recall

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/strata-mem/strata/memdir"
)

// Budget bounds what recall injects.
type Budget struct {
	FileLines    int // per file, lines of body (default 200)
	FileBytes    int // per file, bytes of body (default 4,096)
	Files        int // per turn (default 5)
	SessionBytes int // per session, bytes of injected text (default 60 KB); reset by compaction
}

// DefaultBudget returns the reference system's budgets.
func DefaultBudget() Budget {
	return Budget{FileLines: 200, FileBytes: 4096, Files: 5, SessionBytes: 60 * 1024}
}

// Session is recall's memory of one conversation: which files were surfaced and how many
// bytes were injected. It is safe for concurrent use.
type Session struct {
	mu       sync.Mutex
	surfaced map[string]bool
	used     int
	counted  bool // the session was counted in the statistics (Stats.RecordSession)
}

// count reports whether the session still has to be counted, and marks it counted.
func (s *Session) count() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.counted
	s.counted = true
	return first
}

// NewSession returns an empty session.
func NewSession() *Session { return &Session{surfaced: map[string]bool{}} }

// Reset forgets what was surfaced and spent, as after a compaction: the memories left the
// context, so they may be recalled again.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.surfaced = map[string]bool{}
	s.used = 0
}

// Used returns the bytes injected since the session started or was reset.
func (s *Session) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// Mark records file (a Ref) as surfaced, as when a session's earlier turns are read back from
// its transcript: it will not be injected again, and costs nothing of the session budget.
func (s *Session) Mark(file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.surfaced[file] = true
}

// Surfaced reports whether file was injected since the session started or was reset.
func (s *Session) Surfaced(file string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.surfaced[file]
}

// Turn is what the caller knows about the user turn recall runs for.
type Turn struct {
	// Query is the user's message.
	Query string
	// Read reports whether the file at an absolute path is already in the read cache (the
	// model has it in context). Nil means none is.
	Read func(path string) bool
	// Tools are the tools used successfully since the last user turn: reference memories
	// about them are skipped, except for their warnings.
	Tools []string
}

// Recalled is one memory to inject.
type Recalled struct {
	// Store is the mounted store the memory comes from (Mount.Name); "" for the project's own.
	Store       string
	File        string
	Path        string
	Name        string
	Description string
	Type        memdir.Type
	ModTime     time.Time
	Score       float64
	// Content is the text to inject: an age note for memories older than a day, the body
	// (cut to the per-file budget, or only its warnings for a tool in use), and a note when
	// something was cut.
	Content string
	// Truncated reports that Content holds less than the whole body.
	Truncated bool
	// AgeDays is the memory's age in whole days at recall time.
	AgeDays int
}

// Skip says why a ranked memory was not injected.
type Skip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Skip reasons.
const (
	SkipSurfaced      = "already surfaced this session"
	SkipRead          = "already read this session"
	SkipToolReference = "reference for a tool in use (no warnings)"
	SkipSessionBudget = "session budget spent"
	SkipUnreadable    = "unreadable"
)

// Result is what one turn's recall produced.
type Result struct {
	Memories []Recalled
	Skipped  []Skip
	// Diagnostics are problems found in memory files while refreshing the index (broken
	// frontmatter …); the files still count.
	Diagnostics []memdir.Diagnostic
}

// Options configure a Recaller.
type Options struct {
	// Selector picks from the shortlist; nil means Lexical.
	Selector Selector
	// Stats records what was recalled from the project's own store; nil records nothing.
	Stats *Stats
	// Budget; zero fields take DefaultBudget's values.
	Budget Budget
	// Shortlist is how many ranked memories the selector sees (default 20).
	Shortlist int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives warnings that do not fail a turn (a stats write that failed); nil
	// discards them.
	Logger *slog.Logger
}

// Mount is one memory store recall reads: the project's own (Name "") or one mounted by the
// settings (a team's, an organisation's).
type Mount struct {
	// Name is the store's name, given with each of its memories (Recalled.Store); "" for the
	// project's own.
	Name string
	// Dir is the store's directory, where its files are read at injection time.
	Dir string
	// Ranker is the store's own ranker (its index stays warm across turns).
	Ranker *Ranker
}

// Ref is how recall names a memory across stores: the file for the project's own, and
// "store:file" for a mounted store's. Session, Candidate.File and Skip.File use it, so a
// team's "deploy.md" is not the project's.
func Ref(store, file string) string {
	if store == "" {
		return file
	}
	return store + ":" + file
}

// Recaller runs recall for user turns over several memory stores ranked as one list. It is
// safe for concurrent use; what one conversation surfaced is its Session's.
type Recaller struct {
	stores []Mount
	opts   Options
	log    *slog.Logger
}

// NewRecaller returns a Recaller over stores, ranked as one list (Merge), the first first among
// equal scores. The first store's refresh failing fails a turn; another's leaves it out of the
// turn. Options.Stats counts the recalls of the project's own store, which must come first.
func NewRecaller(stores []Mount, opts Options) *Recaller {
	d := DefaultBudget()
	if opts.Budget.FileLines <= 0 {
		opts.Budget.FileLines = d.FileLines
	}
	if opts.Budget.FileBytes <= 0 {
		opts.Budget.FileBytes = d.FileBytes
	}
	if opts.Budget.Files <= 0 {
		opts.Budget.Files = d.Files
	}
	if opts.Budget.SessionBytes <= 0 {
		opts.Budget.SessionBytes = d.SessionBytes
	}
	if opts.Shortlist <= 0 {
		opts.Shortlist = 20
	}
	if opts.Selector == nil {
		opts.Selector = Lexical{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if len(stores) == 0 || stores[0].Name != "" {
		opts.Stats = nil
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recaller{stores: slices.Clone(stores), opts: opts, log: log}
}

// Stores returns the stores the Recaller ranks, in order: MergedHit.List indexes them.
func (r *Recaller) Stores() []Mount { return slices.Clone(r.stores) }

// Refresh brings every store's index in step with its files, all at once (each refresh is
// mostly system calls). It fails only when the first store cannot be refreshed; another that
// cannot is reported as an error diagnostic.
func (r *Recaller) Refresh(ctx context.Context) ([]memdir.Diagnostic, error) {
	diags, _, err := r.refresh(ctx)
	return diags, err
}

// refresh is Refresh that also says which stores were refreshed (their numbers).
func (r *Recaller) refresh(ctx context.Context) ([]memdir.Diagnostic, []int, error) {
	if len(r.stores) == 0 {
		return nil, nil, nil
	}
	type refreshed struct {
		diags []memdir.Diagnostic
		err   error
	}
	rs := make([]refreshed, len(r.stores))
	var wg sync.WaitGroup
	for i, m := range r.stores {
		wg.Go(func() { _, rs[i].diags, rs[i].err = m.Ranker.Refresh(ctx) })
	}
	wg.Wait()
	if rs[0].err != nil {
		return nil, nil, rs[0].err
	}
	var diags []memdir.Diagnostic
	live := []int{0}
	for i, x := range rs {
		diags = append(diags, x.diags...)
		if i == 0 {
			continue
		}
		if x.err != nil {
			if ctx.Err() != nil {
				return diags, nil, ctx.Err()
			}
			m := r.stores[i]
			diags = append(diags, memdir.Diagnostic{Path: m.Dir, Severity: memdir.SevError,
				Message: fmt.Sprintf("memory store %s left out of recall: %v", m.Name, x.err)})
			continue
		}
		live = append(live, i)
	}
	return diags, live, nil
}

// Search ranks the query over every store's index as it is (no refresh) and returns the best k
// hits as one list (SearchAll); each hit's List is its store's place in Stores.
func (r *Recaller) Search(query string, k int) []MergedHit {
	live := make([]int, len(r.stores))
	for i := range live {
		live[i] = i
	}
	return r.search(live, query, k)
}

// Recall runs the pipeline for one turn: refresh the index from file changes, rank, drop what
// the session already has, let the selector pick, read and cut each pick, charge the session
// and record statistics. It fails only when the first store cannot be refreshed (Refresh) or
// the selector fails; a stats write that fails is logged. Another store that cannot be
// refreshed is left out of this turn with an error diagnostic.
func (r *Recaller) Recall(ctx context.Context, s *Session, t Turn) (Result, error) {
	var res Result
	diags, live, err := r.refresh(ctx)
	res.Diagnostics = diags
	if err != nil || len(live) == 0 {
		return res, err
	}
	if r.opts.Stats != nil && s.count() {
		// The session's first recall: every memory now in the index was eligible in it.
		files := r.stores[0].Ranker.Index().Files()
		if err := r.opts.Stats.RecordSession(context.WithoutCancel(ctx), files, r.opts.Now()); err != nil {
			r.log.Warn("recall: recording the session", "err", err)
		}
	}
	b := r.opts.Budget
	hits := r.search(live, t.Query, r.opts.Shortlist+b.Files*2)
	warnOnly := map[string]bool{}
	var short []Candidate
	byFile := map[string]MergedHit{}
	for _, h := range hits {
		m, store := h.Memory, &r.stores[h.List]
		ref := Ref(store.Name, m.File)
		switch {
		case s.Surfaced(ref):
			res.Skipped = append(res.Skipped, Skip{ref, SkipSurfaced})
			continue
		case t.Read != nil && t.Read(storePath(store.Dir, m.File)):
			res.Skipped = append(res.Skipped, Skip{ref, SkipRead})
			continue
		case m.Type == memdir.TypeReference && mentionsTool(m, t.Tools):
			if !hasWarnings(m.Body) {
				res.Skipped = append(res.Skipped, Skip{ref, SkipToolReference})
				continue
			}
			warnOnly[ref] = true
		}
		if len(short) < r.opts.Shortlist {
			short = append(short, Candidate{File: ref, Store: store.Name, Name: m.Name, Description: m.Description, Type: m.Type, ModTime: m.ModTime, Score: h.Score})
			byFile[ref] = h
		}
	}
	if len(short) == 0 {
		return res, nil
	}
	picked, err := r.opts.Selector.Select(ctx, t.Query, short, b.Files)
	if err != nil {
		return res, fmt.Errorf("recall: select: %w", err)
	}
	now := r.opts.Now()
	seen := map[string]bool{}
	var recalled []string
	for _, file := range picked {
		h, ok := byFile[file]
		if !ok || seen[file] || len(res.Memories) == b.Files {
			continue // invented by the selector, repeated, or over the turn's budget
		}
		seen[file] = true
		store := r.stores[h.List]
		rc, err := r.render(store.Dir, h.Hit, warnOnly[file], now)
		rc.Store = store.Name
		if err != nil {
			res.Skipped = append(res.Skipped, Skip{file, SkipUnreadable + ": " + err.Error()})
			continue
		}
		if !s.charge(file, len(rc.Content), b.SessionBytes) {
			res.Skipped = append(res.Skipped, Skip{file, SkipSessionBudget})
			continue
		}
		res.Memories = append(res.Memories, rc)
		if store.Name == "" {
			recalled = append(recalled, file)
		}
	}
	if r.opts.Stats != nil && len(recalled) > 0 {
		if err := r.opts.Stats.Record(context.WithoutCancel(ctx), recalled, now); err != nil {
			r.log.Warn("recall: recording statistics", "err", err)
		}
	}
	return res, nil
}

// charge marks file surfaced and spends n bytes if the session budget allows.
func (s *Session) charge(file string, n, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used+n > limit {
		return false
	}
	s.used += n
	s.surfaced[file] = true
	return true
}

// search ranks the query in the stores numbered live and merges their best k hits into one
// list (SearchAll), each hit's List renumbered to its store's place in r.stores.
func (r *Recaller) search(live []int, query string, k int) []MergedHit {
	ss := make([]Searcher, len(live))
	for j, i := range live {
		ss[j] = r.stores[i].Ranker
	}
	merged := SearchAll(ss, query, k)
	for j := range merged {
		merged[j].List = live[merged[j].List]
	}
	return merged
}

// Searcher is a warm index to search: *Ranker and *Index are.
type Searcher interface {
	Search(query string, k int) []Hit
}

// SearchAll searches every store at once (a goroutine for each store of ParallelMin memories
// or more, when there are several) and ranks their hits as one list (Merge): across three
// stores a query costs about the slowest store's search, not the sum. Smaller stores are
// searched in the calling goroutine, where their search costs less than handing it over.
func SearchAll(ss []Searcher, query string, k int) []MergedHit {
	lists := make([][]Hit, len(ss))
	var wg sync.WaitGroup
	inline := -1 // the last large store: searched here while the others run
	for i, s := range ss {
		if len(ss) == 1 || !largeStore(s) {
			continue
		}
		if j := inline; j >= 0 {
			wg.Go(func() { lists[j] = ss[j].Search(query, k) })
		}
		inline = i
	}
	for i, s := range ss {
		if i == inline || len(ss) == 1 || !largeStore(s) {
			lists[i] = s.Search(query, k)
		}
	}
	wg.Wait()
	return Merge(lists, k)
}

// ParallelMin is the number of memories from which SearchAll gives a store a goroutine of its
// own.
const ParallelMin = 1000

// largeStore reports whether s holds ParallelMin memories or more; a Searcher that cannot say
// how many it holds counts as large.
func largeStore(s Searcher) bool {
	l, ok := s.(interface{ Len() int })
	return !ok || l.Len() >= ParallelMin
}

// MergedHit is a Hit of one of several lists that Merge ranked together.
type MergedHit struct {
	Hit
	List int // the index of the list it came from
}

// Merge ranks the hits of several stores' searches as one list, best first, at most k: by
// score, and among equal scores the earlier list first (the project's store is the first). The
// one rule for ranking across stores: recall and the MCP server's memory_search use it.
func Merge(lists [][]Hit, k int) []MergedHit {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return nil
	}
	all := make([]MergedHit, 0, n)
	for i, l := range lists {
		for _, h := range l {
			all = append(all, MergedHit{h, i})
		}
	}
	if len(lists) > 1 {
		slices.SortStableFunc(all, func(a, b MergedHit) int { return cmp.Compare(b.Score, a.Score) })
	}
	return all[:min(k, len(all))]
}

func storePath(dir, file string) string { return filepath.Join(dir, filepath.FromSlash(file)) }

// AgeNote is the warning that goes with a memory last changed more than a day before now, such
// as "3 days old; verify against current code before relying on it"; "" for a younger memory
// or an unknown time. Every surface that shows a memory (recall, the MCP tools) uses it, so the
// model always reads the same words.
func AgeNote(now, modified time.Time) string {
	if modified.IsZero() {
		return ""
	}
	age := now.Sub(modified)
	if age <= 24*time.Hour {
		return ""
	}
	days := int(age / (24 * time.Hour))
	unit := "days"
	if days == 1 {
		unit = "day"
	}
	return fmt.Sprintf("%d %s old; verify against current code before relying on it", days, unit)
}

// render reads the memory's current text and builds what is injected.
func (r *Recaller) render(dir string, h Hit, warnOnly bool, now time.Time) (Recalled, error) {
	m, _, err := readMemory(storePath(dir, h.Memory.File), h.Memory.File, MaxIndexedBytes)
	if err != nil {
		return Recalled{}, err
	}
	rc := Recalled{File: m.File, Path: m.Path, Name: m.Name, Description: m.Description, Type: m.Type, ModTime: m.ModTime, Score: h.Score}
	body := strings.TrimSpace(m.Body)
	var b strings.Builder
	if note := AgeNote(now, m.ModTime); note != "" {
		rc.AgeDays = int(now.Sub(m.ModTime) / (24 * time.Hour))
		fmt.Fprintf(&b, "(This memory is %s.)\n\n", note)
	}
	if warnOnly {
		body = warningLines(body)
		rc.Truncated = true
		b.WriteString("(Only the warnings of this reference are shown: the tool is in use.)\n\n")
	}
	cut, note := Truncate(body, r.opts.Budget.FileLines, r.opts.Budget.FileBytes)
	if note == "" && m.Size > MaxIndexedBytes {
		note = "only the first MiB of the file was read"
	}
	b.WriteString(cut)
	if note != "" {
		rc.Truncated = true
		fmt.Fprintf(&b, "\n\n[Cut: %s. Read %s for the rest.]", note, m.Path)
	}
	rc.Content = b.String()
	return rc, nil
}

// Truncate cuts text to at most maxLines lines, then at most maxBytes bytes (at the last
// line break that fits, or at a character boundary when a single line is longer). note says
// which limit cut the text and how much was left out; it is "" when nothing was cut.
func Truncate(text string, maxLines, maxBytes int) (cut, note string) {
	var notes []string
	if maxLines > 0 {
		n := 0
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				n++
				if n == maxLines {
					rest := strings.Count(text[i+1:], "\n") + 1
					notes = append(notes, fmt.Sprintf("%d lines limit, %d more lines", maxLines, rest))
					text = text[:i]
					break
				}
			}
		}
	}
	if maxBytes > 0 && len(text) > maxBytes {
		end := strings.LastIndexByte(text[:maxBytes], '\n')
		if end <= 0 {
			end = maxBytes
			for end > 0 && !utf8.RuneStart(text[end]) {
				end--
			}
		}
		notes = append(notes, fmt.Sprintf("%d bytes limit, %d more bytes", maxBytes, len(text)-end))
		text = text[:end]
	}
	return text, strings.Join(notes, "; ")
}

// mentionsTool reports whether a memory is about one of the tools: the tool's name appears as
// a word in the memory's name, description or file name.
func mentionsTool(m memdir.Memory, tools []string) bool {
	if len(tools) == 0 {
		return false
	}
	hay := strings.ToLower(m.Name + " " + m.Description + " " + strings.TrimSuffix(m.File, ".md"))
	for _, tool := range tools {
		tool = strings.ToLower(strings.TrimSpace(tool))
		if tool == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(hay[i:], tool)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(tool)
			if (start == 0 || !isWordByte(hay[start-1])) && (end == len(hay) || !isWordByte(hay[end])) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

// warningMarker finds the lines of a reference memory that warn: gotchas, caveats, things to
// never or not do.
var warningMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(warn(ing)?s?|gotchas?|caveats?|careful|caution|beware|pitfalls?|never|do not|don'?t|avoid|must not|breaks?|broken|bug|important)\b|⚠|注意|警告|不要|切勿|禁止`)
})

func hasWarnings(body string) bool { return warningMarker().MatchString(body) }

// warningLines keeps the lines that warn, plus the heading of the section they are in.
func warningLines(body string) string {
	var out []string
	heading := ""
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			heading = line
			if warningMarker().MatchString(line) {
				out = append(out, line)
				heading = ""
			}
			continue
		}
		if warningMarker().MatchString(line) {
			if heading != "" {
				out = append(out, heading)
				heading = ""
			}
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
