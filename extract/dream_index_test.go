package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/memdir"
)

// commentedIndex is an index with examples in an HTML comment and a code fence, links with an
// anchor, "./", spaces and %-escapes, a numbered item, a nested bullet, a link out of the dir and
// one line that really dangles.
const commentedIndex = `# Memory
<!--
How to add a line, e.g. [Title](file.md):
- [Title](file.md) — one-line hook
-->
<!-- - [Example](example.md) — hook -->

## Feedback
- [Prefer tabs](prefer-tabs.md#why) — why we indent with tabs
  - [Deploy](./deploy.md) - nested under the first
1. [Notes](my%20notes.md) — escaped space
- [노트](<한국어 노트.md>) — 설명

` + "```markdown\n- [Fenced](fenced.md) — an example in code\n```\n" + `
- [Plans](../plans/INDEX.md) — outside the memory dir
- [Web](https://example.com/a.md)
- [Gone](gone.md) — removed by hand
`

// writeFixture writes a memory dir: the index and, for each file, a topic file.
func writeFixture(t *testing.T, index string, files ...string) *memdir.Store {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o700)
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		text := "---\nname: " + name + "\ndescription: about " + name + "\ntype: project\n---\nThe body of " + name + " says something of its own: " + f + "\n"
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, memdir.IndexFile), []byte(index), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// danglingOf returns the files of the plan's dangling actions, sorted.
func danglingOf(p Plan) []string {
	out := []string{}
	for _, a := range p.Actions {
		if a.Kind == KindDangling {
			out = append(out, a.File)
		}
	}
	sort.Strings(out)
	return out
}

// The regression of the issue: an example index line inside an HTML comment and a link with an
// anchor were planned as dangling, and the real run exited 1.
func TestDreamCommentedExampleAndAnchor(t *testing.T) {
	s := writeFixture(t, commentedIndex, "prefer-tabs.md", "deploy.md", "my notes.md", "한국어 노트.md")
	ctx := t.Context()
	p, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1, Only: []string{KindDangling}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]brief{{KindDangling, "gone.md", "", true}}, briefs(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	done, err := Apply(ctx, s, p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !done.Actions[0].Done {
		t.Errorf("dangling line not done: %+v", done.Actions[0])
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if want := strings.Replace(commentedIndex, "- [Gone](gone.md) — removed by hand\n", "", 1); string(idx) != want {
		t.Errorf("index after Apply (-want +got):\n%s", cmp.Diff(want, string(idx)))
	}
	again, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1})
	if err != nil || again.Archives() != 0 {
		t.Errorf("second plan: %+v, %v; want nothing to archive", again.Actions, err)
	}
}

var (
	lintMissingRE = regexp.MustCompile(`links (.+), which does not exist`)
	lintUnindexRE = regexp.MustCompile(`^not in MEMORY\.md`)
	indexFixtures = []struct {
		name  string
		index string
		files []string
	}{
		{"comments, fences, anchors, escapes", commentedIndex, []string{"prefer-tabs.md", "deploy.md", "my notes.md", "한국어 노트.md", "unindexed.md"}},
		{"only examples", "<!--\n- [A](a.md)\n- [B](b.md)\n-->\n```\n- [C](c.md)\n```\n", []string{"a.md"}},
		{"unclosed comment and fence are read", "<!-- never closed\n- [A](a.md)\n```\n- [Gone](gone.md)\n", []string{"a.md"}},
		{"duplicates and directories", "- [A](a.md)\n- [A again](a.md#more)\n- [Team](team.md)\n- [Sub](team/sub.md)\n- [X](x.md)\n- [X](x.md)\n", []string{"a.md", "team/sub.md"}},
		{"CRLF and BOM", "\ufeff- [A](a.md)\r\n<!--\r\n- [B](b.md)\r\n-->\r\n- [C](c.md)\r\n", []string{"a.md"}},
	}
)

