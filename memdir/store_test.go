package memdir

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
)

func writeRaw(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func files(mems []Memory) []string {
	var out []string
	for _, m := range mems {
		out = append(out, m.File)
	}
	return out
}

func TestListSkipsIndexLogsAndHidden(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: A\ndescription: first\ntype: user\n---\nbody a\n")
	writeRaw(t, dir, "部署.md", "---\nname: 部署流程\ndescription: 如何部署\ntype: project\n---\n先构建再发布\n")
	writeRaw(t, dir, "team/b.md", "no frontmatter here\n")
	writeRaw(t, dir, IndexFile, "- [A](a.md) — first\n")
	writeRaw(t, dir, "logs/2026/01/2026-01-02.md", "- log\n")
	writeRaw(t, dir, ".archive/old.md", "old\n")
	writeRaw(t, dir, ".inbox/new.md", "new\n")
	writeRaw(t, dir, ".hidden.md", "x\n")
	writeRaw(t, dir, "notes.txt", "x\n")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, diags, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md", "team/b.md", "部署.md"}, files(mems)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(diags) != 1 || diags[0].Severity != SevWarning {
		t.Errorf("diags = %v, want one warning for team/b.md", diags)
	}
	m, err := s.Get(t.Context(), "部署流程")
	if err != nil || m.Description != "如何部署" || m.Body != "先构建再发布\n" {
		t.Errorf("Get = %+v, %v", m, err)
	}
}

func TestListMissingDir(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "nope"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, diags, err := s.List(t.Context())
	if err != nil || len(mems) != 0 || len(diags) != 0 {
		t.Fatalf("List = %v, %v, %v", mems, diags, err)
	}
}

func TestChangesReadsOnlyChangedFiles(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none\n")
	writeRaw(t, dir, "b.md", "---\nname: b\n---\ntwo\n")
	s, _ := Open(dir, Options{})
	changed, removed, snap, err := s.Changes(t.Context(), Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md", "b.md"}, files(changed)); diff != "" || len(removed) != 0 {
		t.Fatalf("first Changes: %s removed=%v", diff, removed)
	}
	changed, removed, snap, _ = s.Changes(t.Context(), snap)
	if len(changed) != 0 || len(removed) != 0 {
		t.Fatalf("no change: changed=%v removed=%v", files(changed), removed)
	}
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none, longer now\n")
	os.Remove(filepath.Join(dir, "b.md"))
	writeRaw(t, dir, "c.md", "three\n")
	changed, removed, snap, _ = s.Changes(t.Context(), snap)
	if diff := cmp.Diff([]string{"a.md", "c.md"}, files(changed)); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b.md"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if snap.Len() != 2 {
		t.Errorf("snapshot has %d files, want 2", snap.Len())
	}
}

