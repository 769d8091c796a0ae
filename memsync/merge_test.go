package memsync

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// trees builds base/ours/theirs trees and their contents from path → text maps ("" absent).
type side map[string]string

func buildInput(base, ours, theirs side) mergeInput {
	h := hasher{}
	content := map[string][]byte{}
	mk := func(s side) tree {
		t := tree{}
		for p, text := range s {
			id := h.blobID([]byte(text))
			content[id] = []byte(text)
			t[p] = blob{mode: "100644", id: id}
		}
		return t
	}
	return mergeInput{base: mk(base), ours: mk(ours), theirs: mk(theirs), content: content,
		origin: func(string) string { return "Bo Li" }, held: map[string]bool{}}
}

// texts renders a plan's files as path → text (new content, or the blob's text).
func texts(in mergeInput, pl mergePlan) map[string]string {
	out := map[string]string{}
	for p, f := range pl.files {
		if f.data != nil {
			out[p] = string(f.data)
		} else {
			out[p] = string(in.content[f.blob.id])
		}
	}
	return out
}

func mem(name, body string) string {
	return "---\nname: " + name + "\ndescription: d\ntype: project\nmodified: 2026-01-01T00:00:00Z\n---\n\n" + body + "\n"
}

func TestPlanMerge(t *testing.T) {
	idx := "# Team memory\n- [a](a.md) — d\n- [b](b.md) — d\n"
	tests := []struct {
		name               string
		base, ours, theirs side
		want               map[string]string
		conflicts          []string // file:kind:kept
	}{
		{name: "one side edits",
			base: side{"a.md": mem("a", "0")}, ours: side{"a.md": mem("a", "0")}, theirs: side{"a.md": mem("a", "1")},
			want: map[string]string{"a.md": mem("a", "1")}},
		{name: "both edit alike",
			base: side{"a.md": mem("a", "0")}, ours: side{"a.md": mem("a", "1")}, theirs: side{"a.md": mem("a", "1")},
			want: map[string]string{"a.md": mem("a", "1")}},
		{name: "both edit differently: theirs becomes a proposal named after its origin",
			base: side{"a.md": mem("a", "0")}, ours: side{"a.md": mem("a", "ours")}, theirs: side{"a.md": mem("a", "theirs")},
			want:      map[string]string{"a.md": mem("a", "ours"), ".inbox/a.from-bo-li." + hasher{}.blobID([]byte(mem("a", "theirs")))[:8] + ".md": mem("a", "theirs")},
			conflicts: []string{"a.md:both-edited:ours"}},
		{name: "both add the same name differently",
			base: side{}, ours: side{"部署.md": mem("部署", "甲")}, theirs: side{"部署.md": mem("部署", "乙")},
			want:      map[string]string{"部署.md": mem("部署", "甲"), ".inbox/部署.from-bo-li." + hasher{}.blobID([]byte(mem("部署", "乙")))[:8] + ".md": mem("部署", "乙")},
			conflicts: []string{"部署.md:both-edited:ours"}},
		{name: "saved alike at different times is one version",
			base: side{"a.md": mem("a", "0")}, ours: side{"a.md": mem("a", "1")}, theirs: side{"a.md": strings.Replace(mem("a", "1"), "2026-01-01", "2026-02-02", 1)},
			want: map[string]string{"a.md": mem("a", "1")}},
		{name: "their edit wins over our forget",
			base: side{"a.md": mem("a", "0")}, ours: side{}, theirs: side{"a.md": mem("a", "1")},
			want: map[string]string{"a.md": mem("a", "1")}, conflicts: []string{"a.md:edit-over-forget:theirs"}},
		{name: "our edit wins over their archive, which stays archived",
			base: side{"a.md": mem("a", "0")}, ours: side{"a.md": mem("a", "1")}, theirs: side{".archive/a.md": mem("a", "0")},
			want: map[string]string{"a.md": mem("a", "1"), ".archive/a.md": mem("a", "0")}, conflicts: []string{"a.md:edit-over-forget:ours"}},
		{name: "an archive on one side is an archive on the other",
			base: side{"a.md": mem("a", "0"), "b.md": mem("b", "0")}, ours: side{"a.md": mem("a", "0"), "b.md": mem("b", "0")}, theirs: side{".archive/a.md": mem("a", "0"), "b.md": mem("b", "0")},
			want: map[string]string{".archive/a.md": mem("a", "0"), "b.md": mem("b", "0")}},
		{name: "logs keep both sides' lines",
			base: side{"logs/2026/01/2026-01-01.md": "# day\n- 09:00 a\n"}, ours: side{"logs/2026/01/2026-01-01.md": "# day\n- 09:00 a\n- 10:00 ours\n"}, theirs: side{"logs/2026/01/2026-01-01.md": "# day\n- 09:00 a\n- 11:00 theirs\n"},
			want: map[string]string{"logs/2026/01/2026-01-01.md": "# day\n- 09:00 a\n- 10:00 ours\n- 11:00 theirs\n"}},
		{name: "the archive log keeps both sides' records",
			base: side{".archive/ARCHIVE.log": "r1\n"}, ours: side{".archive/ARCHIVE.log": "r1\nr2\n"}, theirs: side{".archive/ARCHIVE.log": "r1\nr3\n"},
			want: map[string]string{".archive/ARCHIVE.log": "r1\nr2\nr3\n"}},
		{name: "two archived versions at one path: the other is kept beside it",
			base: side{}, ours: side{".archive/a.md": mem("a", "1")}, theirs: side{".archive/a.md": mem("a", "2")},
			want: map[string]string{".archive/a.md": mem("a", "1"), ".archive/a.from-bo-li." + hasher{}.blobID([]byte(mem("a", "2")))[:8] + ".md": mem("a", "2"),
				// the other version has a record, so restore and lint know it
				".archive/ARCHIVE.log": `{"time":"0001-01-01T00:00:00Z","action":"conflict","file":"a.md","archived_to":".archive/a.from-bo-li.` + hasher{}.blobID([]byte(mem("a", "2")))[:8] + `.md","survivor":".archive/a.md","reason":"both sides edited the archived copy; this is the version from Bo Li"}` + "\n"},
			conflicts: []string{".archive/a.md:both-edited:ours"}},
		{name: "MEMORY.md starts from ours and follows their files",
			base:   side{"MEMORY.md": idx, "a.md": mem("a", "0"), "b.md": mem("b", "0")},
			ours:   side{"MEMORY.md": idx + "- [c](c.md) — d\n", "a.md": mem("a", "0"), "b.md": mem("b", "0"), "c.md": mem("c", "0")},
			theirs: side{"MEMORY.md": "# Team memory\n- [a](a.md) — d\n", "a.md": mem("a", "1")},
			want:   map[string]string{"MEMORY.md": idx + "- [c](c.md) — d\n", "a.md": mem("a", "1"), "c.md": mem("c", "0")}},
		{name: "hand-written index lines changed on both sides are reported",
			base:   side{"MEMORY.md": idx},
			ours:   side{"MEMORY.md": "# Ours\n- [a](a.md) — d\n- [b](b.md) — d\n"},
			theirs: side{"MEMORY.md": "# Theirs\n- [a](a.md) — d\n- [b](b.md) — d\n"},
			want:   map[string]string{"MEMORY.md": "# Ours\n- [a](a.md) — d\n- [b](b.md) — d\n"}, conflicts: []string{"MEMORY.md:index-text:ours"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := buildInput(tt.base, tt.ours, tt.theirs)
			pl := planMerge(in)
			if diff := cmp.Diff(tt.want, texts(in, pl)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			var got []string
			for _, c := range pl.conflicts {
				got = append(got, c.File+":"+c.Kind+":"+c.Kept)
			}
			if diff := cmp.Diff(tt.conflicts, got); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanMergeIndexFollowsTheMergedFiles(t *testing.T) {
	idx := "- [a](a.md) — d\n- [b](b.md) — d\n"
	// Only theirs changed MEMORY.md (added c): it starts from theirs, and a (edited by us,
	// listed) must be re-indexed; b (untouched) and d (listed by no one) must not.
	in := buildInput(
		side{"MEMORY.md": idx, "a.md": mem("a", "0"), "b.md": mem("b", "0"), "d.md": mem("d", "0")},
		side{"MEMORY.md": idx, "a.md": mem("a", "1"), "b.md": mem("b", "0"), "d.md": mem("d", "1")},
		side{"MEMORY.md": idx + "- [c](c.md) — d\n", "a.md": mem("a", "0"), "b.md": mem("b", "0"), "c.md": mem("c", "0"), "d.md": mem("d", "0")},
	)
	pl := planMerge(in)
	if pl.indexFrom != "theirs" {
		t.Fatalf("indexFrom = %s, want theirs", pl.indexFrom)
	}
	if diff := cmp.Diff([]string{"a.md"}, pl.reindex); diff != "" {
		t.Fatalf("reindex (-want +got):\n%s", diff)
	}
	// Ours changed the index too: it starts from ours, and c (theirs, listed by theirs) must be
	// indexed.
	in.ours["MEMORY.md"] = blob{mode: "100644", id: hasher{}.blobID([]byte(idx + "\n"))}
	in.content[in.ours["MEMORY.md"].id] = []byte(idx + "\n")
	pl = planMerge(in)
	sort.Strings(pl.reindex)
	if pl.indexFrom != "ours" || !cmp.Equal([]string{"c.md"}, pl.reindex) {
		t.Fatalf("indexFrom %s, reindex %v; want ours, [c.md]", pl.indexFrom, pl.reindex)
	}
}

func TestPlanMergeHeldBackFileKeepsTheirsAsProposal(t *testing.T) {
	in := buildInput(side{"a.md": mem("a", "0")}, side{"a.md": mem("a", "0")}, side{"a.md": mem("a", "1")})
	in.held["a.md"] = true
	pl := planMerge(in)
	if len(pl.conflicts) != 1 || pl.conflicts[0].Kind != KindHeldBack || pl.conflicts[0].Proposal == "" {
		t.Fatalf("conflicts = %+v", pl.conflicts)
	}
	if got := texts(in, pl)[pl.conflicts[0].Proposal]; got != mem("a", "1") {
		t.Fatalf("proposal holds %q", got)
	}
}

func TestProposalPathAndShared(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for _, c := range []struct{ p, origin, want string }{
		{"deploy.md", "Alice Smith <alice@example.invalid>", ".inbox/deploy.from-alice-smith.abababab.md"},
		{"team/部署.md", "김민수", ".inbox/部署.from-김민수.abababab.md"},
		{".inbox/x.md", "../evil", ".inbox/x.from-upstream.abababab.md"},
		{".archive/x.md", "", ".archive/x.from-upstream.abababab.md"},
	} {
		if got := proposalPath(c.p, c.origin, id); got != c.want {
			t.Errorf("proposalPath(%q, %q) = %q, want %q", c.p, c.origin, got, c.want)
		}
	}
	for p, want := range map[string]bool{
		"a.md": true, "team/a.md": true, "MEMORY.md": true, ".archive/a.md": true, ".archive/ARCHIVE.log": true,
		".inbox/a.md": true, "logs/2026/01/2026-01-01.md": true, "notes.txt": false,
		".strata.lock": false, ".strata-watch.json": false, ".recall-stats.json": false, ".consolidate-lock": false,
		".git/config": false, ".hidden.md": false, "team/.x.md": false, ".archive/.a.md.tmp123": false, "a\nb.md": false,
	} {
		if got := Shared(p); got != want {
			t.Errorf("Shared(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestProgramKey(t *testing.T) {
	for k, want := range map[string]bool{
		"core.sshcommand": true, "credential.helper": true, "credential.https://x.helper": true,
		"remote.origin.uploadpack": true, "remote.origin.receivepack": true, "remote.origin.vcs": true,
		"core.askpass": true, "core.gitproxy": true, "core.alternaterefscommand": true,
		"remote.origin.url": false, "user.name": false, "core.filemode": false, "branch.main.remote": false,
		"diff.foo.textconv": false, // sync never diffs
	} {
		if got := programKey(k); got != want {
			t.Errorf("programKey(%q) = %v, want %v", k, got, want)
		}
	}
}
