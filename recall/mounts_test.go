package recall

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Memories of mounted stores are ranked with the project's as one list: each says its store,
// the same file name in two stores is two memories, what one store surfaced does not hide the
// other's, and statistics are kept for the project's store only.
func TestRecallAcrossStores(t *testing.T) {
	base := t.TempDir()
	proj, team, org := filepath.Join(base, "proj"), filepath.Join(base, "team"), filepath.Join(base, "org")
	writeMem(t, proj, "deploy.md", "deploy", "project", "How this project deploys to staging", "Run make deploy-staging.")
	writeMem(t, team, "deploy.md", "deploy", "project", "How the team deploys to staging with the deploy bot", "Ask the deploy bot in chat; staging deploys need a ticket.")
	writeMem(t, org, "holidays.md", "holidays", "reference", "Office holidays calendar", "See the wiki.")
	writeMem(t, org, "staging.md", "staging-cluster", "reference", "The shared staging cluster and who owns it", "Owned by platform; deploy windows 9-17.")
	for _, d := range []string{proj, team, org} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			setMtime(t, filepath.Join(d, e.Name()), t0.Add(-time.Hour))
		}
	}
	mount := func(name, dir string) Mount {
		return Mount{Name: name, Dir: dir, Ranker: NewRanker(DirSource{Dir: dir}, RankerOptions{})}
	}
	stats := NewStats(proj)
	r := NewRecaller([]Mount{mount("", proj), mount("team", team), mount("org", org)}, Options{
		Now: func() time.Time { return t0 }, Stats: stats,
	})
	s := NewSession()
	res, err := r.Recall(t.Context(), s, Turn{Query: "deploy to staging"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Memories {
		got = append(got, Ref(m.Store, m.File))
		wantDir := map[string]string{"": proj, "team": team, "org": org}[m.Store]
		if m.Path != filepath.Join(wantDir, m.File) || !strings.Contains(m.Content, "deploy") && !strings.Contains(m.Content, "wiki") && !strings.Contains(m.Content, "platform") {
			t.Errorf("%s: path %s content %q", Ref(m.Store, m.File), m.Path, m.Content)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"deploy.md", "org:staging.md", "team:deploy.md"}, got); diff != "" {
		t.Errorf("recalled (-want +got):\n%s", diff)
	}
	if !s.Surfaced("team:deploy.md") || !s.Surfaced("deploy.md") || s.Surfaced("org:holidays.md") {
		t.Errorf("session: team %v project %v", s.Surfaced("team:deploy.md"), s.Surfaced("deploy.md"))
	}
	st, err := stats.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var counted []string
	for f := range st {
		counted = append(counted, f)
	}
	if diff := cmp.Diff([]string{"deploy.md"}, counted); diff != "" {
		t.Errorf("project stats hold (-want +got):\n%s", diff)
	}
	for _, d := range []string{team, org} {
		if _, err := os.Stat(filepath.Join(d, StatsFile)); err == nil {
			t.Errorf("stats written in the mounted store %s", d)
		}
	}

	// Search gives the same ranking without a session: each hit's List names its store, and
	// the memories Recall injected are its best.
	var searched []string
	for _, h := range r.Search("deploy to staging", 10) {
		m := r.Stores()[h.List]
		if _, err := os.Stat(filepath.Join(m.Dir, h.Memory.File)); err != nil {
			t.Errorf("hit %s: not in the store %q it names: %v", h.Memory.File, m.Name, err)
		}
		searched = append(searched, Ref(m.Name, h.Memory.File))
	}
	if len(searched) < 3 {
		t.Fatalf("Search found %v", searched)
	}
	searched = searched[:3]
	slices.Sort(searched)
	if diff := cmp.Diff(got, searched); diff != "" {
		t.Errorf("Search's best against Recall's (-recall +search):\n%s", diff)
	}

	// A mounted store that cannot be read is left out with a diagnostic; the turn goes on.
	broken := filepath.Join(base, "file")
	if err := os.WriteFile(broken, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = NewRecaller([]Mount{mount("", proj), mount("gone", broken)}, Options{Now: func() time.Time { return t0 }})
	res, err = r.Recall(t.Context(), NewSession(), Turn{Query: "deploy to staging"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 1 || res.Memories[0].Store != "" || len(res.Diagnostics) != 1 ||
		!strings.Contains(res.Diagnostics[0].Message, "memory store gone left out of recall") {
		t.Errorf("broken mount: memories %v diagnostics %v", recalledFiles(res), res.Diagnostics)
	}
}

// Among equal scores, the project's own memory ranks first.
func TestRecallTiesProjectFirst(t *testing.T) {
	base := t.TempDir()
	proj, team := filepath.Join(base, "proj"), filepath.Join(base, "team")
	for _, d := range []string{team, proj} {
		writeMem(t, d, "tabs.md", "tabs", "user", "User prefers tabs", "Tabs.")
	}
	r := NewRecaller([]Mount{
		{Dir: proj, Ranker: NewRanker(DirSource{Dir: proj}, RankerOptions{})},
		{Name: "team", Dir: team, Ranker: NewRanker(DirSource{Dir: team}, RankerOptions{})},
	}, Options{Now: func() time.Time { return t0 }, Budget: Budget{Files: 1}})
	res, err := r.Recall(t.Context(), NewSession(), Turn{Query: "tabs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 1 || res.Memories[0].Store != "" {
		t.Fatalf("picked %+v, want the project's", res.Memories)
	}
}
