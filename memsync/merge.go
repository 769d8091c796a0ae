package memsync

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/memdir"
)

// Conflict kinds.
const (
	// KindBothEdited: both sides changed (or both added) the file differently. Ours stays
	// at the file; theirs is kept as a proposal (Conflict.Proposal).
	KindBothEdited = "both-edited"
	// KindEditOverForget: one side forgot (deleted or archived) the file, the other edited
	// it. The edit stays (an archived copy stays archived too): no edit is lost.
	KindEditOverForget = "edit-over-forget"
	// KindHeldBack: the file has a local change that was not shared (it looks like it holds
	// a secret) and the other side changed it too: theirs is in the tree, the local file is
	// left alone, and theirs is also kept as a proposal.
	KindHeldBack = "held-back"
	// KindIndexText: both sides changed MEMORY.md's hand-written lines (not its memory
	// lines); ours are kept, theirs stay in the history of the merge's second parent.
	KindIndexText = "index-text"
)

// Conflict is one file both sides changed, and what the merge did about it.
type Conflict struct {
	File string `json:"file"`
	Kind string `json:"kind"`
	// Kept says whose version stays at File: "ours" (this replica's) or "theirs" (the
	// upstream's).
	Kept string `json:"kept"`
	// Proposal is where the other version went (".inbox/deploy.from-alice.1a2b3c4d.md"), ""
	// when it did not need to go anywhere.
	Proposal string `json:"proposal,omitempty"`
	// Origin names who made the upstream's version (its frontmatter author, else the
	// author of the upstream commit that last changed it).
	Origin string `json:"origin,omitempty"`
}

// outFile is one file of a merged tree: an existing object, or new content.
type outFile struct {
	blob blob
	data []byte // new content (not an object yet) when non-nil
}

// mergeInput is what planMerge decides on.
type mergeInput struct {
	base, ours, theirs tree
	// content holds the bytes of every blob the plan may need to look at (see needContent).
	content map[string][]byte
	// origin names the author of theirs' version of a file.
	origin func(file string) string
	// held are files with a local change not committed (secrets): the plan keeps theirs'
	// version of such a file as a proposal when theirs changed it.
	held map[string]bool
}

// mergePlan is the merge's decision; the caller applies it (work tree, index, commit).
type mergePlan struct {
	files     map[string]outFile // the merged tree, MEMORY.md as the side it starts from
	conflicts []Conflict
	// indexFrom is the side MEMORY.md starts from ("ours", or "theirs" when only theirs
	// changed it); reindex are the topic files whose index line must then follow the merged
	// file (memdir's Reindex), in order.
	indexFrom string
	reindex   []string
}

// appendOnly reports whether a file is a log that only grows (daily logs, the archive's logs):
// both sides' lines are kept, in order, without a conflict.
func appendOnly(p string) bool {
	return strings.HasPrefix(p, memdir.LogsDir+"/") || strings.HasPrefix(p, memdir.ArchiveDir+"/") && strings.HasSuffix(p, ".log") && !strings.Contains(p[len(memdir.ArchiveDir)+1:], "/")
}

// needContent lists the blobs planMerge reads: every version of a file both sides changed,
// and of MEMORY.md.
func needContent(base, ours, theirs tree) []string {
	seen := map[string]bool{}
	var ids []string
	add := func(e blob, ok bool) {
		if ok && !seen[e.id] {
			seen[e.id] = true
			ids = append(ids, e.id)
		}
	}
	for p := range union(base, ours, theirs) {
		b, bok := base[p]
		o, ook := ours[p]
		t, tok := theirs[p]
		if p == memdir.IndexFile || p == memdir.ArchiveLogFile || !same(o, ook, t, tok) && !same(o, ook, b, bok) && !same(t, tok, b, bok) {
			add(b, bok)
			add(o, ook)
			add(t, tok)
		}
	}
	sort.Strings(ids)
	return ids
}

// union returns every path of the trees.
func union(ts ...tree) map[string]bool {
	u := map[string]bool{}
	for _, t := range ts {
		for p := range t {
			u[p] = true
		}
	}
	return u
}

func same(a blob, aok bool, b blob, bok bool) bool {
	return aok == bok && (!aok || a.id == b.id)
}

