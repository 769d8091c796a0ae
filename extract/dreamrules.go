package extract

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/tokens"
)

// dream is what the rules of a plan share: the memories (newest first), what the plan archives
// so far, and the similarity index that finds the pairs worth comparing.
type dream struct {
	s        *memdir.Store
	opts     Options
	plan     *Plan
	cands    []*candidate // newest first; ties by file
	byFile   map[string]*candidate
	content  map[string]string
	archived map[string]bool
	kept     []*candidate // after the duplicates rule: the memories not merged, newest first
	sim      *simIndex
	deadline time.Time // of the pairwise rules (Options.Budget); zero: none
	// The index as the dangling rule read it, for the index rule.
	raw     string
	indexed map[string]bool
}

// rule is one rule of the dream: it returns its actions (and marks in d what they archive).
type rule func(ctx context.Context, d *dream) ([]Action, error)

// rules are the dream's rules in the order they see the store: each sees what the ones before
// it archived.
var rules = []rule{ruleDuplicates, ruleSuperseded, ruleModel, ruleForget, ruleDangling, ruleIndex, ruleStale}

// kindOrder is the order of kinds in a plan.
var kindOrder = map[string]int{KindDangling: 0, KindMerge: 1, KindSupersede: 2, KindConflict: 3, KindForget: 4, KindCondense: 5, KindIndex: 6, KindStale: 7}

// PlanDream reads the store and returns the plan; it writes nothing. It is a pipeline of one
// rule per kind of step (duplicates, superseded, the model's proposals, forget, dangling, index,
// stale), each returning its actions. Memories are compared only in the pairs an exact
// similarity join over their shingles finds able to reach a threshold (simIndex), once for both
// pairwise rules, so planning grows with the store, not with its square; Options.Budget and
// MaxCompared bound the comparing, and Plan.Short says when a plan stopped short of them.
func PlanDream(ctx context.Context, s *memdir.Store, opts Options) (Plan, error) {
	opts = opts.withDefaults()
	plan := Plan{Dir: s.Dir(), Now: opts.Now.UTC(), Actions: []Action{}}
	mems, _, err := s.List(ctx)
	if err != nil {
		return plan, fmt.Errorf("extract: dream: %w", err)
	}
	d := newDream(s, opts, &plan, mems)
	var all []Action
	for _, r := range rules {
		acts, err := r(ctx, d)
		if err != nil {
			return plan, err
		}
		all = append(all, acts...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if a, b := kindOrder[all[i].Kind], kindOrder[all[j].Kind]; a != b {
			return a < b
		}
		return all[i].File < all[j].File
	})
	plan.Actions = append(plan.Actions, all...)
	plan.Compared = d.sim.pairs
	for i := range plan.Actions {
		a := &plan.Actions[i]
		if a.Archive && !mayArchive(*a, opts) {
			a.Archive, a.Proposed = false, true
		}
		a.Planned = planned(d.byFile, a.File, a.Survivor)
	}
	return plan, nil
}

