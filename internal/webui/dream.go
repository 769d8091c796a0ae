package webui

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/workspace"
)

type dreamData struct {
	Store    string
	Stores   []string // the stores that take writes
	Dir      string
	Steps    []extract.Action
	Index    extract.IndexUsage
	Rejected int
	Short    string
	Journal  []archiveView // the dreams' restorable steps, newest first: each can be undone
	Done     string        // what the last post did
	Problems []string
	// Model is the configured model the page can ask for merges and contradictions; NoModel
	// says why there is none.
	Model, NoModel string
}

// dreamOptions are the options `strata memory dream --accept` plans with: the workspace's
// settings and the model's proposals saved by the last run that asked it (the page never asks
// a model itself).
func (s *Server) dreamOptions(ns workspace.NamedStore) (extract.ConsolidateOptions, []string, error) {
	co, err := s.ws.ConsolidateOptions()
	if err != nil {
		return co, nil, err
	}
	co.Now = s.ws.Now()
	var problems []string
	if co.Proposals, err = extract.LoadModelProposals(ns.Dir); err != nil {
		problems = append(problems, err.Error())
	}
	return co, problems, nil
}

// dreamPlan is the dry run of the dream of ns: what `strata memory dream --dry-run` prints.
func (s *Server) dreamPlan(r *http.Request, ns workspace.NamedStore) (extract.Plan, []string, error) {
	co, problems, err := s.dreamOptions(ns)
	if err != nil {
		return extract.Plan{}, problems, err
	}
	co.DryRun = true
	res, err := extract.Consolidate(r.Context(), ns.Store, co)
	return res.Plan, append(problems, res.Warnings...), err
}

func (s *Server) dreamPage(w http.ResponseWriter, r *http.Request) {
	ns, err := s.ws.WritableStore(r.URL.Query().Get("store"))
	if err != nil {
		s.fail(w, http.StatusForbidden, err)
		return
	}
	d := dreamData{Store: ns.Name, Dir: ns.Dir, Done: r.URL.Query().Get("done")}
	if all, err := s.ws.Stores(); err == nil {
		for _, o := range all {
			if workspace.CheckWritable(o) == nil {
				d.Stores = append(d.Stores, o.Name)
			}
		}
	}
	plan, problems, err := s.dreamPlan(r, ns)
	d.Problems = problems
	if err != nil {
		d.Problems = append(d.Problems, err.Error())
	}
	for _, a := range plan.Actions {
		d.Steps = append(d.Steps, a)
	}
	d.Index, d.Rejected, d.Short = plan.Index, plan.Rejected, plan.Short
	if cfg, err := s.ws.LLMConfig(); err != nil {
		d.NoModel = err.Error()
	} else {
		d.Model = cfg.Model
	}
	recs, err := memdir.ReadArchiveLog(ns.Dir)
	if err != nil {
		d.Problems = append(d.Problems, err.Error())
	}
	open := memdir.Restorable(recs)
	for i := len(open) - 1; i >= 0 && len(d.Journal) < 50; i-- {
		if slices.Contains(extract.DreamActions, open[i].Action) {
			d.Journal = append(d.Journal, archiveView{ns.Name, recordKey(open[i]), open[i]})
		}
	}
	s.render(w, "dream", "Dream", d)
}

