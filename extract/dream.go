package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// Action kinds of a dream plan.
const (
	KindMerge     = "merge"            // a near-duplicate of a newer memory: archived, survivor named
	KindSupersede = "supersede"        // contradicted by a newer memory: archived as superseded
	KindConflict  = "conflict"         // contradicts a newer memory in part: reported only
	KindStale     = "stale"            // names a file or symbol the project no longer has: reported only
	KindForget    = "forget"           // unused in ForgetSessions watched sessions and for ForgetAfter: archived
	KindDangling  = "dangling"         // an index line pointing at no file: the line is removed
	KindCondense  = "condense"         // blank, repeated or empty-heading lines leave MEMORY.md so that it fits
	KindIndex     = memdir.ActionIndex // an index line leaves MEMORY.md so that it fits; the memory stays
)

// Defaults of Options.
const (
	DefaultDuplicateThreshold = 0.8
	DefaultForgetAfter        = 90 * 24 * time.Hour
	DefaultForgetSessions     = 10
	// DefaultSubjectThreshold is the similarity from which two memories are about the same
	// subject, so that a contradiction between them may be settled.
	DefaultSubjectThreshold = 0.5
	DefaultMaxScanFiles     = 20000
	DefaultMaxScanBytes     = 64 << 20
)

// AutoDreamBudget is the time an automatic dream may spend comparing memories; what it did not
// compare waits for the next run (or a `strata memory dream` without the bound).
const AutoDreamBudget = 30 * time.Second

// Options configure PlanDream. The zero value uses the defaults.
type Options struct {
	// Root is the project root against which file paths and symbols are checked; "" skips
	// the stale-reference check.
	Root string
	// Now is the planning time; zero means time.Now().
	Now time.Time
	// Stats are the recall statistics per memory file (recall.Stats.Load); nil means none.
	Stats map[string]recall.StatEntry
	// DuplicateThreshold is the shingle Jaccard similarity from which two memories are
	// duplicates; 0 means DefaultDuplicateThreshold.
	DuplicateThreshold float64
	// ForgetAfter is how long a memory may go unrecalled and unmodified before it may be
	// forgotten; 0 means DefaultForgetAfter, negative disables forgetting.
	ForgetAfter time.Duration
	// ForgetSessions is how many sessions strata must have watched in which the memory was
	// eligible for recall and never surfaced (recall's StatEntry.IdleSessions) before it may be
	// forgotten; 0 means DefaultForgetSessions, negative disables forgetting. Age alone never
	// archives: a memory without that evidence (a store strata never watched, one written by
	// another tool) is kept whatever its age.
	ForgetSessions int
	// Watch is the store's watch state (memdir.ReadWatch); nil means strata has not watched the
	// store, so nothing is forgotten.
	Watch *memdir.Watch
	// ExactOnly archives exact duplicates only: every other archiving step stays in the plan
	// with Archive false and Proposed true (the automatic run).
	ExactOnly bool
	// Only, when not empty, archives only the steps it names (Action.Matches: a file, a
	// proposal id or a kind; the proposals a person accepted); every other archiving step stays
	// Proposed. Without it, a dangling index line and a model's proposal the checks do not back
	// stay Proposed too.
	Only []string
	// Rejected are the ids of proposals a person rejected (ReadRejections): those steps are left
	// out of the plan.
	Rejected map[string]bool
	// Model are a model's proposed merges and contradictions (AskModel); each is checked before
	// it may archive (see ModelProposal).
	Model []ModelProposal
	// MaxIndexLines and MaxIndexBytes are the index limits; 0 means memdir's defaults.
	MaxIndexLines int
	MaxIndexBytes int
	// MaxScanFiles and MaxScanBytes bound the symbol scan of the project; 0 means the
	// defaults. A symbol not found within the bound is not flagged.
	MaxScanFiles int
	MaxScanBytes int64
	// Budget bounds the time the pairwise rules (duplicates, superseded) spend comparing; 0 is
	// no bound. MaxCompared bounds how many memories (the newest) they compare; 0 is all. A plan
	// that stops short of either says so in Plan.Short and archives less, never more.
	Budget      time.Duration
	MaxCompared int
	// Logger receives debug notes; nil discards them.
	Logger *slog.Logger
}