// withDefaults fills in the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.DuplicateThreshold == 0 {
		o.DuplicateThreshold = DefaultDuplicateThreshold
	}
	if o.ForgetAfter == 0 {
		o.ForgetAfter = DefaultForgetAfter
	}
	if o.ForgetSessions == 0 {
		o.ForgetSessions = DefaultForgetSessions
	}
	if o.MaxIndexLines == 0 {
		o.MaxIndexLines = memdir.MaxIndexLines
	}
	if o.MaxIndexBytes == 0 {
		o.MaxIndexBytes = memdir.MaxIndexBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// newDream prepares the candidates of mems, newest first, and their similarity index.
func newDream(s *memdir.Store, opts Options, plan *Plan, mems []memdir.Memory) *dream {
	d := &dream{s: s, opts: opts, plan: plan, byFile: map[string]*candidate{}, content: map[string]string{},
		archived: map[string]bool{}, indexed: map[string]bool{}}
	if opts.Budget > 0 {
		d.deadline = time.Now().Add(opts.Budget)
	}
	dict := newShingleDict()
	d.cands = make([]*candidate, 0, len(mems))
	for _, m := range mems {
		d.content[m.File] = memoryContent(m)
		c := newCandidate(m, opts, dict)
		d.cands = append(d.cands, c)
		d.byFile[m.File] = c
	}
	// Newest first; ties by file so the plan is deterministic.
	sort.SliceStable(d.cands, func(i, j int) bool {
		if !d.cands[i].when.Equal(d.cands[j].when) {
			return d.cands[i].when.After(d.cands[j].when)
		}
		return d.cands[i].m.File < d.cands[j].m.File
	})
	compare := make([]bool, len(d.cands))
	for i, c := range d.cands {
		c.id = int32(i)
		compare[i] = opts.MaxCompared <= 0 || i < opts.MaxCompared
	}
	if opts.MaxCompared > 0 && len(d.cands) > opts.MaxCompared {
		d.short(fmt.Sprintf("compared the newest %d of %d memories (the size budget)", opts.MaxCompared, len(d.cands)))
	}
	d.sim = newSimIndex(d.cands, compare, dict, min(DefaultSubjectThreshold, opts.DuplicateThreshold), d.deadline)
	if d.sim.short {
		d.outOfTime()
	}
	return d
}

// newCandidate prepares m for comparison.
func newCandidate(m memdir.Memory, opts Options, dict *shingleDict) *candidate {
	c := &candidate{m: m, when: m.ModTime}
	if m.Modified.After(c.when) {
		c.when = m.Modified
	}
	c.lastUse = c.when
	if st, ok := opts.Stats[m.File]; ok && st.LastRecalled.After(c.lastUse) {
		c.lastUse = st.LastRecalled
	}
	name, desc := words(m.Name), words(m.Description)
	unlabelled, stated, labelled := splitLabels(m.Body)
	body := words(unlabelled)
	c.shing = dict.set(name, desc, body)
	c.body = dict.set(body)
	c.stated, c.statedBody = c.shing, c.body
	if labelled {
		sb := words(stated)
		c.stated = dict.set(name, desc, sb)
		c.statedBody = dict.set(sb)
	}
	c.norm = strings.Join(body, " ")
	c.name = strings.Join(name, " ")
	c.keys = Keys(m.Body)
	return c
}

// short records that the plan stopped short of comparing everything, and why.
func (d *dream) short(why string) {
	if d.plan.Short == "" {
		d.plan.Short = why
		d.opts.Logger.Info("extract: dream stopped short", "why", why)
	}
}

// outOfTime reports whether the budget of the pairwise rules is spent (and says so once).
func (d *dream) outOfTime() bool {
	if d.deadline.IsZero() || time.Now().Before(d.deadline) {
		return false
	}
	d.short(fmt.Sprintf("stopped comparing memories after the %s time budget", d.opts.Budget))
	return true
}

// open gives an archiving step its id and reports whether it may be planned: a step a person
// rejected is left out.
func (d *dream) open(a *Action) bool {
	a.ID = proposalID(a.Kind, a.File, a.Survivor, d.content)
	if d.opts.Rejected[a.ID] {
		d.plan.Rejected++
		return false
	}
	return true
}

// ruleDuplicates merges each memory into the newest kept one it duplicates (shingle similarity
// at DuplicateThreshold, or the same text).
func ruleDuplicates(ctx context.Context, d *dream) ([]Action, error) {
	var out []Action
	pos := map[*candidate]int{} // place in d.kept
	for _, c := range d.cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var dupOf *candidate
		var sim float64
		if d.sim.has(c) && !d.outOfTime() {
			for _, k := range d.sim.nearby(c, pos, len(d.kept)) {
				if j := similarity(c, k); j >= d.opts.DuplicateThreshold || exactDuplicate(c, k) {
					dupOf, sim = k, j
					break
				}
			}
		}
		if dupOf != nil {
			exact := exactDuplicate(c, dupOf)
			what := "duplicate"
			if exact {
				what = "exact duplicate"
			}
			a := Action{Kind: KindMerge, File: c.m.File, Name: c.m.Name, Survivor: dupOf.m.File, Archive: true, Exact: exact,
				Reason: fmt.Sprintf("%s of %s (similarity %.2f); the newer is kept", what, dupOf.m.File, sim)}
			if d.open(&a) {
				d.archived[c.m.File] = true
				out = append(out, a)
				continue
			}
		}
		pos[c] = len(d.kept)
		d.kept = append(d.kept, c)
	}
	return out, nil
}

