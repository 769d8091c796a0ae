package webui

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// versions are fingerprints of what the pages show; a change of one is an event.
type versions struct {
	Memory   uint64 // the memories, the inboxes and the archive logs
	Sessions uint64 // the transcript directory's files
}

// versions computes the fingerprints now; it rescans the stores when the last scan is older
// than refreshEvery.
func (s *Server) versions(ctx context.Context) (versions, error) {
	var v versions
	_, listed, err := s.recaller(ctx)
	if err != nil {
		return v, err
	}
	h := fnv.New64a()
	for _, m := range listed {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", m.Store, m.File, m.Modified.UnixNano())
	}
	all, err := s.ws.Stores()
	if err != nil {
		return v, err
	}
	for _, ns := range all {
		if ns.Missing {
			continue
		}
		hashDir(h, filepath.Join(ns.Dir, memdir.InboxDir))
		if fi, err := os.Stat(filepath.Join(ns.Dir, filepath.FromSlash(memdir.ArchiveLogFile))); err == nil {
			fmt.Fprintf(h, "log\x00%d\x00%d\x00", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	v.Memory = h.Sum64()
	h = fnv.New64a()
	hashDir(h, s.ws.TranscriptDir())
	v.Sessions = h.Sum64()
	return v, nil
}

// hashDir adds the names, sizes and modification times of dir's entries to h (nothing for a
// missing dir).
func hashDir(h interface{ Write([]byte) (int, error) }, dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", e.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
}

// events streams server-sent events: "memory" when the memories, an inbox or an archive
// changed, "sessions" when a transcript did, checked every poll interval, until the page goes
// away or the server shuts down.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "strata ui: streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	last, err := s.versions(r.Context())
	if err != nil {
		http.Error(w, "strata ui: "+err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprint(w, "retry: 5000\n\n")
	fl.Flush()
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		v, err := s.versions(r.Context())
		if err != nil {
			fmt.Fprintf(w, "event: problem\ndata: %s\n\n", oneLine(err.Error()))
			fl.Flush()
			continue
		}
		if v.Memory != last.Memory {
			fmt.Fprint(w, "event: memory\ndata: changed\n\n")
		}
		if v.Sessions != last.Sessions {
			fmt.Fprint(w, "event: sessions\ndata: changed\n\n")
		}
		fl.Flush()
		last = v
	}
}

// oneLine keeps s on one SSE data line.
func oneLine(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}