// planMerge merges theirs into ours against base, file by file: one side changed takes that
// side; both alike, or differing only in the modified time, keeps ours; a growing log gets both
// sides' new lines; an edit beats a forget (KindEditOverForget); two edits keep ours and make
// theirs an .inbox/ proposal (KindBothEdited; in .archive/ and .inbox/ it is kept beside).
// MEMORY.md is not merged: the plan names the side it starts from and the files to re-index.
func planMerge(in mergeInput) mergePlan {
	pl := mergePlan{files: map[string]outFile{}, indexFrom: "ours"}
	paths := make([]string, 0, len(in.ours)+len(in.theirs))
	for p := range union(in.base, in.ours, in.theirs) {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if p == memdir.IndexFile {
			continue
		}
		b, bok := in.base[p]
		o, ook := in.ours[p]
		t, tok := in.theirs[p]
		take := func(e blob, ok bool) {
			if ok {
				pl.files[p] = outFile{blob: e}
			}
		}
		switch {
		case same(o, ook, t, tok) || same(t, tok, b, bok):
			take(o, ook)
		case same(o, ook, b, bok):
			take(t, tok)
			if in.held[p] && tok {
				pl.propose(in, p, t, KindHeldBack, "theirs")
			}
		case ook && tok && appendOnly(p):
			pl.files[p] = outFile{data: unionLines(in.content[o.id], in.content[t.id])}
		case ook && tok && equalButModified(in.content[o.id], in.content[t.id]):
			take(o, ook)
		case !ook || !tok:
			take(o, ook)
			take(t, tok)
			kept := "ours"
			if !ook {
				kept = "theirs"
			}
			pl.conflicts = append(pl.conflicts, Conflict{File: p, Kind: KindEditOverForget, Kept: kept, Origin: in.origin(p)})
		default:
			take(o, ook)
			pl.propose(in, p, t, KindBothEdited, "ours")
		}
	}
	pl.planIndex(in)
	pl.logArchived(in)
	return pl
}

// logArchived records in ARCHIVE.log each proposal the merge put in .archive/, so that every
// archived file has a record and restore can find it. The line is the same on every replica
// that makes the same merge, so the log's union keeps one.
func (pl *mergePlan) logArchived(in mergeInput) {
	var add []byte
	for _, c := range pl.conflicts {
		if !strings.HasPrefix(c.Proposal, memdir.ArchiveDir+"/") {
			continue
		}
		rec := memdir.ArchiveRecord{Action: memdir.ActionConflict, File: strings.TrimPrefix(c.File, memdir.ArchiveDir+"/"), ArchivedTo: c.Proposal,
			Survivor: c.File, Reason: "both sides edited the archived copy; this is the version from " + orUpstream(c.Origin)}
		line, err := json.Marshal(rec)
		if err != nil {
			continue
		}
		add = append(append(add, line...), '\n')
	}
	if add == nil {
		return
	}
	var log []byte
	if f, ok := pl.files[memdir.ArchiveLogFile]; ok {
		log = f.data
		if log == nil {
			log = in.content[f.blob.id]
		}
	}
	pl.files[memdir.ArchiveLogFile] = outFile{data: unionLines(log, add)}
}

func orUpstream(s string) string {
	if s == "" {
		return "upstream"
	}
	return s
}

// propose keeps theirs' version t of file p as a proposal and records the conflict.
func (pl *mergePlan) propose(in mergeInput, p string, t blob, kind, kept string) {
	origin := in.origin(p)
	dest := proposalPath(p, origin, t.id)
	pl.files[dest] = outFile{blob: blob{mode: "100644", id: t.id}}
	pl.conflicts = append(pl.conflicts, Conflict{File: p, Kind: kind, Kept: kept, Proposal: dest, Origin: origin})
}

// proposalPath is where theirs' version (object id) of file p goes as a proposal: the inbox
// for live files, beside the file for what is already archived or proposed. The name says
// where it came from and is unique per content, so two replicas proposing the same version
// write the same file: "team/deploy.md" from alice → ".inbox/deploy.from-alice.1a2b3c4d.md".
func proposalPath(p, origin, id string) string {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	name := stem + ".from-" + originSlug(origin) + "." + id[:8] + ext
	if strings.HasPrefix(p, memdir.ArchiveDir+"/") || strings.HasPrefix(p, memdir.InboxDir+"/") {
		return dir + name
	}
	return memdir.InboxDir + "/" + name
}