// ruleSuperseded settles contradictions among the kept memories: an older memory against every
// newer one about the same subject (sameSubject). Every fact overridden, or the same description
// over another body, supersedes it; some facts overridden is a conflict, reported only.
func ruleSuperseded(ctx context.Context, d *dream) ([]Action, error) {
	var out []Action
	pos := make(map[*candidate]int, len(d.kept))
	for i, c := range d.kept {
		pos[c] = i
	}
	for i, c := range d.kept {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.archived[c.m.File] || !d.sim.has(c) || d.outOfTime() {
			continue
		}
		overridden := map[string]string{} // key -> survivor
		var sameDesc *candidate
		for _, n := range d.sim.nearby(c, pos, i) {
			if d.archived[n.m.File] || !sameSubject(c, n) {
				continue // facts of another subject say nothing about this one
			}
			for k, v := range c.keys {
				if nv, ok := n.keys[k]; ok && nv != v {
					if _, seen := overridden[k]; !seen {
						overridden[k] = n.m.File
					}
				}
			}
			if sameDesc == nil && c.m.Description != "" && normalise(c.m.Description) == normalise(n.m.Description) &&
				normalise(c.m.Body) != normalise(n.m.Body) {
				sameDesc = n
			}
		}
		switch {
		case sameDesc != nil:
			a := Action{Kind: KindSupersede, File: c.m.File, Name: c.m.Name, Survivor: sameDesc.m.File, Archive: true,
				Reason: fmt.Sprintf("same subject and description as the newer %s with a different body; superseded", sameDesc.m.File)}
			if d.open(&a) {
				d.archived[c.m.File] = true
				out = append(out, a)
			}
		case len(overridden) > 0:
			keys := sortedKeys(overridden)
			survivor := overridden[keys[0]]
			if len(overridden) == len(c.keys) {
				a := Action{Kind: KindSupersede, File: c.m.File, Name: c.m.Name, Survivor: survivor, Archive: true, Refs: keys,
					Reason: fmt.Sprintf("every fact it states (%s) has a newer value in %s; superseded", strings.Join(keys, ", "), survivor)}
				if d.open(&a) {
					d.archived[c.m.File] = true
					out = append(out, a)
				}
			} else {
				out = append(out, Action{Kind: KindConflict, File: c.m.File, Name: c.m.Name, Survivor: survivor, Refs: keys,
					Reason: fmt.Sprintf("%s has a newer value in %s; the rest of the memory still stands, so it is kept", strings.Join(keys, ", "), survivor)})
			}
		}
	}
	return out, nil
}

// ruleModel checks a model's merges and contradictions (modelSteps).
func ruleModel(_ context.Context, d *dream) ([]Action, error) {
	mm, ms := modelSteps(d.opts.Model, d.byFile, d.archived, d.open)
	return append(mm, ms...), nil
}

// ruleForget archives what strata watched go unused: only with evidence (sessions in which the
// memory was eligible and never surfaced), and only once it is also old. Age alone never
// archives.
func ruleForget(_ context.Context, d *dream) ([]Action, error) {
	o := d.opts
	if o.ForgetAfter <= 0 || o.ForgetSessions <= 0 || o.Watch == nil {
		return nil, nil
	}
	var out []Action
	for _, c := range d.cands {
		if d.archived[c.m.File] {
			continue
		}
		st, ok := o.Stats[c.m.File]
		idle := o.Now.Sub(c.lastUse)
		if !ok || st.IdleSessions < o.ForgetSessions || idle <= o.ForgetAfter {
			continue
		}
		a := Action{Kind: KindForget, File: c.m.File, Name: c.m.Name, Archive: true,
			Reason: fmt.Sprintf("not surfaced in %d sessions it was eligible for (watched since %s; limit %d), nor recalled or modified for %d days (limit %d; recalled %d times)",
				st.IdleSessions, o.Watch.Since.UTC().Format(time.DateOnly), o.ForgetSessions, int(idle.Hours()/24), int(o.ForgetAfter.Hours()/24), st.Recalled)}
		if d.open(&a) {
			d.archived[c.m.File] = true
			out = append(out, a)
		}
	}
	return out, nil
}

