package memdir

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newTestStore opens a store in a fresh dir with a fixed clock, and registers a cleanup that
// checks the store's consistency when the test ends (bbolt-style): every index line links an
// existing file, every topic file is in the index once, no temp files are left, modes are
// 0600/0700.
func newTestStore(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	s, err := Open(filepath.Join(t.TempDir(), "memory"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			checkConsistency(t, s)
		}
	})
	return s
}

// checkConsistency fails t when index and files disagree.
func checkConsistency(t *testing.T, s *Store) {
	t.Helper()
	mems, _, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("consistency: list: %v", err)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	linked := map[string]int{}
	for _, e := range ParseIndex(idx) {
		linked[e.File]++
		if _, err := os.Lstat(filepath.Join(s.Dir(), filepath.FromSlash(e.File))); err != nil {
			t.Errorf("consistency: index line %d links %s: %v", e.Line, e.File, err)
		}
	}
	recs, _ := ReadArchiveLog(s.Dir())
	out := OutOfIndex(recs)
	for _, m := range mems {
		if linked[m.File] != 1 && !(out[m.File] && linked[m.File] == 0) {
			t.Errorf("consistency: %s is linked %d times in the index, want 1", m.File, linked[m.File])
		}
	}
	filepath.WalkDir(s.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.Contains(d.Name(), ".tmp") {
			t.Errorf("consistency: temp file left behind: %s", p)
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("consistency: %s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
}

// dirState returns every file under dir with its content, for "nothing changed" checks; the
// lock file and the name map (a cache a refused write may refresh) are left out.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == LockFile || filepath.ToSlash(rel) == NamesFile {
			return nil
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		data, _ := os.ReadFile(p)
		out[rel] = string(data)
		return nil
	})
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mustAdd(t *testing.T, s *Store, name, desc string) Result {
	t.Helper()
	res, err := s.Add(t.Context(), Input{Name: name, Description: desc, Type: TypeProject, Body: "body of " + name + "\n"})
	if err != nil {
		t.Fatalf("Add(%q): %v", name, err)
	}
	return res
}