// dreamDecide carries out one step of the plan (apply: `strata memory dream --accept ID`),
// records it as rejected (reject: `--reject ID`), or undoes one step a dream carried out
// (undo: `strata memory restore` of its record) or the whole last dream (undo-last:
// `strata memory restore --last-dream`). Applying plans again under the store's lock and
// carries out the step only while its files are as they were planned.
func (s *Server) dreamDecide(w http.ResponseWriter, r *http.Request) {
	ns, err := s.ws.WritableStore(r.PostFormValue("store"))
	if err != nil {
		s.fail(w, http.StatusForbidden, err)
		return
	}
	id := r.PostFormValue("id")
	var done string
	switch r.PostFormValue("action") {
	case "apply":
		done, err = s.dreamApply(r, ns, id)
	case "reject":
		done, err = s.dreamReject(r, ns, id)
	case "ask":
		done, err = s.dreamAsk(r, ns)
	case "undo":
		var rec memdir.ArchiveRecord
		if rec, err = s.restoreRecord(r, ns, r.PostFormValue("key")); err == nil {
			done = fmt.Sprintf("undone: %s %s", rec.Action, rec.File)
		}
	case "undo-last":
		var recs []memdir.ArchiveRecord
		recs, err = extract.UndoLastDream(r.Context(), ns.Store, s.ws.Now())
		done = fmt.Sprintf("undone: the last dream's %d step(s)", len(recs))
	default:
		err = fmt.Errorf("action %q: want apply, reject, ask, undo or undo-last", r.PostFormValue("action"))
	}
	s.changed(r.Context())
	if err != nil {
		s.fail(w, http.StatusConflict, err)
		return
	}
	http.Redirect(w, r, "/dream?"+url.Values{"store": {ns.Name}, "done": {done}}.Encode(), http.StatusSeeOther)
}

// dreamApply carries out the step id alone, as `strata memory dream --accept ID` does.
func (s *Server) dreamApply(r *http.Request, ns workspace.NamedStore, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("no step id")
	}
	co, _, err := s.dreamOptions(ns)
	if err != nil {
		return "", err
	}
	co.Only = []string{id}
	res, err := extract.Consolidate(r.Context(), ns.Store, co)
	if err != nil {
		return "", err
	}
	for _, a := range res.Plan.Actions {
		if a.ID != id {
			continue
		}
		switch {
		case a.Done && a.ArchivedTo != "":
			return fmt.Sprintf("applied: %s %s, archived to %s", a.Kind, a.File, a.ArchivedTo), nil
		case a.Done:
			return fmt.Sprintf("applied: %s %s", a.Kind, a.File), nil
		case a.Dropped != "":
			return "", fmt.Errorf("%s %s was not carried out: %s", a.Kind, a.File, a.Dropped)
		}
	}
	return "", fmt.Errorf("step %s is no longer in the dream's plan of %s (its files changed, or it was done or rejected)", id, ns.Dir)
}

// dreamReject records the step id as rejected, as `strata memory dream --reject ID` does.
func (s *Server) dreamReject(r *http.Request, ns workspace.NamedStore, id string) (string, error) {
	plan, _, err := s.dreamPlan(r, ns)
	if err != nil {
		return "", err
	}
	for _, a := range plan.Actions {
		if a.Decidable() && a.ID == id {
			if err := extract.RejectSteps(ns.Dir, s.ws.Now(), []extract.Action{a}); err != nil {
				return "", err
			}
			return fmt.Sprintf("rejected: %s %s; not proposed again while its files are unchanged", a.Kind, a.File), nil
		}
	}
	return "", fmt.Errorf("step %q is not in the dream's plan of %s", id, ns.Dir)
}

// dreamAsk asks the configured model once for merges and contradictions and saves its
// proposals for the plan, as `strata memory dream` does before planning; nothing is archived.
// Each proposal is checked as the CLI checks it: one the rules do not back stays proposed.
func (s *Server) dreamAsk(r *http.Request, ns workspace.NamedStore) (string, error) {
	cfg, err := s.ws.LLMConfig()
	if err != nil {
		return "", err
	}
	p, err := llm.New(cfg)
	if err != nil {
		return "", err
	}
	co, _, err := s.dreamOptions(ns)
	if err != nil {
		return "", err
	}
	co.DryRun, co.Propose, co.Provider, co.Model = true, true, p, cfg.Model
	res, err := extract.Consolidate(r.Context(), ns.Store, co)
	if err != nil {
		return "", fmt.Errorf("%w; nothing was changed", err)
	}
	if err := extract.SaveModelProposals(ns.Dir, res.Proposals); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s proposed %d merge(s) or contradiction(s); each is in the plan with its reason", cfg.Model, len(res.Proposals)), nil
}
