package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/memdir"
)

// loaderCutRE matches the lint errors that say what loading MEMORY.md does to the model's view
// (the line cut and the character cut): Claude Code makes the same cut, so they are errors
// there too.
var loaderCutRE = regexp.MustCompile(`over the [0-9]+-(line|character) limit: the model sees only the first`)

// TestCorpusYearOldStores is issue 12's "done when" on the real Claude Code memory dirs of the
// shared corpus, copied with every file dated a year back: `memory dream --dry-run` plans no
// archive that is not a duplicate, `memory lint` reports no error Claude Code would not also act
// on (only the loader's cuts), and `memory list` shows every memory's type.
func TestCorpusYearOldStores(t *testing.T) {
	src := sharedtest.Dir(t, "corpus", "memory")
	var stores []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == memdir.IndexFile {
			stores = append(stores, filepath.Dir(p))
		}
		return nil
	})
	if len(stores) == 0 {
		t.Skip("no memory dir (MEMORY.md) in the corpus")
	}
	for _, from := range stores {
		rel, _ := filepath.Rel(src, from)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			work := t.TempDir()
			dir := filepath.Join(work, "memory")
			copyYearOld(t, from, dir, time.Now().AddDate(-1, 0, 0))
			project := filepath.Join(work, "project")
			if err := os.MkdirAll(project, 0o700); err != nil {
				t.Fatal(err)
			}
			flags := []string{"--memory-dir", dir, "--cwd", project}
			run := func(args ...string) (string, int) {
				app, out, errb := testApp(t)
				app.Now = time.Now
				code := Run(app, append(args, flags...))
				if code != ExitOK && code != ExitFailure {
					t.Fatalf("strata %s: exit %d\n%s", strings.Join(args, " "), code, errb)
				}
				return out.String(), code
			}

			out, code := run("memory", "dream", "--dry-run", "--json")
			if code != ExitOK {
				t.Fatalf("dream --dry-run: exit %d\n%s", code, out)
			}
			var plan struct {
				Actions []extract.Action `json:"actions"`
			}
			if err := json.Unmarshal([]byte(out), &plan); err != nil {
				t.Fatalf("dream --dry-run --json: %v\n%s", err, out)
			}
			proposed := 0
			for _, a := range plan.Actions {
				if a.Archive && a.Kind != extract.KindMerge {
					t.Errorf("a year-old store with no recall history: plans to archive %s (%s): %s", a.File, a.Kind, a.Reason)
				}
				if a.Proposed {
					proposed++
				}
			}
			// The corpus index links missing files: their lines are proposed for removal,
			// not removed, so the test sees the dream's most common step on real data.
			if proposed == 0 {
				t.Errorf("no proposal in the plan; the corpus index links missing files:\n%s", out)
			}

			out, _ = run("memory", "lint", "--json")
			var lint struct {
				Diagnostics []memdir.Diagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal([]byte(out), &lint); err != nil {
				t.Fatalf("lint --json: %v\n%s", err, out)
			}
			dangling := 0
			for _, d := range lint.Diagnostics {
				if strings.Contains(d.Message, "which does not exist") {
					dangling++
				}
				if d.Severity == memdir.SevError && !loaderCutRE.MatchString(d.Message) {
					t.Errorf("lint: an error Claude Code would not act on: %s", d)
				}
			}
			if dangling == 0 {
				t.Errorf("lint reports no dangling index line; the corpus has some")
			}

			out, _ = run("memory", "list", "--json")
			var list struct {
				Memories []struct{ File, Type, Name string } `json:"memories"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatalf("list --json: %v\n%s", err, out)
			}
			if len(list.Memories) == 0 {
				t.Fatalf("list shows no memory")
			}
			for _, m := range list.Memories {
				if !memdir.Type(m.Type).Known() {
					t.Errorf("list: %s has type %q", m.File, m.Type)
				}
			}
			table, _ := run("memory", "list")
			if n := strings.Count(table, "\n") - 1; n != len(list.Memories) {
				t.Errorf("list shows %d rows, want %d", n, len(list.Memories))
			}
			for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
				if !regexp.MustCompile(`  (user|feedback|project|reference)  `).MatchString(line) {
					t.Errorf("list row without its type: %s", line)
				}
			}

			// The dream carried out (the index is over its 200 lines): nothing is archived
			// without evidence about the memory, and recall still finds every memory.
			out, code = run("memory", "dream", "--json")
			if code != ExitOK {
				t.Fatalf("dream: exit %d\n%s", code, out)
			}
			var done struct {
				Actions []extract.Action `json:"actions"`
			}
			if err := json.Unmarshal([]byte(out), &done); err != nil {
				t.Fatalf("dream --json: %v\n%s", err, out)
			}
			for _, a := range done.Actions {
				if a.Archive && a.Kind != extract.KindMerge {
					t.Errorf("dream archived %s (%s): %s", a.File, a.Kind, a.Reason)
				}
			}
			for _, m := range list.Memories {
				if _, err := os.Stat(filepath.Join(dir, m.File)); err != nil {
					t.Errorf("%s is gone after the dream: %v", m.File, err)
					continue
				}
				out, _ := run("memory", "search", "--json", "-k", "5", m.Name)
				if !strings.Contains(out, `"file": "`+m.File+`"`) {
					t.Errorf("recall does not find %s by its name %q after the dream", m.File, m.Name)
				}
			}
		})
	}
}

// copyYearOld copies the directory tree from into to and dates every file and directory at.
func copyYearOld(t *testing.T, from, to string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Files first, directories after, so writing a file does not move its directory's time.
	var dirs []string
	filepath.WalkDir(to, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return os.Chtimes(p, at, at)
	})
	for _, d := range dirs {
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
	}
}
