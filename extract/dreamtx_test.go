package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

const dupBody = "the user prefers tabs for indentation in go files and runs gofmt before every commit"

// dupStore is a store of two exact duplicates (a.md older, b.md newer) and an unrelated memory.
func dupStore(t *testing.T) *memdir.Store {
	return newStore(t, []mem{
		{file: "a.md", name: "tabs", desc: "indentation", body: dupBody, age: 3 * day},
		{file: "b.md", name: "tabs", desc: "indentation", body: dupBody, age: day},
		{file: "c.md", name: "other", desc: "something else", body: "deploys go through the staging cluster first"},
	})
}

// A step whose file changed between planning and applying is dropped and reported, never
// carried out: the fresh text stays live.
func TestApplyDropsStepsChangedSincePlanned(t *testing.T) {
	ctx := t.Context()
	s := dupStore(t)
	plan, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Archives() != 1 || plan.Actions[0].File != "a.md" || len(plan.Actions[0].Planned) != 2 {
		t.Fatalf("plan: %+v; want a.md merged into b.md with both hashes", plan.Actions)
	}
	fresh := "---\nname: tabs\ndescription: indentation\ntype: project\n---\nfresh text written after the plan\n"
	if err := os.WriteFile(filepath.Join(s.Dir(), "a.md"), []byte(fresh), 0o600); err != nil {
		t.Fatal(err)
	}
	done, err := Apply(ctx, s, plan)
	if err != nil {
		t.Fatal(err)
	}
	a := done.Actions[0]
	if a.Done || !strings.Contains(a.Dropped, "changed since it was planned") {
		t.Fatalf("step on a changed file: done %v, dropped %q", a.Done, a.Dropped)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir(), "a.md")); string(got) != fresh {
		t.Errorf("a.md = %q; the fresh text must stay", got)
	}
	// The survivor changing drops the step too: the reason may no longer hold.
	s = dupStore(t)
	plan, _ = PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1})
	os.WriteFile(filepath.Join(s.Dir(), "b.md"), []byte(fresh), 0o600)
	if done, _ = Apply(ctx, s, plan); done.Actions[0].Done {
		t.Error("a merge into a survivor that changed since was carried out")
	}
}

