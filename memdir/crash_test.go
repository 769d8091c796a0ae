package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// crashRun runs op against a store whose writes crash (fsutil.Crash) at step at, and reports
// whether the crash came (false: op ran to its end).
func crashRun(t *testing.T, dir string, at int, op func(s *Store) error) (crashed bool) {
	t.Helper()
	s, err := Open(dir, Options{FS: &fsutil.Crash{At: at}, Now: func() time.Time { return testNow }})
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
		t.Fatalf("step %d: the run failed without a crash: %v", at, err)
	}
	return false
}

// storeModel is what a crash must never lose: every memory live with its content, or in the
// archive with a record that names it (so restore finds it).
type storeModel map[string]string // file -> content

func modelOf(t *testing.T, dir string) storeModel {
	t.Helper()
	m := storeModel{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if isTopicPath(e.Name()) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = string(data)
		}
	}
	return m
}

// checkModel recovers the store like the next command would and checks that every memory of
// want is live with its content or archived with a restorable record, that no journal is left,
// that every live memory has its index line and no line dangles, and that lint --fix leaves
// nothing of the crash to report.
func checkModel(t *testing.T, s *Store, want storeModel, at int) {
	t.Helper()
	if err := s.Recover(t.Context()); err != nil {
		t.Fatalf("step %d: recover: %v", at, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), filepath.FromSlash(JournalFile))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("step %d: journal left after recovery (%v)", at, err)
	}
	recs, err := ReadArchiveLog(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	open := Restorable(recs)
	idx, _ := os.ReadFile(s.IndexPath())
	linked := map[string]bool{}
	for _, e := range ParseIndex(idx) {
		linked[e.File] = true
		if _, err := os.Stat(filepath.Join(s.Dir(), e.File)); err != nil && want[e.File] != "" {
			t.Errorf("step %d: index line of %s dangles", at, e.File)
		}
	}
	for file, content := range want {
		if data, err := os.ReadFile(filepath.Join(s.Dir(), file)); err == nil {
			if string(data) != content {
				t.Errorf("step %d: %s changed", at, file)
			}
			if !linked[file] {
				t.Errorf("step %d: %s is live without its index line", at, file)
			}
			continue
		}
		found := false
		for _, r := range open {
			if r.File != file || r.ArchivedTo == "" {
				continue
			}
			if data, err := os.ReadFile(filepath.Join(s.Dir(), r.ArchivedTo)); err == nil && string(data) == content {
				found = true
			}
		}
		if !found {
			t.Errorf("step %d: %s is neither live nor archived with a record", at, file)
		}
	}
	if _, err := s.Repair(t.Context()); err != nil {
		t.Fatalf("step %d: repair: %v", at, err)
	}
	diags, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if strings.Contains(d.Message, "interrupted") || strings.Contains(d.Message, "no record") {
			t.Errorf("step %d: lint after --fix: %s: %s", at, d.Path, d.Message)
		}
	}
}

// Kill tests in the manner of SQLite's crash tests: each multi-file operation is stopped at
// every one of its steps in turn; after each stop, the next command's recovery leaves every
// memory live or archived with a record, a rerun of the operation completes, and lint is clean
// after --fix.
func TestCrashAtEveryStep(t *testing.T) {
	type scenario struct {
		name  string
		setup func(t *testing.T, s *Store)
		op    func(s *Store) error
		rerun func(s *Store) error
		after func(t *testing.T, s *Store) // the end state the rerun must reach
	}
	gone := func(file string) func(t *testing.T, s *Store) {
		return func(t *testing.T, s *Store) {
			if _, err := os.Stat(filepath.Join(s.Dir(), file)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s still live after the rerun", file)
			}
		}
	}
	live := func(file string) func(t *testing.T, s *Store) {
		return func(t *testing.T, s *Store) {
			if _, err := os.Stat(filepath.Join(s.Dir(), file)); err != nil {
				t.Errorf("%s not live after the rerun: %v", file, err)
			}
		}
	}
	archive := func(s *Store) error {
		_, err := s.Archive(t.Context(), "alpha", ArchiveRecord{Action: ActionArchive, Reason: "test"})
		return err
	}
	archiveAgain := func(s *Store) error {
		if err := archive(s); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	}
	restoreLast := func(s *Store) error {
		recs, err := ReadArchiveLog(s.Dir())
		if err != nil {
			return err
		}
		for _, r := range Restorable(recs) {
			if r.File == "alpha.md" {
				return s.Restore(t.Context(), r, testNow)
			}
		}
		if _, err := os.Stat(filepath.Join(s.Dir(), "alpha.md")); err == nil {
			return nil // restored, and the record says so
		}
		return errors.New("alpha.md is neither restorable nor live")
	}
	for _, sc := range []scenario{
		{name: "archive", setup: func(t *testing.T, s *Store) {}, op: archive, rerun: archiveAgain, after: gone("alpha.md")},
		{name: "restore", setup: func(t *testing.T, s *Store) {
			if err := archive(s); err != nil {
				t.Fatal(err)
			}
		}, op: restoreLast, rerun: restoreLast, after: live("alpha.md")},
		{name: "drop index line", setup: func(t *testing.T, s *Store) {
			if err := os.Remove(filepath.Join(s.Dir(), "beta.md")); err != nil {
				t.Fatal(err)
			}
		}, op: func(s *Store) error {
			_, err := s.DropIndexLines(t.Context(), "beta.md", ArchiveRecord{Action: "dangling"})
			return err
		}, rerun: func(s *Store) error {
			_, err := s.DropIndexLines(t.Context(), "beta.md", ArchiveRecord{Action: "dangling"})
			return err
		}, after: func(t *testing.T, s *Store) {
			idx, _ := os.ReadFile(s.IndexPath())
			if strings.Contains(string(idx), "beta.md") {
				t.Error("the dangling line survived the rerun")
			}
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			for at := 1; ; at++ {
				if at > 200 {
					t.Fatal("the operation never completed")
				}
				s := newTestStore(t, Options{})
				for _, n := range []string{"alpha", "beta", "gamma"} {
					mustAdd(t, s, n, "about "+n)
				}
				sc.setup(t, s)
				want := modelOf(t, s.Dir())
				if !crashRun(t, s.Dir(), at, sc.op) {
					checkModel(t, s, want, at)
					sc.after(t, s)
					if at < 3 {
						t.Fatalf("the operation completed at step %d: the crash hook sees nothing", at)
					}
					t.Logf("crashed at each of %d steps", at-1)
					return
				}
				checkModel(t, s, want, at)
				if err := sc.rerun(s); err != nil {
					t.Fatalf("step %d: the rerun failed: %v", at, err)
				}
				checkModel(t, s, want, at)
				sc.after(t, s)
			}
		})
	}
}