// ruleDangling removes index lines that link no file. Which lines are entries and which dangle
// is memdir's decision (the one MEMORY.md parser), so the dream agrees with Lint and Forget. It
// also measures the index for the index rule.
func ruleDangling(ctx context.Context, d *dream) ([]Action, error) {
	idx, err := d.s.LoadIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: dream: %w", err)
	}
	ix, err := d.s.ReadIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: dream: %w", err)
	}
	d.raw = strings.ReplaceAll(strings.TrimPrefix(ix.Raw, "\ufeff"), "\r\n", "\n")
	var out []Action
	for _, l := range ix.Links {
		if l.State == memdir.LinkMissing && !d.indexed[l.File] {
			// Proposed unless accepted (reviewOnly); the index rule counts the line as gone, so
			// that the plan never archives a memory to make room a removed line makes.
			a := Action{Kind: KindDangling, File: l.File, Name: l.Title, Archive: true,
				Reason: "index line links a file that does not exist (Claude Code ignores such a line); the line is removed"}
			if d.open(&a) {
				out = append(out, a)
				d.archived[l.File] = true
			}
		}
		d.indexed[l.File] = true
	}
	d.plan.Index = IndexUsage{Lines: idx.Lines, Bytes: idx.Chars, MaxLines: d.opts.MaxIndexLines, MaxBytes: d.opts.MaxIndexBytes}
	return out, nil
}

// ruleIndex fits MEMORY.md to its limits without archiving anything: first the lines that
// carry nothing (memdir.CondenseLines), then the index lines of the least recently used
// memories, which stay in the store and in recall. Each step is logged and restorable.
func ruleIndex(_ context.Context, d *dream) ([]Action, error) {
	o := d.opts
	text, _ := memdir.WithoutIndexLines(d.raw, func(f string) bool { return d.archived[f] })
	over := func(t string) bool {
		return memdir.CountLines(t) > o.MaxIndexLines || tokens.Chars(t) > o.MaxIndexBytes
	}
	limits := fmt.Sprintf("MEMORY.md is over its limits (%d lines, %d characters; at most %d lines, %d characters)",
		memdir.CountLines(text), tokens.Chars(text), o.MaxIndexLines, o.MaxIndexBytes)
	var out []Action
	if over(text) {
		if nums := memdir.CondenseLines(text); len(nums) > 0 {
			a := Action{Kind: KindCondense, File: memdir.IndexFile, Archive: true,
				Reason: fmt.Sprintf("%s: %d blank, repeated or empty-heading lines leave it", limits, len(nums))}
			if d.open(&a) {
				text, _ = memdir.WithoutLines(text, nums)
				out = append(out, a)
			}
		}
	}
	lru := make([]*candidate, 0, len(d.cands))
	for _, c := range d.cands {
		if !d.archived[c.m.File] && d.indexed[c.m.File] {
			lru = append(lru, c)
		}
	}
	sort.SliceStable(lru, func(i, j int) bool {
		if !lru[i].lastUse.Equal(lru[j].lastUse) {
			return lru[i].lastUse.Before(lru[j].lastUse)
		}
		return lru[i].m.File < lru[j].m.File
	})
	unindexed := map[string]bool{}
	for _, c := range lru {
		unindexed[c.m.File] = true
	}
	if all, _ := memdir.WithoutIndexLines(text, func(f string) bool { return unindexed[f] }); over(all) {
		lru = nil // what keeps it over is not memory lines: taking those out would not make it fit
	}
	for _, c := range lru {
		if !over(text) {
			break
		}
		a := Action{Kind: KindIndex, File: c.m.File, Name: c.m.Name, Archive: true,
			Reason: limits + "; least recently used: its line leaves the index, the memory stays in the store and in recall"}
		if !d.open(&a) {
			continue
		}
		text, _ = memdir.WithoutIndexLines(text, func(f string) bool { return f == c.m.File })
		out = append(out, a)
	}
	d.plan.Index.ProjectedLines, d.plan.Index.ProjectedBytes = memdir.CountLines(text), tokens.Chars(text)
	return out, nil
}

// ruleStale reports the kept memories that name files or symbols the project no longer has.
func ruleStale(ctx context.Context, d *dream) ([]Action, error) {
	if d.opts.Root == "" {
		return nil, nil
	}
	var kept []memdir.Memory
	own := map[string]bool{memdir.IndexFile: true}
	for _, c := range d.cands {
		own[c.m.File] = true
		if !d.archived[c.m.File] {
			kept = append(kept, c.m)
		}
	}
	missing, err := staleRefs(ctx, d.opts, kept, own)
	if err != nil {
		return nil, err
	}
	var out []Action
	for _, m := range kept {
		if refs := missing[m.File]; len(refs) > 0 {
			out = append(out, Action{Kind: KindStale, File: m.File, Name: m.Name, Refs: refs,
				Reason: fmt.Sprintf("names %s, which the project no longer has", strings.Join(refs, ", "))})
		}
	}
	return out, nil
}