// A writer rewriting a memory while dreams run never gets its fresh text archived: each dream
// archives only text it planned on.
func TestDreamRaceWithWriter(t *testing.T) {
	ctx := t.Context()
	s := dupStore(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// A fresh, unrelated text under the duplicate's name, then the duplicate again so
			// that the next dream has something to archive.
			body := fmt.Sprintf("fresh%d unrelated words number %d about the release train", i, i)
			if i%2 == 1 {
				body = dupBody
			}
			if _, err := s.Add(ctx, memdir.Input{Name: "tabs-copy", Description: "indentation", Type: memdir.TypeProject, Body: body}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 40 {
		if _, err := Consolidate(ctx, s, ConsolidateOptions{ForgetAfter: -1}); err != nil {
			t.Error(err)
			break
		}
	}
	close(stop)
	wg.Wait()
	recs, err := memdir.ReadArchiveLog(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	archived := 0
	for _, r := range recs {
		if r.ArchivedTo == "" || r.Action == memdir.ActionReplace {
			continue // a writer's own write keeps the version it replaces: that is no dream's
		}
		data, err := os.ReadFile(filepath.Join(s.Dir(), r.ArchivedTo))
		if err != nil {
			t.Fatal(err)
		}
		archived++
		if strings.Contains(string(data), "fresh") {
			t.Errorf("%s holds fresh text the dream never planned on:\n%s", r.ArchivedTo, data)
		}
	}
	if archived == 0 {
		t.Fatal("no dream archived anything: the race was not exercised")
	}
}

// The dream and its undo, stopped at every step (fsutil.Crash): after each stop every memory
// is live or archived with a record, the rerun completes, and undoing the dream gives every
// memory back.
func TestDreamAndUndoCrashAtEveryStep(t *testing.T) {
	ctx := t.Context()
	model := func(t *testing.T, s *memdir.Store, want map[string]string, at int) {
		t.Helper()
		if err := s.Recover(ctx); err != nil {
			t.Fatalf("step %d: recover: %v", at, err)
		}
		recs, _ := memdir.ReadArchiveLog(s.Dir())
		open := memdir.Restorable(recs)
		for file, content := range want {
			if data, err := os.ReadFile(filepath.Join(s.Dir(), file)); err == nil && string(data) == content {
				continue
			}
			found := false
			for _, r := range open {
				data, err := os.ReadFile(filepath.Join(s.Dir(), r.ArchivedTo))
				found = found || r.File == file && err == nil && string(data) == content
			}
			if !found {
				t.Errorf("step %d: %s is neither live nor archived with a record", at, file)
			}
		}
		if _, err := s.Repair(ctx); err != nil {
			t.Fatalf("step %d: repair: %v", at, err)
		}
		diags, _ := s.Lint(ctx)
		for _, d := range diags {
			if strings.Contains(d.Message, "interrupted") || strings.Contains(d.Message, "no record") || strings.Contains(d.Message, "does not exist") {
				t.Errorf("step %d: lint after --fix: %s: %s", at, d.Path, d.Message)
			}
		}
	}
	run := func(t *testing.T, dir string, at int, op func(s *memdir.Store) error) (crashed bool) {
		s, err := memdir.Open(dir, memdir.Options{FS: &fsutil.Crash{At: at}})
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(fsutil.Crashed); !ok {
					panic(r)
				}
				crashed = true
			}
		}()
		if err := op(s); err != nil {
			t.Fatalf("step %d: failed without a crash: %v", at, err)
		}
		return false
	}
	dream := func(s *memdir.Store) error {
		_, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0, ForgetAfter: -1})
		return err
	}
	undo := func(s *memdir.Store) error {
		_, err := UndoLastDream(ctx, s, t0.Add(day))
		return err
	}
	store := func(t *testing.T) (*memdir.Store, map[string]string) {
		s := newStore(t, []mem{
			{file: "a.md", name: "tabs", desc: "indentation", body: dupBody, age: 3 * day},
			{file: "b.md", name: "tabs", desc: "indentation", body: dupBody, age: 2 * day},
			{file: "c.md", name: "tabs", desc: "indentation", body: dupBody, age: day},
			{file: "d.md", name: "other", desc: "something else", body: "deploys go through the staging cluster first"},
		})
		want := snapshot(t, s.Dir())
		delete(want, memdir.IndexFile)
		return s, want
	}
	for _, undoing := range []bool{false, true} {
		t.Run(map[bool]string{false: "dream", true: "undo"}[undoing], func(t *testing.T) {
			for at := 1; ; at++ {
				if at > 400 {
					t.Fatal("never completed")
				}
				s, want := store(t)
				op := dream
				if undoing {
					if err := dream(s); err != nil {
						t.Fatal(err)
					}
					op = undo
				}
				crashed := run(t, s.Dir(), at, op)
				model(t, s, want, at)
				if err := op(s); err != nil {
					t.Fatalf("step %d: the rerun failed: %v", at, err)
				}
				model(t, s, want, at)
				if undoing || !crashed {
					// Undone, every memory is live again with its text.
					if err := undo(s); err != nil && !undoing {
						t.Fatal(err)
					}
					for f, content := range want {
						if data, err := os.ReadFile(filepath.Join(s.Dir(), f)); err != nil || string(data) != content {
							t.Errorf("step %d: %s not back after the undo (%v)", at, f, err)
						}
					}
				}
				if !crashed {
					if at < 10 {
						t.Fatalf("completed at step %d: the crash hook sees nothing", at)
					}
					t.Logf("stopped at each of %d steps", at-1)
					return
				}
			}
		})
	}
}