// Action is one step of a dream plan.
type Action struct {
	Kind     string   `json:"kind"`
	File     string   `json:"file"`               // the memory file acted on, relative to the memory dir
	Name     string   `json:"name,omitempty"`     // its name
	Survivor string   `json:"survivor,omitempty"` // the file that is kept instead (merge, supersede, conflict)
	Reason   string   `json:"reason"`             // why, in one line
	Refs     []string `json:"refs,omitempty"`     // missing paths or symbols (stale), keys (supersede, conflict)
	Archive  bool     `json:"archive"`            // whether Apply archives File (or removes the dangling line)
	// Exact marks a merge of an exact duplicate (the same text once normalised).
	Exact bool `json:"exact,omitempty"`
	// Proposed marks a step that would archive but is left for a person to review.
	Proposed bool `json:"proposed,omitempty"`
	// ID identifies an archiving step across runs while its files are unchanged (it hashes the
	// kind, the files and their content): --accept and --reject take it.
	ID string `json:"id,omitempty"`
	// Model marks a step a model proposed (the reason starts with its words).
	Model bool `json:"model,omitempty"`
	// Guard, on a model's proposal, says why the deterministic checks do not back it: the step
	// is then only proposed, never archived on the model's word alone.
	Guard string `json:"guard,omitempty"`
	// Planned are the content hashes (memdir.ContentHash) of the files the step was planned on,
	// its file and survivor: Apply carries it out only while they still hold.
	Planned map[string]string `json:"planned,omitempty"`
	// Set by Apply:
	Done       bool   `json:"done"`
	ArchivedTo string `json:"archived_to,omitempty"`
	// Dropped says why Apply did not carry out a step it was to: a file it was planned on
	// changed (or went) since.
	Dropped string `json:"dropped,omitempty"`
}

// IndexUsage is the size of MEMORY.md against its limits, now and after the plan. The "bytes"
// fields count characters as the loader does (UTF-16 code units, tokens.Chars); the JSON names
// stay for scripts that read them.
type IndexUsage struct {
	Lines          int `json:"lines"`
	Bytes          int `json:"bytes"`
	MaxLines       int `json:"max_lines"`
	MaxBytes       int `json:"max_bytes"`
	ProjectedLines int `json:"projected_lines"`
	ProjectedBytes int `json:"projected_bytes"`
}

// Plan is what a dream would do. Actions come in a fixed order: dangling, merge, supersede,
// conflict, forget, index, stale; within a kind by file.
type Plan struct {
	Dir     string     `json:"dir"`
	Now     time.Time  `json:"now"`
	Actions []Action   `json:"actions"`
	Index   IndexUsage `json:"index"`
	// Rejected counts the steps left out because a person rejected them (Options.Rejected).
	Rejected int `json:"rejected,omitempty"`
	// Short says why the plan stopped short of comparing every memory (Options.Budget,
	// MaxCompared); "" when it did not.
	Short string `json:"short,omitempty"`
	// Compared counts the pairs of memories whose similarity the plan computed: with the
	// similarity join, about proportional to the store, not to its square.
	Compared int `json:"compared"`
}

// Archives counts the actions that archive a memory or take index lines out.
func (p Plan) Archives() int {
	n := 0
	for _, a := range p.Actions {
		if a.Archive {
			n++
		}
	}
	return n
}

// LinesOnly reports whether the step takes index lines out and moves no memory (dangling,
// condense, index).
func (a Action) LinesOnly() bool {
	_, ok := lineSteps[a.Kind]
	return ok
}

