package extract

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// ConsolidateOptions configure Consolidate.
type ConsolidateOptions struct {
	// Root is the project root for the stale-reference check ("" skips it).
	Root string
	// Now is the time of the run (zero: time.Now()).
	Now time.Time
	// ForgetAfter is how long a memory may go unused before it is archived (Options.ForgetAfter:
	// 0 means DefaultForgetAfter, negative disables forgetting).
	ForgetAfter time.Duration
	// ForgetSessions is Options.ForgetSessions: how many watched sessions in which a memory
	// was eligible and never surfaced it takes before it may be forgotten (0: the default,
	// negative: forgetting off).
	ForgetSessions int
	// ExactOnly is Options.ExactOnly: archive exact duplicates only and leave every other step
	// proposed (the automatic run).
	ExactOnly bool
	// Only is Options.Only: archive only the steps it names (accepted proposals).
	Only []string
	// Propose asks Provider (with Model) for merges and contradictions before planning, in one
	// request (AskModel); a reply that is not the asked JSON fails the run before anything is
	// archived. Without it, Proposals (a model's earlier proposals) are checked instead.
	Propose   bool
	Proposals []ModelProposal
	// MaxIndexLines and MaxIndexBytes are the MEMORY.md limits; 0 means memdir's defaults.
	MaxIndexLines, MaxIndexBytes int
	// Budget and MaxCompared are Options.Budget and MaxCompared: they bound the comparing, and
	// the plan (and Summary) says when it stopped short.
	Budget      time.Duration
	MaxCompared int
	// DryRun plans without changing anything (and without distilling).
	DryRun bool
	// Provider, when set with Distil, distils finished daily logs first, and with Propose
	// proposes merges and contradictions, with Model ("" is the provider's configured model:
	// the main model, not a small one).
	Provider llm.Provider
	Model    string
	Distil   bool
	// Lock, when set, is rolled back if the run fails, so an automatic run is tried again.
	Lock *Lock
	// Logger receives warnings (nil discards them).
	Logger *slog.Logger
}

// Consolidation is what Consolidate did (or, with DryRun, would do).
type Consolidation struct {
	Plan      Plan
	Distilled []Distilled
	// Proposals are the model's proposals the plan checked (asked with Propose, or given).
	Proposals []ModelProposal
	// Warnings are problems that did not stop the run (recall statistics unreadable).
	Warnings []string
}

// Summary is what the run did, in one line for the user, with how to undo it and how to review
// what it only proposed: "auto-dream archived 1 (a.md); proposes 1 more for review (b.md): run
// `strata memory dream --review`, then `strata memory dream --accept FILE` to accept; undo:
// `strata memory restore --last-dream`". It is "" when the run neither archived nor proposed
// anything.
func (c Consolidation) Summary() string {
	var done, proposed, dropped []string
	for _, a := range c.Plan.Actions {
		switch {
		case a.Done:
			done = append(done, a.File)
		case a.Dropped != "":
			dropped = append(dropped, a.File)
		case a.Proposed:
			proposed = append(proposed, a.File)
		}
	}
	var parts []string
	if len(done) > 0 {
		parts = append(parts, fmt.Sprintf("archived %d (%s)", len(done), someFiles(done)))
	}
	if len(dropped) > 0 {
		parts = append(parts, fmt.Sprintf("left %d that changed since it planned (%s)", len(dropped), someFiles(dropped)))
	}
	if len(proposed) > 0 {
		parts = append(parts, fmt.Sprintf("proposes %d more for review (%s): run `strata memory dream --review`, then `strata memory dream --accept FILE` to accept",
			len(proposed), someFiles(proposed)))
	}
	if c.Plan.Short != "" {
		parts = append(parts, "stopped short: "+c.Plan.Short)
	}
	if len(parts) == 0 {
		return ""
	}
	s := "auto-dream " + strings.Join(parts, "; ")
	if len(done) > 0 {
		s += "; undo: `strata memory restore --last-dream`"
	}
	return s
}

// summaryFiles is how many files a Summary names in a list; the rest are counted, so that a
// store with a hundred dangling index lines still gets a one-line report.
const summaryFiles = 5

// someFiles names the first summaryFiles files and counts the rest.
func someFiles(files []string) string {
	if len(files) <= summaryFiles {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:summaryFiles], ", "), len(files)-summaryFiles)
}

// Consolidate is one dream: the optional distillation of daily logs, then PlanDream and,
// unless DryRun, Apply. On failure the lock (if any) is rolled back and the error names the
// step; steps already done stay done and logged.
func Consolidate(ctx context.Context, s *memdir.Store, o ConsolidateOptions) (Consolidation, error) {
	var c Consolidation
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fail := func(err error) (Consolidation, error) {
		if o.Lock != nil {
			if rerr := o.Lock.Rollback(); rerr != nil {
				err = fmt.Errorf("%w (and the lock could not be rolled back: %v)", err, rerr)
			}
		}
		return c, err
	}
	if o.Distil && !o.DryRun && o.Provider != nil {
		d, err := Distil(ctx, o.Provider, s, DistilOptions{Model: o.Model, Now: o.Now, Logger: o.Logger})
		c.Distilled = d
		if err != nil {
			return fail(err)
		}
	}
	stats, err := recall.NewStats(s.Dir()).Load(ctx)
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%v (planning without recall statistics)", err))
		log.Warn("extract: consolidate: recall statistics", "err", err)
	}
	var watch *memdir.Watch
	if w, ok, err := memdir.ReadWatch(s.Dir()); err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%v (nothing is forgotten without it)", err))
		log.Warn("extract: consolidate: watch state", "err", err)
	} else if ok {
		watch = &w
	}
	rejected, err := ReadRejections(s.Dir())
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%v (rejected proposals may be proposed again)", err))
		log.Warn("extract: consolidate: rejections", "err", err)
	}
	c.Proposals = o.Proposals
	if o.Propose && o.Provider != nil {
		mems, _, err := s.List(ctx)
		if err != nil {
			return fail(fmt.Errorf("extract: dream: %w", err))
		}
		if c.Proposals, err = AskModel(ctx, o.Provider, o.Model, mems); err != nil {
			return fail(err)
		}
	}
	plan, err := PlanDream(ctx, s, Options{Root: o.Root, Now: o.Now, Stats: stats, ForgetAfter: o.ForgetAfter,
		ForgetSessions: o.ForgetSessions, Watch: watch, ExactOnly: o.ExactOnly, Only: o.Only, Rejected: rejected, Model: c.Proposals,
		Budget: o.Budget, MaxCompared: o.MaxCompared,
		MaxIndexLines: o.MaxIndexLines, MaxIndexBytes: o.MaxIndexBytes, Logger: o.Logger})
	if err == nil && !o.DryRun {
		plan, err = Apply(ctx, s, plan)
	}
	c.Plan = plan
	if err != nil {
		return fail(err)
	}
	return c, nil
}
