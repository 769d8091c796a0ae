package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/llm"
)

type dreamOptions struct {
	mem     memoryFlags
	dryRun  bool
	review  bool
	accept  []string
	reject  []string
	noModel bool
	asJSON  bool
	auto    bool
	distil  bool
}

func newMemoryDreamCmd(app *App) *cobra.Command {
	var o dreamOptions
	c := &cobra.Command{
		Use:   "dream",
		Short: "Consolidate the memories: merge duplicates, settle contradictions, forget the unused",
		Long: `Consolidate the memory directory, doing only what it can justify:
duplicate memories (the same content, not a shared label like "Why:") are merged (the newer
kept, the older archived); a contradiction is settled only between memories about the same
subject (the same name, or near-duplicates), the newer winning; a memory is forgotten only on
evidence strata observed (unsurfaced in memoryForgetAfterSessions sessions, default 10, since
strata began watching the store, and unused for memoryForgetAfterDays, default 90) — age
alone never archives; the least recently used memories are archived while MEMORY.md is over
its limits. Memories naming a file or symbol the
project no longer has are flagged as stale. Index lines pointing nowhere are only proposed for
removal (Claude Code ignores them). With a model configured, it is asked once for merges and
contradictions with a reason each; its proposal archives only when the checks above back it
(the same subject), and stays a proposal otherwise. Archiving moves files to .archive/ and logs
each move in .archive/ARCHIVE.log; nothing is deleted, and "strata memory restore --last-dream"
undoes a run. --dry-run prints the plan only; --review lists what is proposed; --accept carries
out proposals, --reject records that they are not wanted (.archive/REJECTED.log), so they are
not proposed again while the files are unchanged; --auto, like the agent's auto-dream, archives
exact duplicates only and leaves the rest proposed.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return memoryDream(c, app, o) },
	}
	o.mem.register(c)
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the plan; change nothing")
	c.Flags().BoolVar(&o.review, "review", false, "list what an automatic run archives (exact duplicates) and proposes; change nothing")
	c.Flags().StringSliceVar(&o.accept, "accept", nil, "carry out only these steps: a file, a proposal id or a kind such as dangling (repeat or comma-separate)")
	c.Flags().StringSliceVar(&o.reject, "reject", nil, "record these proposals as rejected (a file, a proposal id or a kind); change nothing else")
	c.Flags().BoolVar(&o.noModel, "no-model", false, "do not ask the configured model for merges and contradictions")
	c.Flags().BoolVar(&o.asJSON, "json", false, "print the plan (and what was done) as JSON")
	c.Flags().BoolVar(&o.distil, "distil", false, "first distil finished daily logs into topic memories with the configured model")
	c.Flags().BoolVar(&o.auto, "auto", false, "run only when auto-dream is due (24 h and 5 sessions since the last run), under .consolidate-lock, archiving exact duplicates only")
	return c
}

func memoryDream(c *cobra.Command, app *App, o dreamOptions) error {
	ctx := c.Context()
	ws, err := openMemoryWorkspace(app, o.mem)
	if err != nil {
		return err
	}
	s, err := storeOf(ws, o.mem, !o.dryRun && !o.review) // --reject writes REJECTED.log
	if err != nil {
		return err
	}
	co, err := ws.ConsolidateOptions()
	if err != nil {
		return usagef("%v", err)
	}
	dir := s.Dir()
	now := app.Now()

	var lock *extract.Lock
	if o.auto {
		gate := extract.Gate{MemDir: dir, SessionsDir: filepath.Join(app.Env.ProjectsDir(), config.Slug(ws.Root())), Subdirs: true}
		due, why, err := gate.Check(now)
		if err != nil {
			return err
		}
		if !due {
			if o.asJSON {
				return writeJSON(app.Out, map[string]any{"dir": dir, "due": false, "reason": why})
			}
			fmt.Fprintf(app.Out, "dream not due: %s\n", why)
			return nil
		}
		if !o.dryRun {
			lock, err = extract.AcquireLock(dir, now, extract.LockOptions{})
			if errors.Is(err, extract.ErrLockHeld) {
				if o.asJSON {
					return writeJSON(app.Out, map[string]any{"dir": dir, "due": true, "ran": false, "reason": err.Error()})
				}
				fmt.Fprintf(app.Out, "dream not run: %v\n", err)
				return nil
			}
			if err != nil {
				return err
			}
		}
	}

	if len(o.reject) > 0 && (len(o.accept) > 0 || o.auto) {
		return usagef("--reject goes with neither --accept nor --auto")
	}
	rejectDry := o.dryRun // --dry-run --reject says what it would record and records nothing
	if o.review || len(o.reject) > 0 {
		o.dryRun = true
	}
	co.Now, co.DryRun, co.Distil, co.Lock, co.ExactOnly, co.Only = now, o.dryRun, o.distil, lock, o.auto || o.review, o.accept
	if o.distil && !o.dryRun {
		// Distilling is real work on the memories: the main model, not the small one.
		cfg, err := modelConfig(app, ws, "")
		if err != nil {
			return err
		}
		if co.Provider, err = llm.New(cfg); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		co.Model = cfg.Model
	}
	// The model proposes merges and contradictions when one is configured. Accepting and
	// rejecting act on what it proposed last (saved beside the archive log), not on a new answer.
	if len(o.accept) > 0 || len(o.reject) > 0 {
		if co.Proposals, err = extract.LoadModelProposals(dir); err != nil {
			fmt.Fprintf(app.Err, "strata: warning: %v\n", err)
		}
	} else if !o.noModel && !o.auto {
		if co.Provider == nil {
			if cfg, err := ws.LLMConfig(); err == nil {
				if co.Provider, err = llm.New(cfg); err != nil {
					return &ExitError{Code: ExitFailure, Err: err}
				}
				co.Model = cfg.Model
			}
		}
		co.Propose = co.Provider != nil
	}
	res, err := extract.Consolidate(ctx, s, co)
	for _, w := range res.Warnings {
		fmt.Fprintf(app.Err, "strata: warning: %s\n", w)
	}
	if err != nil {
		var le *llm.Error
		if co.Propose && (errors.Is(err, extract.ErrModelReply) || errors.As(err, &le)) {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%w; nothing was archived (--no-model plans without the model)", err)}
		}
		return err
	}
	plan, distilled := res.Plan, res.Distilled
	if co.Propose {
		if err := extract.SaveModelProposals(dir, res.Proposals); err != nil {
			fmt.Fprintf(app.Err, "strata: warning: %v\n", err)
		}
	}
	if len(o.reject) > 0 {
		return rejectSteps(app, plan, o.reject, o.asJSON, now, rejectDry)
	}
	if o.asJSON {
		return writeJSON(app.Out, struct {
			extract.Plan
			DryRun    bool                `json:"dry_run"`
			Archived  int                 `json:"archived"`
			Flagged   int                 `json:"flagged"`
			Distilled []extract.Distilled `json:"distilled"`
		}{plan, o.dryRun, countDone(plan), countFlagged(plan), append([]extract.Distilled{}, distilled...)})
	}
	for _, d := range distilled {
		fmt.Fprintf(app.Out, "distilled %s into %d memories (%s); log archived to %s\n", d.Log, len(d.Memories), strings.Join(d.Memories, ", "), d.ArchivedTo)
	}
	printDreamPlan(app, plan, o.dryRun)
	return nil
}

// countFlagged counts the report-only steps (stale, conflict): neither archived nor proposed.
func countFlagged(p extract.Plan) int {
	n := 0
	for _, a := range p.Actions {
		if !a.Archive && !a.Proposed {
			n++
		}
	}
	return n
}

func countDone(p extract.Plan) int {
	n := 0
	for _, a := range p.Actions {
		if a.Done {
			n++
		}
	}
	return n
}

func printDreamPlan(app *App, p extract.Plan, dryRun bool) {
	w := app.Out
	if dryRun {
		fmt.Fprintf(w, "dream plan for %s (dry run: nothing changed)\n", p.Dir)
	} else {
		fmt.Fprintf(w, "dream of %s\n", p.Dir)
	}
	if len(p.Actions) == 0 {
		fmt.Fprintln(w, "nothing to do")
	}
	proposed := 0
	for _, a := range p.Actions {
		var what string
		switch {
		case a.Done && a.ArchivedTo != "":
			what = "archived to " + a.ArchivedTo
		case a.Done:
			what = "index line removed"
		case a.Dropped != "":
			what = "dropped (" + termtext.Line(a.Dropped) + ")"
		case a.Archive && a.LinesOnly():
			what = "index lines to take out"
		case a.Archive:
			what = "to archive"
		case a.Proposed:
			what = "proposed"
		default:
			what = "flagged"
		}
		extra := ""
		if a.Survivor != "" {
			extra = " (kept: " + termtext.Line(a.Survivor) + ")"
		}
		id := ""
		if a.Proposed {
			id = " [" + a.ID + "]"
			proposed++
		}
		fmt.Fprintf(w, "%-9s %s: %s%s — %s%s\n", a.Kind, termtext.Line(a.File), what, extra, termtext.Line(a.Reason), id)
	}
	ix := p.Index
	fmt.Fprintf(w, "index: %d lines, %d bytes (limits %d lines, %d bytes); after: %d lines, %d bytes\n",
		ix.Lines, ix.Bytes, ix.MaxLines, ix.MaxBytes, ix.ProjectedLines, ix.ProjectedBytes)
	verb, n, lines := "to archive", 0, 0
	for _, a := range p.Actions {
		switch {
		case a.LinesOnly() && (a.Done || dryRun && a.Archive):
			lines++
		case dryRun && a.Archive:
			n++
		}
	}
	if !dryRun {
		verb, n = "archived", countDone(p)-lines
	}
	fmt.Fprintf(w, "%d %s, %d flagged", n, verb, countFlagged(p))
	if lines > 0 {
		fmt.Fprintf(w, "; %d step(s) on index lines only (no memory moves)", lines)
	}
	fmt.Fprintln(w)
	if p.Rejected > 0 {
		fmt.Fprintf(w, "%d step(s) rejected earlier left out (%s)\n", p.Rejected, extract.RejectLog)
	}
	if proposed > 0 {
		fmt.Fprintf(w, "%d proposed: accept with `strata memory dream --accept ID…` (or FILE, or a kind such as dangling), reject with `--reject ID…`\n", proposed)
	}
}

// rejectSteps records the proposals of plan that sels name as rejected and says which; with
// dry, it only says which it would record.
func rejectSteps(app *App, plan extract.Plan, sels []string, asJSON bool, now time.Time, dry bool) error {
	var steps []extract.Action
	for _, sel := range sels {
		n := 0
		for _, a := range plan.Actions {
			if a.Decidable() && a.Matches(sel) {
				steps = append(steps, a)
				n++
			}
		}
		if n == 0 {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--reject %s: no step of the plan is on that file, has that id or is of that kind (see strata memory dream --review)", termtext.Line(sel))}
		}
	}
	if dry {
		if asJSON {
			return writeJSON(app.Out, map[string]any{"dir": plan.Dir, "dry_run": true, "rejected": steps})
		}
		for _, a := range steps {
			fmt.Fprintf(app.Out, "would reject %s %s %s (dry run: nothing recorded)\n", a.ID, a.Kind, termtext.Line(a.File))
		}
		return nil
	}
	if err := extract.RejectSteps(plan.Dir, now, steps); err != nil {
		return err
	}
	if asJSON {
		return writeJSON(app.Out, map[string]any{"dir": plan.Dir, "rejected": steps})
	}
	for _, a := range steps {
		fmt.Fprintf(app.Out, "rejected %s %s %s: not proposed again while the files are unchanged\n", a.ID, a.Kind, termtext.Line(a.File))
	}
	return nil
}