type candidate struct {
	id      int32 // place among the dream's memories, newest first
	m       memdir.Memory
	when    time.Time  // newest of frontmatter modified and mtime: what "newer" means
	lastUse time.Time  // newest of when and last recalled
	shing   shingleSet // of name, description and body (generic labels left out)
	body    shingleSet // of the body alone (generic labels left out)
	// stated and statedBody are shing and body without the lines a generic label opens
	// ("**Why:** …", "**How to apply:** …"): what the memory states, not why.
	stated, statedBody shingleSet
	norm               string // the normalised body (generic labels left out)
	name               string // the normalised name
	keys               map[string]string
}

// planned returns the content hashes of the files among files that are memories of byFile.
func planned(byFile map[string]*candidate, files ...string) map[string]string {
	var out map[string]string
	for _, f := range files {
		if c, ok := byFile[f]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[f] = c.m.Hash
		}
	}
	return out
}

// sameSubject reports whether two memories are about the same subject: the same name, or
// near-duplicates. Only then may a fact of one settle a fact of the other.
func sameSubject(a, b *candidate) bool {
	if a.name != "" && a.name == b.name {
		return true
	}
	return similarity(a, b) >= DefaultSubjectThreshold
}

// exactDuplicate reports whether a and b say the same: equal normalised bodies (with at least
// minBodyShingles bigrams, or equal names and descriptions too).
func exactDuplicate(a, b *candidate) bool {
	if a.norm != b.norm || a.norm == "" {
		return false
	}
	return len(a.body) >= minBodyShingles || a.name == b.name && normalise(a.m.Description) == normalise(b.m.Description)
}

// minBodyShingles is how many shingles each body needs for the bodies alone to decide that
// two memories are duplicates (short bodies like "yes" say too little).
const minBodyShingles = 4

