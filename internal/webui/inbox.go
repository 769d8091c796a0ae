package webui

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"

	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// proposal is one memory the extractor staged in a store's inbox, with what accepting it
// would change: a diff against the live file it replaces, or its whole text.
type proposal struct {
	Store string
	extract.Staged
	Diff string
}

// inbox lists the proposals of every store that takes writes.
func (s *Server) inbox(r *http.Request) ([]proposal, []string) {
	all, err := s.ws.Stores()
	if err != nil {
		return nil, []string{err.Error()}
	}
	var out []proposal
	var problems []string
	for _, ns := range all {
		if ns.Missing || !ns.Writable {
			continue
		}
		staged, err := extract.Inbox(r.Context(), ns.Store)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, st := range staged {
			p := proposal{Store: ns.Name, Staged: st}
			text, err := extract.ReadStaged(r.Context(), ns.Store, st.File)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			var live []byte
			if st.Replaces {
				live, err = fsutil.ReadFileIn(ns.Dir, filepath.FromSlash(st.File), memdir.MaxWholeRead)
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					problems = append(problems, err.Error())
				}
			}
			p.Diff = udiff.Unified(st.File, st.File+" (proposed)", string(live), string(text))
			out = append(out, p)
		}
	}
	return out, problems
}

// inboxDecide accepts or rejects one proposal with extract's Accept or Reject, as strata
// memory inbox accept/reject does.
func (s *Server) inboxDecide(w http.ResponseWriter, r *http.Request) {
	ns, err := s.ws.WritableStore(r.PostFormValue("store"))
	if err != nil {
		s.fail(w, http.StatusForbidden, err)
		return
	}
	file := r.PostFormValue("file")
	switch r.PostFormValue("action") {
	case "accept":
		_, err = extract.Accept(r.Context(), ns.Store, file)
	case "reject":
		_, err = extract.Reject(r.Context(), ns.Store, file)
	default:
		err = fmt.Errorf("action %q: want accept or reject", r.PostFormValue("action"))
	}
	s.changed(r.Context())
	if err != nil {
		s.fail(w, http.StatusConflict, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
