package webui

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"time"

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
	// Planning is set while the plan is still being made (the page reloads itself), since
	// Since seconds.
	Planning bool
	Since    int
}

// planEntry is a dream plan of one store as it was at key, made in the background: planning
// compares the similar memories pairwise, seconds on a store of thousands, too slow to hold a
// request. A page waits up to planWait for it, then says it is planning and reloads.
type planEntry struct {
	key      uint64
	started  time.Time
	done     chan struct{}
	cancel   context.CancelFunc
	plan     extract.Plan
	problems []string
	err      error
}

// planWait is how long the dream page waits for a plan before it answers "planning".
const planWait = time.Second

// planned returns the plan of ns for the store as it is now, starting one in the background
// when there is none (a plan of an older state is cancelled); ready is false when it is not
// done within planWait.
func (s *Server) planned(ctx context.Context, ns workspace.NamedStore) (e *planEntry, ready bool) {
	key := s.dreamKey(ctx, ns)
	s.mu.Lock()
	e = s.plans[ns.Dir]
	if e == nil || e.key != key {
		if e != nil {
			e.cancel()
		}
		pctx, cancel := context.WithCancel(s.bgctx)
		e = &planEntry{key: key, started: time.Now(), done: make(chan struct{}), cancel: cancel}
		s.plans[ns.Dir] = e
		s.bg.Go(func() {
			defer close(e.done)
			e.plan, e.problems, e.err = s.planDream(pctx, ns)
		})
	}
	s.mu.Unlock()
	t := time.NewTimer(planWait)
	defer t.Stop()
	select {
	case <-e.done:
		return e, true
	case <-t.C:
	case <-ctx.Done():
	}
	return e, false
}

// dreamKey fingerprints what the dream of ns plans from: its memories (as of the last scan,
// which the server's own writes bring up to date), its inbox and its .archive directory (the
// logs of what was done and rejected, the model's saved proposals).
func (s *Server) dreamKey(ctx context.Context, ns workspace.NamedStore) uint64 {
	h := fnv.New64a()
	if _, listed, err := s.recaller(ctx); err == nil {
		for _, m := range listed {
			if m.Store == ns.Name {
				fmt.Fprintf(h, "%s\x00%d\x00", m.File, m.Modified.UnixNano())
			}
		}
	}
	hashDir(h, filepath.Join(ns.Dir, memdir.InboxDir))
	hashDir(h, filepath.Join(ns.Dir, memdir.ArchiveDir))
	return h.Sum64()
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
func (s *Server) dreamPlan(ctx context.Context, ns workspace.NamedStore) (extract.Plan, []string, error) {
	co, problems, err := s.dreamOptions(ns)
	if err != nil {
		return extract.Plan{}, problems, err
	}
	co.DryRun = true
	res, err := extract.Consolidate(ctx, ns.Store, co)
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
	e, ready := s.planned(r.Context(), ns)
	if ready {
		d.Problems = e.problems
		if e.err != nil {
			d.Problems = append(d.Problems, e.err.Error())
		}
		d.Steps = e.plan.Actions
		d.Index, d.Rejected, d.Short = e.plan.Index, e.plan.Rejected, e.plan.Short
	} else {
		d.Planning, d.Since = true, int(time.Since(e.started).Seconds())
	}
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
// `strata memory restore --last-dream`). A step is taken from the page's plan and carried out
// only while its files are as they were planned (checked under the store's lock).
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

// dreamApply carries out the step id alone, as `strata memory dream --accept ID` does: the
// page's plan is not made again (11 s on 10,000 memories); extract.Apply checks, under the
// store's lock, that the step's files hold the content it was planned on.
func (s *Server) dreamApply(r *http.Request, ns workspace.NamedStore, id string) (string, error) {
	a, err := s.plannedStep(r, ns, id)
	if err != nil {
		return "", err
	}
	a.Archive, a.Proposed = true, false
	plan, err := extract.Apply(r.Context(), ns.Store, extract.Plan{Dir: ns.Dir, Now: s.ws.Now(), Actions: []extract.Action{a}})
	if err != nil {
		return "", err
	}
	switch a = plan.Actions[0]; {
	case a.Done && a.ArchivedTo != "":
		return fmt.Sprintf("applied: %s %s, archived to %s", a.Kind, a.File, a.ArchivedTo), nil
	case a.Done:
		return fmt.Sprintf("applied: %s %s", a.Kind, a.File), nil
	default:
		return "", fmt.Errorf("%s %s was not carried out: %s", a.Kind, a.File, a.Dropped)
	}
}

// dreamReject records the step id as rejected, as `strata memory dream --reject ID` does.
func (s *Server) dreamReject(r *http.Request, ns workspace.NamedStore, id string) (string, error) {
	a, err := s.plannedStep(r, ns, id)
	if err != nil {
		return "", err
	}
	if err := extract.RejectSteps(ns.Dir, s.ws.Now(), []extract.Action{a}); err != nil {
		return "", err
	}
	return fmt.Sprintf("rejected: %s %s; not proposed again while its files are unchanged", a.Kind, a.File), nil
}

// plannedStep returns the step id of the page's plan of ns, made in the background (waited for
// when it is not done yet).
func (s *Server) plannedStep(r *http.Request, ns workspace.NamedStore, id string) (extract.Action, error) {
	if id == "" {
		return extract.Action{}, fmt.Errorf("no step id")
	}
	e, _ := s.planned(r.Context(), ns)
	select {
	case <-e.done:
	case <-r.Context().Done():
		return extract.Action{}, r.Context().Err()
	}
	if e.err != nil {
		return extract.Action{}, e.err
	}
	for _, a := range e.plan.Actions {
		if a.Decidable() && a.ID == id {
			return a, nil
		}
	}
	return extract.Action{}, fmt.Errorf("step %s is not in the dream's plan of %s (its files changed, or it was done or rejected)", id, ns.Dir)
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
