package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// ErrNoStore is wrapped by the error returned when no memory store has the name asked for.
var ErrNoStore = errors.New("no such memory store")

// ErrReadOnlyStore is wrapped by the error returned when a write is asked of a store mounted
// read-only, or of a mounted store whose directory does not exist.
var ErrReadOnlyStore = errors.New("memory store not writable")

// MountError is a mounted memory store with a problem, among Diagnostics: its directory does not
// exist (it stays mounted: reads find nothing, writes are refused) or cannot be used (it is not
// mounted).
type MountError struct {
	Store, From, Dir string
	Msg              string
}

// Error formats e as "memory store NAME (from FILE): message".
func (e *MountError) Error() string {
	return fmt.Sprintf("memory store %s (from %s): %s", e.Store, e.From, e.Msg)
}

// NamedStore is one memory store of the workspace: the project's own auto-memory
// (config.ProjectStore) or a store mounted by the memoryStores setting or STRATA_MEMORY_STORES.
type NamedStore struct {
	Name     string
	Dir      string // absolute
	Writable bool   // the project's own always; a mounted one when it says so
	// Missing reports that a mounted store's directory does not exist: reads find nothing,
	// and writes are refused (strata never creates a mounted store's directory, so a typo in
	// a path cannot start an empty store).
	Missing bool
	// From is where a mounted store was given (a settings file or STRATA_MEMORY_STORES); ""
	// for the project's own.
	From  string
	Store *memdir.Store
}

// Project reports whether s is the project's own store.
func (s NamedStore) Project() bool { return s.From == "" }

// Synced reports whether s is a store shared through git (memsync): mounted, writable,
// existing, with .git at its top.
func (s NamedStore) Synced() bool {
	if s.Project() || !s.Writable || s.Missing {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.Dir, ".git"))
	return err == nil
}

// mounts is the workspace's mounted stores, resolved once.
type mounts struct {
	stores  []NamedStore
	rankers map[string]*recall.Ranker
	mu      sync.Mutex // guards rankers
}

// resolveMounts resolves the mounted stores from the settings and STRATA_MEMORY_STORES: each
// directory's state is looked at once, and what is wrong (a bad entry of the variable, a
// directory that does not exist or is not a directory) is a diagnostic of Open.
func (w *Workspace) resolveMounts() []error {
	specs, errs := w.env.MemoryStores(w.settings)
	o := w.MemdirOptions()
	o.Mode = "" // a shared store holds topic files, whatever this project's mode
	for _, sp := range specs {
		dir := sp.Dir(w.env.UserHome)
		ns := NamedStore{Name: sp.Name, Dir: dir, Writable: sp.Writable, From: sp.From}
		bad := func(msg string) { errs = append(errs, &MountError{Store: sp.Name, From: sp.From, Dir: dir, Msg: msg}) }
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			ns.Missing = true
			bad(fmt.Sprintf("directory %s does not exist; nothing is read from it and writes to it fail until it is created", dir))
		case err != nil:
			bad(err.Error() + "; it is not mounted")
			continue
		case !fi.IsDir():
			bad(dir + " is not a directory; it is not mounted")
			continue
		}
		s, err := memdir.Open(dir, o)
		if err != nil {
			bad(err.Error() + "; it is not mounted")
			continue
		}
		ns.Store = s
		w.mounts.stores = append(w.mounts.stores, ns)
	}
	return errs
}

// Stores returns every memory store, the project's own first (named config.ProjectStore), then
// the mounted ones in the order the settings and STRATA_MEMORY_STORES give them. It is the one
// place that resolves them; what was wrong with a mounted store is in Diagnostics. It fails
// only when the project's own store cannot be opened.
func (w *Workspace) Stores() ([]NamedStore, error) {
	s, err := w.Store()
	if err != nil {
		return nil, err
	}
	dir := s.Dir()
	return append([]NamedStore{{Name: config.ProjectStore, Dir: dir, Writable: true, Store: s}}, w.mounts.stores...), nil
}

// MountedStores returns the mounted stores only (no project store needed), in order.
func (w *Workspace) MountedStores() []NamedStore {
	return append([]NamedStore(nil), w.mounts.stores...)
}