// similarity is the larger of the Jaccard similarity of the whole texts and, when both bodies
// are long enough, of the bodies alone (a memory re-saved under another name is a duplicate),
// but no more than the same measure over what the two state: the texts without the lines a
// generic label opens.
func similarity(a, b *candidate) float64 {
	j := jaccardSets(a.shing, b.shing)
	if len(a.body) >= minBodyShingles && len(b.body) >= minBodyShingles {
		j = max(j, jaccardSets(a.body, b.body))
	}
	// What the two state must be as alike as the whole: two memories that share a long "Why:"
	// and "How to apply:" but state different things ("port: 5432" of the database, "port:
	// 6379" of the cache) are neither duplicates nor about one subject.
	st := jaccardSets(a.stated, b.stated)
	if len(a.statedBody) >= minBodyShingles && len(b.statedBody) >= minBodyShingles {
		st = max(st, jaccardSets(a.statedBody, b.statedBody))
	}
	return min(j, st)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// normalise lowers text, drops punctuation and collapses white space.
func normalise(s string) string {
	return strings.Join(words(s), " ")
}

// words splits text into lower-case words; every Han, Hiragana, Katakana or Hangul character
// is a word of its own, so Chinese compares per character.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// Shingles returns the set of word bigrams of the normalised text (the single word when
// there is only one).
func Shingles(s string) map[string]struct{} {
	w := words(s)
	set := make(map[string]struct{}, len(w))
	if len(w) == 1 {
		set[w[0]] = struct{}{}
	}
	for i := 0; i+1 < len(w); i++ {
		set[w[i]+" "+w[i+1]] = struct{}{}
	}
	return set
}

// Jaccard is |a∩b| / |a∪b|; two empty sets are not similar (0).
func Jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// keyLine matches line against keyLineRE; a line without a colon is no "key: value" line, and
// is not run through the expression.
func keyLine(line string) []string {
	if !strings.ContainsAny(line, ":：") {
		return nil
	}
	return keyLineRE().FindStringSubmatch(line)
}

var keyLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-*+]\s+)?(?:\*\*)?([\p{L}\p{N}_][\p{L}\p{N}_ ./-]{0,39}?)(?:\*\*)?\s*[:：]\s*(\S.*)$`)
})

// Keys returns the "key: value" facts of a body (a full-width colon counts too), keys
// lower-cased and values normalised. Lines in fenced code blocks, headings, URLs as keys,
// keys of more than four words and generic labels (GenericLabel: "Why:", "How to apply:",
// "Status:", "관련:" …) are skipped. A key stated twice keeps its last value.
func Keys(body string) map[string]string {
	out := map[string]string{}
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") {
			continue
		}
		m := keyLine(line)
		if m == nil {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(m[1]))
		if strings.HasPrefix(m[2], "//") || len(strings.Fields(key)) > 4 || GenericLabel(key) {
			continue
		}
		val := normalise(m[2])
		if val == "" {
			continue
		}
		out[key] = val
	}
	return out
}

// Apply carries out the archiving steps of the plan in order: each file through
// s.ArchiveFile, which moves it to .archive/ with its index lines and logs the step in
// .archive/ARCHIVE.log as one journaled change, so that memdir's Store.Restore can undo it; a
// dangling line through s.DropIndexLines, which removes only the line and touches no memory.
// Under the store's lock each step first checks the content hashes it was planned on (Planned):
// a step whose files changed since is dropped (Dropped says why), never carried out.
// Report-only actions (stale, conflict) are left as they are. It returns the plan with Done,
// ArchivedTo and Dropped filled in; on another failure it stops and returns the error naming
// the file, the steps before it done and logged.
func Apply(ctx context.Context, s *memdir.Store, plan Plan) (Plan, error) {
	out := plan
	out.Actions = append([]Action(nil), plan.Actions...)
	for i := range out.Actions {
		a := &out.Actions[i]
		if !a.Archive {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		rec := memdir.ArchiveRecord{Time: plan.Now, Run: RunID(plan.Now), Action: a.Kind, Survivor: a.Survivor, Reason: a.Reason}
		if drop, ok := lineSteps[a.Kind]; ok {
			// Only index lines go; no memory moves.
			lines, err := drop(s, ctx, a.File, rec)
			if err != nil {
				return out, fmt.Errorf("extract: dream: %s %s: %w", a.Kind, a.File, err)
			}
			if len(lines) == 0 {
				a.Dropped = "its lines are gone or needed since it was planned"
				continue
			}
			a.Done = true
			continue
		}
		expect := a.Planned
		if expect == nil {
			expect = map[string]string{}
		}
		res, err := s.ArchiveFile(ctx, a.File, rec, expect)
		switch {
		case errors.Is(err, memdir.ErrChanged), errors.Is(err, memdir.ErrNotFound):
			a.Dropped = "not done: " + strings.TrimPrefix(err.Error(), "memdir: ")
			continue
		case err != nil:
			return out, fmt.Errorf("extract: dream: archive %s: %w", a.File, err)
		}
		a.Done, a.ArchivedTo = true, res.ArchivedTo
	}
	return out, nil
}

// lineSteps are the kinds of step that take index lines out and move no memory: a dangling
// line (Forget would look the file up as a memory name too), the condensing of MEMORY.md, and a
// memory's line that leaves it so that it fits. Each re-reads the index under the lock.
var lineSteps = map[string]func(s *memdir.Store, ctx context.Context, file string, rec memdir.ArchiveRecord) ([]memdir.RemovedLine, error){
	KindDangling: (*memdir.Store).DropIndexLines,
	KindCondense: func(s *memdir.Store, ctx context.Context, _ string, rec memdir.ArchiveRecord) ([]memdir.RemovedLine, error) {
		return s.CondenseIndex(ctx, rec)
	},
	KindIndex: (*memdir.Store).Unindex,
}

// ArchiveLog is the log of archived memories, relative to the memory dir (memdir's
// ArchiveLogFile: JSON lines, see memdir.ArchiveRecord).
const ArchiveLog = memdir.ArchiveLogFile

// RunID is the run id of the dream (or review) that ran at now: every record it logs carries
// it, and `strata memory restore --last-dream` undoes the records of the newest one.
func RunID(now time.Time) string { return memdir.RunID(now) }

// DreamActions are the archive-log actions a dream writes: what `strata memory restore
// --last-dream` undoes.
var DreamActions = []string{KindMerge, KindSupersede, KindForget, KindDangling, KindCondense, KindIndex}