// TestIndexAgreement runs the dream, Lint and the store on the same index texts: the lines the
// dream plans as dangling are those Lint reports as linking nothing, the memories Lint reports
// as not indexed are those whose Reindex appends a line, and the store's Forget (through Apply)
// removes exactly the dangling lines, after which Lint finds none.
func TestIndexAgreement(t *testing.T) {
	for _, fx := range indexFixtures {
		t.Run(fx.name, func(t *testing.T) {
			ctx := t.Context()
			s := writeFixture(t, fx.index, fx.files...)
			p, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1, DuplicateThreshold: 1.1, Only: []string{KindDangling}})
			if err != nil {
				t.Fatal(err)
			}
			dream := danglingOf(p)

			diags, err := s.Lint(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lintMissing, lintUnindexed := []string{}, []string{}
			for _, d := range diags {
				if m := lintMissingRE.FindStringSubmatch(d.Message); m != nil {
					lintMissing = append(lintMissing, m[1])
				}
				if lintUnindexRE.MatchString(d.Message) {
					rel, _ := filepath.Rel(s.Dir(), d.Path)
					lintUnindexed = append(lintUnindexed, filepath.ToSlash(rel))
				}
			}
			sort.Strings(lintMissing)
			if diff := cmp.Diff(lintMissing, dream); diff != "" {
				t.Errorf("dangling: Lint (-) and the dream (+) disagree:\n%s", diff)
			}

			// The store: Reindex appends a line only for a memory no entry links.
			storeUnindexed := []string{}
			for _, f := range fx.files {
				before, _ := os.ReadFile(s.IndexPath())
				if _, err := s.Reindex(ctx, f); err != nil {
					t.Fatalf("Reindex %s: %v", f, err)
				}
				after, _ := os.ReadFile(s.IndexPath())
				if memdir.CountLines(string(after)) > memdir.CountLines(string(before)) {
					storeUnindexed = append(storeUnindexed, f)
				}
			}
			sort.Strings(lintUnindexed)
			sort.Strings(storeUnindexed)
			if diff := cmp.Diff(lintUnindexed, storeUnindexed); diff != "" {
				t.Errorf("not indexed: Lint (-) and the store (+) disagree:\n%s", diff)
			}

			// Apply removes the dangling lines through the store; Lint then finds none, and
			// every line the parser does not count as an entry is still there.
			keep := nonEntryLines(t, s)
			if _, err := Apply(ctx, s, p); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			diags, _ = s.Lint(ctx)
			for _, d := range diags {
				if lintMissingRE.MatchString(d.Message) {
					t.Errorf("after Apply: %s", d)
				}
			}
			if diff := cmp.Diff(keep, nonEntryLines(t, s)); diff != "" {
				t.Errorf("lines that are no entries changed (-before +after):\n%s", diff)
			}
		})
	}
}

// nonEntryLines returns the lines of the index that ParseIndex does not report as entries.
func nonEntryLines(t *testing.T, s *memdir.Store) []string {
	t.Helper()
	data, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	entry := map[int]bool{}
	for _, e := range memdir.ParseIndex(data) {
		entry[e.Line] = true
	}
	var out []string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !entry[i+1] {
			out = append(out, l)
		}
	}
	return out
}

// TestDreamRealIndex plans on a copy of a real Claude Code memory dir: no dangling action for a
// line whose file exists, none for links out of the dir, and applying the dangling actions
// succeeds and leaves Lint with no dangling line.
func TestDreamRealIndex(t *testing.T) {
	src := sharedtest.Dir(t, "corpus", "memory")
	stores, _ := filepath.Glob(filepath.Join(src, "*", ".claude", "memory"))
	if len(stores) == 0 {
		t.Skip("no memory dir in the corpus")
	}
	for _, from := range stores {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(from))), func(t *testing.T) {
			ctx := t.Context()
			dir := copyDir(t, from)
			s, err := memdir.Open(dir, memdir.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := PlanDream(ctx, s, Options{Only: []string{KindDangling}})
			if err != nil {
				t.Fatal(err)
			}
			var dangling []Action
			for _, a := range p.Actions {
				if a.Kind != KindDangling {
					continue
				}
				dangling = append(dangling, a)
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(a.File))); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("dangling %s, but its file is there (stat: %v)", a.File, err)
				}
				if strings.Contains(a.File, "..") || strings.Contains(a.File, "://") {
					t.Errorf("dangling %s links out of the dir", a.File)
				}
			}
			// The real index links files that are missing: the test would prove nothing otherwise.
			if len(dangling) == 0 {
				t.Fatalf("no dangling line in %s; the corpus index links missing files", from)
			}
			done, err := Apply(ctx, s, Plan{Dir: p.Dir, Now: p.Now, Actions: dangling})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			for _, a := range done.Actions {
				if !a.Done {
					t.Errorf("not done: %+v", a)
				}
			}
			diags, _ := s.Lint(ctx)
			for _, d := range diags {
				if lintMissingRE.MatchString(d.Message) {
					t.Errorf("after Apply: %s", d)
				}
			}
			for _, m := range mustList(t, s) {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m.File))); err != nil {
					t.Errorf("%s: %v", m.File, err)
				}
			}
		})
	}
}

func mustList(t *testing.T, s *memdir.Store) []memdir.Memory {
	t.Helper()
	mems, _, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return mems
}

// copyDir copies the regular files of a directory tree into a temporary directory.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "memory")
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// A dangling line is removed without touching any memory, even one whose name is the missing
// file's: removing the line must not archive a memory that Forget's name lookup would find.
func TestApplyDanglingTouchesNoMemory(t *testing.T) {
	s := writeFixture(t, "- [Notes](notes.md) — kept\n- [Gone](gone.md) — removed by hand\n")
	os.WriteFile(filepath.Join(s.Dir(), "notes.md"), []byte("---\nname: gone.md\ndescription: a memory whose name looks like a file\ntype: project\n---\nbody\n"), 0o600)
	ctx := t.Context()
	p, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1, Only: []string{"gone.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]brief{{KindDangling, "gone.md", "", true}}, briefs(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if _, err := Apply(ctx, s, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "notes.md")); err != nil {
		t.Errorf("the memory named like the dangling file went: %v", err)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if want := "- [Notes](notes.md) — kept\n"; string(idx) != want {
		t.Errorf("index = %q, want %q", idx, want)
	}
}