// NamedStore returns the store called name ("" or config.ProjectStore: the project's own). A
// name no store has is an error wrapping ErrNoStore that lists the names there are.
func (w *Workspace) NamedStore(name string) (NamedStore, error) {
	if name == "" || strings.EqualFold(name, config.ProjectStore) {
		s, err := w.Store()
		if err != nil {
			return NamedStore{}, err
		}
		return NamedStore{Name: config.ProjectStore, Dir: s.Dir(), Writable: true, Store: s}, nil
	}
	names := []string{config.ProjectStore}
	for _, m := range w.mounts.stores {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	for _, m := range w.mounts.stores {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
	}
	sort.Strings(names[1:])
	return NamedStore{}, fmt.Errorf("%w %q (the stores are: %s)", ErrNoStore, name, strings.Join(names, ", "))
}

// WritableStore returns the store called name for a write: the project's own when name is "",
// and an error wrapping ErrReadOnlyStore, naming the store, when it is mounted read-only or
// its directory does not exist.
func (w *Workspace) WritableStore(name string) (NamedStore, error) {
	s, err := w.NamedStore(name)
	if err != nil {
		return s, err
	}
	return s, CheckWritable(s)
}

// CheckWritable is the one rule for whether a store takes writes (WritableStore, the MCP
// server's grants on top of it): an error wrapping ErrReadOnlyStore, naming the store, when not.
func CheckWritable(s NamedStore) error {
	switch {
	case !s.Writable:
		return fmt.Errorf("%w: the memory store %q is mounted read-only (from %s); set \"writable\": true (or :rw) there to write to it", ErrReadOnlyStore, s.Name, s.From)
	case s.Missing:
		return fmt.Errorf("%w: the directory of the memory store %q, %s, does not exist; create it first (strata does not create a mounted store)", ErrReadOnlyStore, s.Name, s.Dir)
	}
	return nil
}

// StoreRanker returns the recall ranker over s, made on first use and kept (its index stays
// warm); for the project's own store it is Ranker's.
func (w *Workspace) StoreRanker(s NamedStore) (*recall.Ranker, error) {
	if s.Project() {
		return w.Ranker()
	}
	w.mounts.mu.Lock()
	defer w.mounts.mu.Unlock()
	if r, ok := w.mounts.rankers[s.Name]; ok {
		return r, nil
	}
	if w.mounts.rankers == nil {
		w.mounts.rankers = map[string]*recall.Ranker{}
	}
	r := recall.NewStoreRanker(s.Store, w.rankerOptions(s.Dir))
	w.mounts.rankers[s.Name] = r
	return r, nil
}

// RecallOptions say what a caller adds to the recall Recaller assembles.
type RecallOptions struct {
	// Stores names the stores to rank (NamedStore's names); nil means every store whose
	// directory exists. They are ranked in Stores' order whatever the order of the names.
	Stores []string
	// Selector picks the final memories from the shortlist; nil keeps the ranker's order.
	Selector recall.Selector
	// Budget and Shortlist are recall.Options'; zero values take recall's defaults.
	Budget    recall.Budget
	Shortlist int
	// NoStats records nothing (a search made outside a session).
	NoStats bool
}

// Recaller is the one way recall is assembled (a session's, strata memory search, the MCP
// server): the stores' rankers (StoreRanker, kept warm across calls), the project's recall
// statistics (Stats, unless NoStats) and the workspace's Logger and clock. The project's store,
// when ranked, is the first (recall.NewRecaller). A name no store has is an error wrapping
// ErrNoStore.
func (w *Workspace) Recaller(o RecallOptions) (*recall.Recaller, error) {
	all, err := w.Stores()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, name := range o.Stores {
		ns, err := w.NamedStore(name)
		if err != nil {
			return nil, err
		}
		want[ns.Name] = true
	}
	var mounts []recall.Mount
	for _, ns := range all {
		if o.Stores == nil && ns.Missing || o.Stores != nil && !want[ns.Name] {
			continue
		}
		r, err := w.StoreRanker(ns)
		if err != nil {
			return nil, err
		}
		name := ns.Name
		if ns.Project() {
			name = ""
		}
		mounts = append(mounts, recall.Mount{Name: name, Dir: ns.Dir, Ranker: r})
	}
	ro := recall.Options{Selector: o.Selector, Budget: o.Budget, Shortlist: o.Shortlist, Now: w.opts.Now, Logger: w.opts.Logger}
	if !o.NoStats {
		if ro.Stats, err = w.Stats(); err != nil {
			return nil, err
		}
	}
	return recall.NewRecaller(mounts, ro), nil
}

// addIndexes adds the project's MEMORY.md and each mounted store's to set, within one budget
// (memdir.LoadIndexes: the project's index limits apply to the total).
func (w *Workspace) addIndexes(ctx context.Context, set *instructions.Set, project *memdir.Store) {
	stores := []*memdir.Store{project}
	names := []string{""}
	for _, m := range w.mounts.stores {
		if !m.Missing {
			stores = append(stores, m.Store)
			names = append(names, m.Name)
		}
	}
	idxs, errs := memdir.LoadIndexes(ctx, stores, instructions.IndexView)
	for i, idx := range idxs {
		if errs[i] != nil {
			// Unreadable index: say so; the session still starts without it.
			set.AddDiagnostics(instructions.Diagnostic{Path: stores[i].IndexPath(), Severity: instructions.SeverityError, Message: errs[i].Error()})
			continue
		}
		if !idx.Exists {
			continue
		}
		var diags []instructions.Diagnostic
		if idx.Built {
			diags = append(diags, instructions.Diagnostic{Path: idx.Path, Severity: instructions.SeverityInfo,
				Message: "no MEMORY.md: the model gets an index built from the topic files, as Claude Code builds it (strata memory lint --fix writes one)"})
		}
		if idx.Truncated {
			diags = append(diags, instructions.Diagnostic{Path: idx.Path, Severity: instructions.SeverityWarning, Message: idx.Warning})
		}
		if names[i] == "" {
			set.AddAutomem(idx.Path, idx.Content(), idx.Truncated, diags...)
		} else {
			set.AddStoreIndex(names[i], idx.Path, idx.Content(), idx.Truncated, diags...)
		}
	}
}