// genericLabels are labels that structure a memory rather than name a fact: the memory format
// strata recommends ends feedback and project memories with "**Why:**" and "**How to apply:**",
// and people write "Status:", "Related:" and their translations. Two memories sharing one say
// nothing about each other. Keys are compared normalised (lower case, single spaces).
var genericLabels = map[string]bool{
	"why": true, "how to apply": true, "how": true, "when": true, "where": true, "what": true,
	"reason": true, "rationale": true, "context": true, "background": true, "note": true,
	"notes": true, "nb": true, "tip": true, "warning": true, "caveat": true, "important": true,
	"example": true, "examples": true, "e.g": true, "eg": true, "see": true, "see also": true,
	"related": true, "links": true, "ref": true, "refs": true, "reference": true, "references": true,
	"source": true, "sources": true, "status": true, "state": true, "todo": true, "next": true,
	"next steps": true, "date": true, "updated": true, "last updated": true, "created": true,
	"modified": true, "summary": true, "details": true, "tags": true,
	"관련": true, "상태": true, "이유": true, "적용": true, "적용 방법": true, "참고": true, "메모": true,
	"비고": true, "배경": true, "예시": true, "날짜": true, "원인": true, "방법": true,
	"原因": true, "为什么": true, "如何应用": true, "相关": true, "状态": true, "备注": true,
	"注意": true, "背景": true, "例子": true, "示例": true, "理由": true, "参考": true, "日期": true,
	"なぜ": true, "関連": true, "状態": true, "備考": true, "適用方法": true, "参照": true,
}

// GenericLabel reports whether key (a "key:" label, any case) is a generic label that
// structures a memory rather than names a fact ("Why", "How to apply", "Status", "관련" …):
// Keys skips those, and duplicate detection leaves them out of the compared text.
func GenericLabel(key string) bool {
	k := strings.Join(strings.Fields(strings.ToLower(strings.Trim(key, "*_ "))), " ")
	return genericLabels[k]
}

// splitLabels returns body with every generic label ("**Why:**" …) at the start of a line left
// out, so that two memories written in the same format are compared by what they say; body
// without the lines such a label opens, what a memory states without the reasons and
// directions around it; and whether there was any such line.
func splitLabels(body string) (unlabelled, stated string, labelled bool) {
	lines := strings.Split(body, "\n")
	kept := make([]string, 0, len(lines))
	for i, line := range lines {
		if m := keyLine(line); m != nil && GenericLabel(m[1]) {
			lines[i], labelled = m[2], true
			continue
		}
		kept = append(kept, line)
	}
	if !labelled {
		return body, body, false
	}
	return strings.Join(lines, "\n"), strings.Join(kept, "\n"), true
}

// appendArchiveLog appends the record of a done action that moved a file other than a memory
// (a distilled log, a rejected proposal): time, run, kind, file, where it went, survivor,
// reason and the index lines removed.
func appendArchiveLog(dir string, now time.Time, a Action, removed []memdir.RemovedLine) error {
	err := memdir.AppendArchiveLog(dir, memdir.ArchiveRecord{Time: now, Run: RunID(now), Action: a.Kind, File: a.File,
		ArchivedTo: a.ArchivedTo, Survivor: a.Survivor, Reason: a.Reason, IndexLines: removed})
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	return nil
}