// A snapshot rebuilt from its stamps (a saved index's) is as good as the one Changes returned.
func TestSnapshotOfStamps(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none\n")
	writeRaw(t, dir, "b.md", "---\nname: b\n---\ntwo\n")
	s, _ := Open(dir, Options{})
	_, _, snap, err := s.Changes(t.Context(), Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	stamps := map[string]Stamp{}
	for _, f := range []string{"a.md", "b.md"} {
		st, ok := snap.Stamp(f)
		if !ok || st.Size == 0 || st.MTime == 0 {
			t.Fatalf("Stamp(%s) = %+v, %v", f, st, ok)
		}
		stamps[f] = st
	}
	if _, ok := snap.Stamp("c.md"); ok {
		t.Error("Stamp of a file never seen reports one")
	}
	stamps["gone.md"] = Stamp{Size: 1}
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none, longer now\n")
	checkChanges(t, "in order", s, SnapshotOf(len(stamps), maps.All(stamps)), []string{"a.md"}, []string{"gone.md"})
	// Out of order, b.md given twice: its last stamp counts.
	given := []struct {
		f  string
		st Stamp
	}{{"gone.md", Stamp{Size: 1}}, {"b.md", Stamp{Size: 99}}, {"a.md", stamps["a.md"]}, {"b.md", stamps["b.md"]}}
	snap = SnapshotOf(1, func(yield func(string, Stamp) bool) {
		for _, g := range given {
			if !yield(g.f, g.st) {
				return
			}
		}
	})
	if snap.Len() != 3 {
		t.Errorf("snapshot of 3 files given 4 times has %d", snap.Len())
	}
	checkChanges(t, "out of order", s, snap, []string{"a.md"}, []string{"gone.md"})
}

// checkChanges checks the files s.Changes finds changed and removed since snap.
func checkChanges(t *testing.T, what string, s *Store, snap Snapshot, changed, removed []string) {
	t.Helper()
	ch, rm, _, err := s.Changes(t.Context(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(changed, files(ch)); diff != "" {
		t.Errorf("%s: changed (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(removed, rm); diff != "" {
		t.Errorf("%s: removed (-want +got):\n%s", what, diff)
	}
}

func TestResolvePrecedence(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	vars := map[string]string{}
	env := config.Env{Home: home, UserHome: "/u", Getenv: func(k string) string { return vars[k] }}
	root := config.ProjectRoot(cwd)
	def := filepath.Join(home, "projects", config.Slug(root), "memory")
	tests := []struct {
		name    string
		flag    string
		envDir  string
		setting string
		root    string
		want    string
	}{
		{"default", "", "", "", "", def},
		{"root given", "", "", "", "/r", filepath.Join(home, "projects", "-r", "memory")},
		{"setting", "", "", "~/mem", "", "/u/mem"},
		{"setting relative to project root", "", "", "m", "", filepath.Join(root, "m")},
		{"setting relative to the given root", "", "", "m", "/r", "/r/m"},
		{"env beats setting", "", "/e", "/s", "", "/e"},
		{"flag beats all", "rel", "/e", "/s", "", filepath.Join(cwd, "rel")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars[EnvVar] = tt.envDir
			got, err := Resolve(env, cwd, Location{Flag: tt.flag, Setting: tt.setting, Root: tt.root})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Resolve = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestListHugeHandMadeFile(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("很长的正文 long body\n", 5<<20/28) // about 5 MB
	writeRaw(t, dir, "huge.md", "---\nname: huge\ndescription: d\ntype: user\n---\n"+body)
	s, _ := Open(dir, Options{})
	mems, diags, err := s.List(t.Context())
	if err != nil || len(mems) != 1 {
		t.Fatalf("List = %d memories, %v", len(mems), err)
	}
	m := mems[0]
	if m.Size < 4<<20 || len(m.Body) > MaxFileBytes || !utf8.ValidString(m.Body) || m.Name != "huge" {
		t.Errorf("size %d, body %d bytes, valid %v, name %q", m.Size, len(m.Body), utf8.ValidString(m.Body), m.Name)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "over the 1.0 MB read limit") {
		t.Errorf("diags = %v", diags)
	}
}

func TestUnchanged(t *testing.T) {
	s := newTestStore(t, Options{})
	ctx := t.Context()
	_, _, snap, _ := s.Changes(ctx, Snapshot{})
	if ok, _ := s.Unchanged(ctx, snap); ok {
		t.Errorf("Unchanged true for a dir that did not exist")
	}
	mustAdd(t, s, "a", "x")
	writeRaw(t, s.Dir(), "team/b.md", "---\nname: b\n---\n")
	s.Reindex(ctx, "team/b.md")
	_, _, snap, _ = s.Changes(ctx, Snapshot{})
	if ok, err := s.Unchanged(ctx, snap); !ok || err != nil {
		t.Errorf("Unchanged = %v, %v right after Changes", ok, err)
	}
	mustAdd(t, s, "a", "updated") // a rename into the dir
	if ok, _ := s.Unchanged(ctx, snap); ok {
		t.Errorf("Unchanged true after Add")
	}
	_, _, snap, _ = s.Changes(ctx, snap)
	writeRaw(t, s.Dir(), "team/c.md", "c") // a new file in a subdirectory
	if ok, _ := s.Unchanged(ctx, snap); ok {
		t.Errorf("Unchanged true after a file was added to a subdirectory")
	}
	os.Remove(filepath.Join(s.Dir(), "team", "c.md"))
}

func TestChangesUnusableFiles(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none\n")
	s, _ := Open(dir, Options{})
	_, _, snap, _ := s.Changes(t.Context(), Snapshot{})
	writeRaw(t, dir, "a.md", "\x00binary now")
	changed, removed, snap, _ := s.Changes(t.Context(), snap)
	if len(changed) != 0 || len(removed) != 1 || removed[0] != "a.md" {
		t.Errorf("file turned binary: changed=%v removed=%v", files(changed), removed)
	}
	changed, removed, snap, _ = s.Changes(t.Context(), snap)
	if len(changed) != 0 || len(removed) != 0 {
		t.Errorf("binary file reported again: changed=%v removed=%v", files(changed), removed)
	}
	writeRaw(t, dir, "a.md", "---\nname: a\n---\nusable again\n")
	changed, _, _, _ = s.Changes(t.Context(), snap)
	if len(changed) != 1 {
		t.Errorf("file usable again: changed=%v", files(changed))
	}
}

// TestCount: Count counts the topic files List would read (a binary one too) and nothing else:
// not the index, hidden files, logs or files of other kinds.
func TestCount(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none\n")
	writeRaw(t, dir, "sub/b.md", "---\nname: b\n---\ntwo\n")
	writeRaw(t, dir, "bin.md", "\x00\x01")
	writeRaw(t, dir, "MEMORY.md", "- [a](a.md)\n")
	writeRaw(t, dir, ".hidden.md", "x")
	writeRaw(t, dir, "logs/2026/01/2026-01-01.md", "x")
	writeRaw(t, dir, "notes.txt", "x")
	s, _ := Open(dir, Options{})
	n, err := s.Count(t.Context())
	mems, _, _ := s.List(t.Context())
	if err != nil || n != 3 || len(mems) != 2 {
		t.Errorf("Count = %d, %v; List %d memories; want 3 and 2", n, err, len(mems))
	}
	none, _ := Open(filepath.Join(dir, "none"), Options{})
	if n, err := none.Count(t.Context()); err != nil || n != 0 {
		t.Errorf("Count of a missing store = %d, %v", n, err)
	}
}

// TestSnapshotLater: a snapshot made later is made once, when Changes has listed the store,
// and gives what the snapshot itself gives.
func TestSnapshotLater(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "a.md", "---\nname: a\n---\none\n")
	writeRaw(t, dir, "b.md", "---\nname: b\n---\ntwo\n")
	s, _ := Open(dir, Options{})
	_, _, snap, err := s.Changes(t.Context(), Snapshot{})
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, dir, "c.md", "---\nname: c\n---\nthree\n")
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	made := 0
	later := SnapshotLater(func() Snapshot { made++; return snap })
	if made != 0 {
		t.Fatal("made before it was needed")
	}
	changed, removed, _, err := s.Changes(t.Context(), later)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c.md"}, files(changed)); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a.md"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if later.Len() != 2 || made != 1 {
		t.Errorf("Len %d, made %d times; want 2, once", later.Len(), made)
	}
	if _, ok := later.Stamp("b.md"); !ok {
		t.Error("Stamp(b.md) of the later snapshot: none")
	}
}
