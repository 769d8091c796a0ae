package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
)

// The stores come from the user's settings and STRATA_MEMORY_STORES, the project's own first;
// a missing directory is reported and refuses writes, a read-only store refuses writes naming
// itself, and each index is in the session context, named by its store, within one budget.
func TestStores(t *testing.T) {
	f := newFixture(t, map[string]string{
		"home/.strata/settings.json": `{"memoryStores": [{"name": "team", "path": "../team-mem", "writable": true}, {"name": "gone", "path": "/nonexistent/strata-mem", "writable": true}],
		 "memoryIndexMaxLines": 4}`,
		"home/team-mem/MEMORY.md": "- [t1](t1.md) — team one\n- [t2](t2.md) — team two\n- [t3](t3.md) — team three\n",
		"org/MEMORY.md":           "- [组织](org.md) — 组织的记忆\n",
	})
	f.vars["STRATA_MEMORY_STORES"] = "org=" + filepath.Join(f.root, "org")
	ws := f.open(Options{})
	var diag []string
	for _, e := range ws.Diagnostics() {
		diag = append(diag, e.Error())
	}
	if len(diag) != 1 || !strings.Contains(diag[0], "memory store gone") || !strings.Contains(diag[0], "does not exist") {
		t.Errorf("diagnostics %q", diag)
	}
	stores, err := ws.Stores()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stores {
		got = append(got, s.Name+" "+s.Dir+" "+map[bool]string{true: "rw", false: "ro"}[s.Writable]+map[bool]string{true: " missing"}[s.Missing])
	}
	proj, _ := ws.MemoryDir()
	want := []string{"project " + proj + " rw", "team " + filepath.Join(f.root, "home", "team-mem") + " rw",
		"gone /nonexistent/strata-mem rw missing", "org " + filepath.Join(f.root, "org") + " ro"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	if _, err := ws.WritableStore("team"); err != nil {
		t.Errorf("team: %v", err)
	}
	if s, err := ws.WritableStore(""); err != nil || !s.Project() {
		t.Errorf("default write store: %+v %v", s, err)
	}
	for name, frag := range map[string]string{"org": `"org" is mounted read-only`, "gone": "does not exist; create it first"} {
		if _, err := ws.WritableStore(name); !errors.Is(err, ErrReadOnlyStore) || !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ws.NamedStore("nope"); !errors.Is(err, ErrNoStore) || !strings.Contains(err.Error(), "project, gone, org, team") {
		t.Errorf("nope: %v", err)
	}

	// The session context: project (empty here), then each mounted index, within 4 lines in all.
	p, _ := ws.Store()
	if _, err := p.Add(t.Context(), memdir.Input{Name: "p1", Description: "project one", Type: memdir.TypeUser}); err != nil {
		t.Fatal(err)
	}
	set, err := ws.Instructions(t.Context(), SetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, src := range set.Sources() {
		if src.Layer != instructions.LayerAutomem {
			continue
		}
		n := 0
		for l := range strings.SplitSeq(src.Text, "\n") {
			if strings.HasPrefix(l, "- [") {
				n++
			}
		}
		lines = append(lines, fmt.Sprintf("%s=%d", src.Store, n))
	}
	if diff := cmp.Diff([]string{"=1", "team=2", "org=1"}, lines); diff != "" {
		t.Errorf("index pieces (-want +got):\n%s", diff)
	}
	if r := set.Render(); !strings.Contains(r, `store="team"`) || !strings.Contains(r, "组织的记忆") {
		t.Errorf("render:\n%s", r)
	}
	// Recall ranks the stores that exist, the project's first, each with the ranker kept for it.
	names := func(o RecallOptions) []string {
		t.Helper()
		rc, err := ws.Recaller(o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range rc.Stores() {
			ns, err := ws.NamedStore(m.Name)
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := ws.StoreRanker(ns); r != m.Ranker {
				t.Errorf("store %q: a ranker other than the workspace's", m.Name)
			}
			out = append(out, m.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"", "team", "org"}, names(RecallOptions{})); diff != "" {
		t.Errorf("recall stores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "org"}, names(RecallOptions{Stores: []string{"ORG", "project"}})); diff != "" {
		t.Errorf("recall stores named (-want +got):\n%s", diff)
	}
	if _, err := ws.Recaller(RecallOptions{Stores: []string{"nope"}}); !errors.Is(err, ErrNoStore) {
		t.Errorf("recall of an unknown store: %v", err)
	}
}
