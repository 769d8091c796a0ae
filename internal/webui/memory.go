package webui

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/memsync"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

// pageSize is how many memories or sessions one page lists.
const pageSize = 100

// memView is one memory in a list.
type memView struct {
	Store       string // the store's name (config.ProjectStore for the project's own)
	File        string
	Name        string
	Type        string
	Description string
	Modified    time.Time
	Score       string // a search's score; "" in the plain list
	// Recalled is how often recall surfaced the memory, LastRecalled when (the project
	// store's statistics; zero for a mounted store's memories).
	Recalled     int
	LastRecalled time.Time
}

// withStats is v with its recall statistics from stats (keyed by the project store's files).
func withStats(v memView, stats map[string]recall.StatEntry) memView {
	if v.Store == config.ProjectStore {
		e := stats[v.File]
		v.Recalled, v.LastRecalled = e.Recalled, e.LastRecalled
	}
	return v
}

// storeView is one store in the memory page's header.
type storeView struct {
	workspace.NamedStore
	Count int
	// Sync is where a store shared through git stands (nil for the others); SyncErr why it
	// could not be read.
	Sync    *memsync.Status
	SyncErr string
}

// archiveView is one restorable record of a store's archive.
type archiveView struct {
	Store string
	Key   string
	memdir.ArchiveRecord
}

type memoryData struct {
	Now      time.Time
	Query    string
	Stores   []storeView
	Memories []memView
	Total    int
	Page     pager
	Archive  []archiveView
	Inbox    []proposal
	Problems []string
}

// pager is the position in a paged list.
type pager struct {
	Page, Pages int
	Prev, Next  string // links, "" at the ends
}

func newPager(r *http.Request, total int) (p pager, lo, hi int) {
	p.Pages = max(1, (total+pageSize-1)/pageSize)
	p.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	p.Page = min(max(p.Page, 1), p.Pages)
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return r.URL.Path + "?" + q.Encode()
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	lo = (p.Page - 1) * pageSize
	return p, lo, min(lo+pageSize, total)
}

// memoryData gathers the memory page: the stores, the memories of the query (all of them,
// newest first, when the query is empty; else the ranker's best) and the archives.
func (s *Server) memoryData(r *http.Request) (memoryData, error) {
	d := memoryData{Now: s.ws.Now(), Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	rc, listed, err := s.recaller(r.Context())
	if err != nil {
		return d, err
	}
	s.mu.Lock()
	stats, statsErr := s.stats, s.statsErr // replaced, never changed in place
	s.mu.Unlock()
	if statsErr != nil {
		d.Problems = append(d.Problems, "recall statistics: "+statsErr.Error())
	}
	all, err := s.ws.Stores()
	if err != nil {
		return d, err
	}
	mounts := rc.Stores()
	counts := map[string]int{}
	for _, m := range mounts {
		counts[storeName(m.Name)] = m.Ranker.Len()
	}
	mems := listed
	if d.Query != "" {
		mems = nil
		for _, h := range rc.Search(d.Query, 50) {
			mm := h.Memory
			mems = append(mems, withStats(memView{Store: storeName(mounts[h.List].Name), File: mm.File, Name: mm.Name, Type: string(mm.Type),
				Description: mm.Description, Modified: mm.ModTime, Score: fmt.Sprintf("%.3f", h.Score)}, stats))
		}
	}
	for _, ns := range all {
		sv := storeView{NamedStore: ns, Count: counts[ns.Name]}
		if ns.Synced() {
			st, err := s.syncStatus(r.Context(), ns.Dir)
			if err != nil {
				sv.SyncErr = err.Error()
			} else {
				sv.Sync = &st
			}
		}
		d.Stores = append(d.Stores, sv)
		if ns.Missing || !ns.Writable {
			continue
		}
		recs, err := memdir.ReadArchiveLog(ns.Dir)
		if err != nil {
			d.Problems = append(d.Problems, err.Error())
			continue
		}
		open := memdir.Restorable(recs)
		for i := len(open) - 1; i >= 0 && len(open)-i <= 50; i-- {
			d.Archive = append(d.Archive, archiveView{ns.Name, recordKey(open[i]), open[i]})
		}
	}
	d.Total = len(mems)
	var lo, hi int
	d.Page, lo, hi = newPager(r, len(mems))
	d.Memories = mems[lo:hi]
	return d, nil
}

func (s *Server) memoryPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.memoryData(r)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	var problems []string
	d.Inbox, problems = s.inbox(r)
	d.Problems = append(d.Problems, problems...)
	s.render(w, "memory", "Memory", d)
}