// originSlug makes an origin (a person's name, "Alice Smith <a@x>") a file-name part.
func originSlug(origin string) string {
	if i := strings.IndexByte(origin, '<'); i > 0 {
		origin = origin[:i]
	}
	if memdir.ValidateName(origin) != nil {
		return "upstream"
	}
	return strings.TrimSuffix(memdir.FileName(origin), ".md")
}

// unionLines is ours followed by the lines of theirs that ours does not have (as many times as
// theirs has them more), in theirs' order.
func unionLines(ours, theirs []byte) []byte {
	have := map[string]int{}
	for _, l := range splitLines(ours) {
		have[l]++
	}
	out := append([]byte(nil), ours...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, l := range splitLines(theirs) {
		if have[l] > 0 {
			have[l]--
			continue
		}
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// equalButModified reports whether two memory files differ at most in their frontmatter
// modified time (two replicas saving the same memory at different moments).
func equalButModified(a, b []byte) bool {
	if a == nil || b == nil {
		return false
	}
	da, erra := frontmatter.Parse(a)
	db, errb := frontmatter.Parse(b)
	if erra != nil || errb != nil || !da.Present || !db.Present || da.Body != db.Body {
		return false
	}
	return bytes.Equal([]byte(withoutModified(da.Raw)), []byte(withoutModified(db.Raw)))
}

// withoutModified is frontmatter text without its modified lines (top level or nested).
func withoutModified(raw string) string {
	var b strings.Builder
	for _, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "modified:") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// planIndex decides MEMORY.md: it starts from ours, or from theirs when only theirs changed
// it, and every topic file whose merged version is not the one that side has gets its line
// re-done from the file — when either side's index lists it (a file neither lists stays out,
// as on both sides).
func (pl *mergePlan) planIndex(in mergeInput) {
	b, bok := in.base[memdir.IndexFile]
	o, ook := in.ours[memdir.IndexFile]
	t, tok := in.theirs[memdir.IndexFile]
	from, other := in.ours, in.theirs
	fromIdx, fromOK, otherIdx, otherOK := o, ook, t, tok
	if same(o, ook, b, bok) && !same(t, tok, b, bok) {
		pl.indexFrom = "theirs"
		from, other = in.theirs, in.ours
		fromIdx, fromOK, otherIdx, otherOK = t, tok, o, ook
	}
	if fromOK {
		pl.files[memdir.IndexFile] = outFile{blob: fromIdx}
	}
	if in.held[memdir.IndexFile] {
		return // a local index that is not shared is left as it is
	}
	listed := map[string]bool{}
	for _, e := range memdir.ParseIndex(in.content[fromIdx.id]) {
		listed[e.File] = true
	}
	if otherOK {
		for _, e := range memdir.ParseIndex(in.content[otherIdx.id]) {
			listed[e.File] = true
		}
	}
	for p := range union(from, other, pl.fileTree()) {
		if !memdir.IsTopicFile(p) || !listed[p] {
			continue
		}
		f, fok := pl.files[p]
		e, eok := from[p]
		if fok != eok || fok && (f.data != nil || f.blob.id != e.id) {
			pl.reindex = append(pl.reindex, p)
		}
	}
	sort.Strings(pl.reindex)
	if ook && tok && !same(o, ook, b, bok) && !same(t, tok, b, bok) {
		bt, ot, tt := prose(in.content[b.id]), prose(in.content[o.id]), prose(in.content[t.id])
		if tt != bt && tt != ot {
			pl.conflicts = append(pl.conflicts, Conflict{File: memdir.IndexFile, Kind: KindIndexText, Kept: "ours", Origin: in.origin(memdir.IndexFile)})
		}
	}
}

// fileTree is the plan's files as a tree (for their paths).
func (pl *mergePlan) fileTree() tree {
	t := make(tree, len(pl.files))
	for p, f := range pl.files {
		t[p] = f.blob
	}
	return t
}

// prose is an index without its memory lines: what people wrote by hand.
func prose(index []byte) string {
	entries := map[int]bool{}
	for _, e := range memdir.ParseIndex(index) {
		entries[e.Line] = true
	}
	var b strings.Builder
	for i, l := range strings.Split(string(index), "\n") {
		if !entries[i+1] && strings.TrimSpace(l) != "" {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
