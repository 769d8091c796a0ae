package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

// snapshot is every file of a memory dir outside the archive and strata's sidecars, by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A dream followed by UndoLastDream gives back the bytes of every file and of MEMORY.md, the
// index's comments, blank lines and dangling lines included.
func TestDreamThenUndo(t *testing.T) {
	ctx := t.Context()
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	s := newStore(t, []mem{
		{file: "a.md", name: "tabs", desc: "indentation", body: long, age: 3 * day},
		{file: "b.md", name: "tabs2", desc: "indentation", body: long + "!", age: day},
		{file: "c.md", name: "other", desc: "something else", body: "deploys go through the staging cluster first"},
	}, "", "<!-- an example:", "- [x](x.md) — inside a comment", "-->", "- [gone](gone.md) — removed by hand",
		memdir.FormatIndexLine("tabs", "a.md", "a second line for the same file"))
	before := snapshot(t, s.Dir())
	index := func() string {
		data, err := os.ReadFile(s.IndexPath())
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// A plain dream only proposes removing the dangling line: MEMORY.md keeps it.
	plain, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	if a := plain.Actions[0]; a.Kind != KindDangling || a.Archive || !a.Proposed || a.ID == "" {
		t.Fatalf("the dangling line is not a proposal: %+v", a)
	}
	// Accepted (by its kind), the line goes, with the duplicate.
	c, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0, ForgetAfter: -1, Only: []string{"a.md", KindDangling}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Plan.Archives(); got != 2 {
		t.Fatalf("dream archived %d; want 2 (a.md, gone.md): %+v", got, c.Plan.Actions)
	}
	if strings.Contains(index(), "gone.md") {
		t.Fatal("the accepted dangling line is still in MEMORY.md")
	}
	if diff := cmp.Diff(before, snapshot(t, s.Dir())); diff == "" {
		t.Fatal("the dream changed nothing")
	}
	done, err := UndoLastDream(ctx, s, t0.Add(day))
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Errorf("restored %d steps; want 2", len(done))
	}
	if diff := cmp.Diff(before, snapshot(t, s.Dir())); diff != "" {
		t.Errorf("after undo (-before +after):\n%s", diff)
	}
	// Undone once: nothing left to undo.
	if done, err := UndoLastDream(ctx, s, t0.Add(day)); err != nil || len(done) != 0 {
		t.Errorf("second undo = %v, %v; want nothing", done, err)
	}
}

// Restoring never overwrites a file that took the archived one's place.
func TestRestoreRefusesToOverwrite(t *testing.T) {
	ctx := t.Context()
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	s := newStore(t, []mem{
		{file: "a.md", name: "tabs", desc: "indentation", body: long, age: 3 * day},
		{file: "b.md", name: "tabs2", desc: "indentation", body: long + "!", age: day},
	})
	if _, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0, ForgetAfter: -1}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "a.md"), []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s.Dir())
	_, err := UndoLastDream(ctx, s, t0)
	if !errors.Is(err, memdir.ErrExists) {
		t.Fatalf("undo over an existing file: %v; want ErrExists", err)
	}
	if diff := cmp.Diff(before, snapshot(t, s.Dir())); diff != "" {
		t.Errorf("a refused restore changed files (-before +after):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), ".archive", "a.md")); err != nil {
		t.Errorf("the archived file moved: %v", err)
	}
}

// ExactOnly leaves every archiving step but exact duplicates proposed; Only carries out the
// steps on the files named and proposes the rest.
func TestPlanExactOnlyAndOnly(t *testing.T) {
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	s := newStore(t, []mem{
		{file: "a.md", name: "tabs", desc: "indentation", body: long, age: 3 * day},
		{file: "b.md", name: "tabs2", desc: "indentation", body: long + " and push", age: 2 * day},
		{file: "c.md", name: "tabs3", desc: "indentation", body: long, age: day},
	}, "- [gone](gone.md) — removed")
	state := func(p Plan) map[string]string {
		out := map[string]string{}
		for _, a := range p.Actions {
			switch {
			case a.Archive:
				out[a.File] = "archive"
			case a.Proposed:
				out[a.File] = "proposed"
			}
		}
		return out
	}
	for _, tt := range []struct {
		opts Options
		want map[string]string
	}{
		{Options{}, map[string]string{"a.md": "archive", "b.md": "archive", "gone.md": "proposed"}},
		{Options{ExactOnly: true}, map[string]string{"a.md": "archive", "b.md": "proposed", "gone.md": "proposed"}},
		{Options{Only: []string{"b.md"}}, map[string]string{"a.md": "proposed", "b.md": "archive", "gone.md": "proposed"}},
		{Options{Only: []string{KindDangling}}, map[string]string{"a.md": "proposed", "b.md": "proposed", "gone.md": "archive"}},
		{Options{Only: []string{KindMerge}}, map[string]string{"a.md": "archive", "b.md": "archive", "gone.md": "proposed"}},
	} {
		tt.opts.Now = t0
		p, err := PlanDream(t.Context(), s, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, state(p)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.opts, diff)
		}
	}
	// A step is accepted by its id too.
	p, _ := PlanDream(t.Context(), s, Options{Now: t0})
	for _, a := range p.Actions {
		got, _ := PlanDream(t.Context(), s, Options{Now: t0, Only: []string{a.ID}})
		if diff := cmp.Diff(map[string]string{"a.md": "proposed", "b.md": "proposed", "gone.md": "proposed", a.File: "archive"}, state(got)); diff != "" {
			t.Errorf("Only %s (%s) (-want +got):\n%s", a.ID, a.File, diff)
		}
	}
}