// memorySearch serves the list alone, for search as you type.
func (s *Server) memorySearch(w http.ResponseWriter, r *http.Request) {
	d, err := s.memoryData(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.pages["memory"].ExecuteTemplate(w, "memlist", d); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// storeName is a recall mount's store name as the workspace names it.
func storeName(mount string) string { return cmp.Or(mount, config.ProjectStore) }

// newestFirst lists every memory of rc's stores, newest first.
func newestFirst(rc *recall.Recaller, stats map[string]recall.StatEntry) []memView {
	var mems []memView
	for _, m := range rc.Stores() {
		for _, mm := range m.Ranker.Index().Memories() {
			mems = append(mems, withStats(memView{Store: storeName(m.Name), File: mm.File, Name: mm.Name, Type: string(mm.Type),
				Description: mm.Description, Modified: mm.ModTime}, stats))
		}
	}
	slices.SortFunc(mems, func(a, b memView) int {
		return cmp.Or(b.Modified.Compare(a.Modified), strings.Compare(a.File, b.File))
	})
	return mems
}

// recordKey names an archive record in a form: its time, action and file.
func recordKey(r memdir.ArchiveRecord) string {
	return r.Time.UTC().Format(time.RFC3339Nano) + "|" + r.Action + "|" + r.File
}

type editData struct {
	Store, File, Path string
	Text              string
	Base              string // ContentHash of Text: the edit is refused if the file changed since
	Writable          bool
	Problems          []string
	Saved             string
}

// memoryFile reads the memory file of a request's store and file, through an os.Root of the
// store's directory: no name leaves it.
func (s *Server) memoryFile(store, file string) (workspace.NamedStore, []byte, error) {
	ns, err := s.ws.NamedStore(store)
	if err != nil {
		return ns, nil, err
	}
	if !memdir.IsTopicFile(file) {
		return ns, nil, fmt.Errorf("%q is not a memory file", file)
	}
	root, err := os.OpenRoot(ns.Dir)
	if err != nil {
		return ns, nil, err
	}
	defer root.Close()
	data, err := fsutil.ReadRegularIn(root, filepath.FromSlash(file), memdir.MaxWholeRead)
	return ns, data, err
}

func (s *Server) memoryEditPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ns, data, err := s.memoryFile(q.Get("store"), q.Get("file"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	s.render(w, "edit", q.Get("file"), editData{Store: ns.Name, File: q.Get("file"), Path: ns.Dir, Text: string(data),
		Base: memdir.ContentHash(data), Writable: ns.Writable && !ns.Missing, Saved: q.Get("saved")})
}

// memorySave writes an edit through memdir's Edit: the checks of strata memory edit, under
// the store's lock, refused when the file changed since the page was loaded.
func (s *Server) memorySave(w http.ResponseWriter, r *http.Request) {
	store, file := r.PostFormValue("store"), r.PostFormValue("file")
	text := strings.ReplaceAll(r.PostFormValue("text"), "\r\n", "\n") // browsers send CRLF
	ns, err := s.ws.WritableStore(store)
	if err != nil {
		s.fail(w, http.StatusForbidden, err)
		return
	}
	changed, err := ns.Store.Edit(r.Context(), file, []byte(text), r.PostFormValue("base"))
	s.changed(r.Context())
	if err != nil {
		d := editData{Store: ns.Name, File: file, Path: ns.Dir, Text: text, Base: r.PostFormValue("base"), Writable: true}
		var ee *memdir.EditError
		if errors.As(err, &ee) {
			for _, p := range ee.Problems {
				d.Problems = append(d.Problems, p.String())
			}
		} else {
			d.Problems = []string{err.Error()}
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		s.render(w, "edit", file, d)
		return
	}
	saved := "saved"
	if changed {
		saved = "saved; index line updated"
	}
	http.Redirect(w, r, "/memory/edit?"+url.Values{"store": {ns.Name}, "file": {file}, "saved": {saved}}.Encode(), http.StatusSeeOther)
}

// memoryRestore puts one archived record back, as strata memory restore does.
func (s *Server) memoryRestore(w http.ResponseWriter, r *http.Request) {
	ns, err := s.ws.WritableStore(r.PostFormValue("store"))
	if err != nil {
		s.fail(w, http.StatusForbidden, err)
		return
	}
	_, err = s.restoreRecord(r, ns, r.PostFormValue("key"))
	s.changed(r.Context())
	switch {
	case errors.Is(err, errNotArchived):
		s.fail(w, http.StatusNotFound, err)
	case err != nil:
		s.fail(w, http.StatusConflict, err)
	default:
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// errNotArchived is returned by restoreRecord when no restorable record has the key.
var errNotArchived = errors.New("not in the archive")

// restoreRecord restores the restorable record of ns's archive whose recordKey is key with
// memdir's Restore, under the store's lock.
func (s *Server) restoreRecord(r *http.Request, ns workspace.NamedStore, key string) (memdir.ArchiveRecord, error) {
	recs, err := memdir.ReadArchiveLog(ns.Dir)
	if err != nil {
		return memdir.ArchiveRecord{}, err
	}
	for _, rec := range memdir.Restorable(recs) {
		if recordKey(rec) == key {
			return rec, ns.Store.Restore(r.Context(), rec, s.ws.Now())
		}
	}
	return memdir.ArchiveRecord{}, fmt.Errorf("%q: %w of %s (restored already?)", key, errNotArchived, ns.Dir)
}
