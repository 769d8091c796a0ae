package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// diagsAbout returns the messages of diags for path.
func diagsAbout(diags []Diagnostic, path string) []string {
	var out []string
	for _, d := range diags {
		if d.Path == path {
			out = append(out, d.Message)
		}
	}
	return out
}

// A write killed between its create and its rename leaves a temp file: lint reports it, and the
// next write removes it. The temp file of a write made under the store's lock (a topic file,
// MEMORY.md) is reported and removed at once: whoever holds the lock knows that write is over.
// Another fresh temp file (a write in progress elsewhere, without the lock) and a user's own
// files that merely look alike are left alone.
func TestLeftoverTempFiles(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, "部署", "deploy steps")
	old := time.Now().Add(-2 * StaleTempAge)
	orphans := []string{".部署.md.tmp2873645", ".MEMORY.md.tmp918273", "logs/.2026-01-02.md.tmp3k9z"}
	for _, o := range orphans {
		p := filepath.Join(s.Dir(), filepath.FromSlash(o))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	killed := filepath.Join(s.Dir(), ".部署.md.tmp55555")
	os.WriteFile(killed, []byte("gone"), 0o600)
	fresh := filepath.Join(s.Dir(), ".watch.json.tmp55555")
	mine := filepath.Join(s.Dir(), ".notes.tmp")
	for _, p := range []string{fresh, mine} {
		os.WriteFile(p, []byte("keep"), 0o600)
	}
	os.Chtimes(mine, old, old)

	diags, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orphans {
		msgs := diagsAbout(diags, filepath.Join(s.Dir(), filepath.FromSlash(o)))
		if len(msgs) != 1 || !strings.Contains(msgs[0], "temp file of an interrupted write (1000 bytes") {
			t.Errorf("lint on %s: %q, want one leftover warning", o, msgs)
		}
	}
	if msgs := diagsAbout(diags, fresh); len(msgs) != 0 {
		t.Errorf("lint reports a fresh temp file written without the lock: %q", msgs)
	}
	if msgs := diagsAbout(diags, killed); len(msgs) != 1 {
		t.Errorf("lint on the fresh temp file of a topic file: %q, want one leftover warning", msgs)
	}

	mustAdd(t, s, "next", "the next write")
	for _, o := range append(orphans, filepath.Base(killed)) {
		if _, err := os.Lstat(filepath.Join(s.Dir(), filepath.FromSlash(o))); !os.IsNotExist(err) {
			t.Errorf("%s survived the next write (%v)", o, err)
		}
	}
	for _, p := range []string{fresh, mine} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// A kill after a memory's file was replaced but before its index line was leaves the old
// description in MEMORY.md: lint says so, and Repair re-indexes it from the file, as it adds a
// line for a file the index lacks. The topic files are not changed.
func TestRepairIndexFromFiles(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, "部署", "old description")
	mustAdd(t, s, "other", "untouched")
	// What the killed Add had done: the topic file written, the index not yet.
	content, err := Render(Input{Name: "部署", Description: "新的描述", Type: TypeProject, Body: "body\n"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	topic := filepath.Join(s.Dir(), "部署.md")
	if err := os.WriteFile(topic, content, 0o600); err != nil {
		t.Fatal(err)
	}
	// A line a person wrote in another form is theirs: not reported, not rewritten.
	idx0, _ := os.ReadFile(s.IndexPath())
	own := "  - [other](./other.md) - in my own words"
	if err := os.WriteFile(s.IndexPath(), []byte(strings.Replace(string(idx0), "- [other](other.md) — untouched", own, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	lost, _ := Render(Input{Name: "lost", Description: "never indexed", Type: TypeUser, Body: "b\n"}, testNow)
	os.WriteFile(filepath.Join(s.Dir(), "lost.md"), lost, 0o600)
	old := time.Now().Add(-2 * StaleTempAge)
	temp := filepath.Join(s.Dir(), ".部署.md.tmp4242")
	os.WriteFile(temp, content, 0o600)
	os.Chtimes(temp, old, old)

	diags, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if msgs := diagsAbout(diags, s.IndexPath()); len(msgs) != 1 || !strings.Contains(msgs[0], `"old description" is not the one in 部署.md ("新的描述")`) {
		t.Errorf("lint on the index: %q, want the drifted description", msgs)
	}

	res, err := s.Repair(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Reindexed, " ") != "lost.md 部署.md" || len(res.Removed) != 1 || res.Removed[0].File != ".部署.md.tmp4242" {
		t.Errorf("Repair = %+v", res)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	for _, want := range []string{"- [部署](部署.md) — 新的描述", "- [lost](lost.md) — never indexed", own} {
		if !strings.Contains(string(idx), want+"\n") {
			t.Errorf("index lacks %q:\n%s", want, idx)
		}
	}
	if strings.Contains(string(idx), "old description") {
		t.Errorf("the old description survived:\n%s", idx)
	}
	if data, _ := os.ReadFile(topic); string(data) != string(content) {
		t.Error("Repair changed the topic file")
	}
	diags, _ = s.Lint(t.Context())
	if len(diags) != 0 {
		t.Errorf("lint after Repair: %v", diags)
	}
	if again, err := s.Repair(t.Context()); err != nil || len(again.Reindexed)+len(again.Removed) != 0 {
		t.Errorf("a second Repair = %+v, %v; want nothing to do", again, err)
	}
}

// When the index is full, Repair cannot add the missing lines: each error names the file it
// could not re-index (a real store had twelve such files and got twelve identical messages).
func TestRepairIndexFullNamesFiles(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	full := strings.Repeat("- a note of my own\n", MaxIndexLines)
	if err := os.WriteFile(s.IndexPath(), []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"设计", "배포"} {
		data, _ := Render(Input{Name: name, Description: "not indexed", Type: TypeUser, Body: "b\n"}, testNow)
		if err := os.WriteFile(filepath.Join(s.Dir(), name+".md"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Repair(t.Context())
	if !errors.Is(err, ErrIndexFull) {
		t.Fatalf("Repair = %+v, %v; want ErrIndexFull", res, err)
	}
	for _, file := range []string{"设计.md", "배포.md"} {
		if !strings.Contains(err.Error(), file) {
			t.Errorf("the error does not name %s:\n%v", file, err)
		}
	}
	if idx, _ := os.ReadFile(s.IndexPath()); string(idx) != full {
		t.Errorf("the index changed:\n%s", idx)
	}
}
