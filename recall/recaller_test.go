package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// setMtime sets a file's mtime to at.
func setMtime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func newTestRecaller(t *testing.T, dir string, opts Options) *Recaller {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0 }
	}
	return NewRecaller([]Mount{{Dir: dir, Ranker: NewRanker(DirSource{Dir: dir}, RankerOptions{})}}, opts)
}

func recalledFiles(res Result) []string {
	var out []string
	for _, m := range res.Memories {
		out = append(out, m.File)
	}
	return out
}

func TestRecallSkipsSurfacedAndRead(t *testing.T) {
	dir := t.TempDir()
	a := writeMem(t, dir, "tabs.md", "prefer-tabs", "user", "User prefers tabs for indentation", "Indent with tabs.")
	writeMem(t, dir, "tabs-yaml.md", "tabs-in-yaml", "feedback", "Never use tabs in YAML indentation", "YAML breaks with tabs.")
	for _, p := range []string{a, filepath.Join(dir, "tabs-yaml.md")} {
		setMtime(t, p, t0.Add(-time.Hour))
	}
	r := newTestRecaller(t, dir, Options{})
	s := NewSession()
	res, err := r.Recall(t.Context(), s, Turn{Query: "tabs indentation"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tabs.md", "tabs-yaml.md"}, recalledFiles(res)); diff != "" {
		t.Fatalf("first turn (-want +got):\n%s", diff)
	}
	// Second turn: both already surfaced.
	res, err = r.Recall(t.Context(), s, Turn{Query: "tabs indentation"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 0 || len(res.Skipped) != 2 || res.Skipped[0].Reason != SkipSurfaced {
		t.Fatalf("second turn: %v, skipped %v", recalledFiles(res), res.Skipped)
	}
	// After a compaction they may come back, except a file the model has read.
	s.Reset()
	res, err = r.Recall(t.Context(), s, Turn{Query: "tabs indentation", Read: func(p string) bool { return p == a }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tabs-yaml.md"}, recalledFiles(res)); diff != "" {
		t.Fatalf("after reset (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Skip{{"tabs.md", SkipRead}}, res.Skipped); diff != "" {
		t.Fatalf("skipped (-want +got):\n%s", diff)
	}
}

func TestRecallBudgets(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("deploy steps line with a few more words\n", 300)
	writeMem(t, dir, "long.md", "deploy-long", "project", "How we deploy", long)
	for i := range 8 {
		writeMem(t, dir, "d"+string(rune('a'+i))+".md", "deploy-"+string(rune('a'+i)), "project", "deploy note", strings.Repeat("deploy ", 100))
	}
	r := newTestRecaller(t, dir, Options{Budget: Budget{SessionBytes: 5000}})
	s := NewSession()
	res, err := r.Recall(t.Context(), s, Turn{Query: "deploy steps"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) > 5 {
		t.Fatalf("%d memories in one turn, want at most 5", len(res.Memories))
	}
	var longRc *Recalled
	for i := range res.Memories {
		if len(res.Memories[i].Content) > 4096+200+300 {
			t.Errorf("%s: %d bytes injected", res.Memories[i].File, len(res.Memories[i].Content))
		}
		if res.Memories[i].File == "long.md" {
			longRc = &res.Memories[i]
		}
	}
	if longRc == nil {
		t.Fatalf("long.md not recalled: %v (skipped %v)", recalledFiles(res), res.Skipped)
	}
	if !longRc.Truncated || !strings.Contains(longRc.Content, "[Cut: 200 lines limit, 100 more lines; 4096 bytes limit") {
		t.Errorf("long.md content end: %q", longRc.Content[max(0, len(longRc.Content)-200):])
	}
	if s.Used() > 5000 {
		t.Errorf("session used %d bytes, budget 5000", s.Used())
	}
	budgetSkips := 0
	for _, sk := range res.Skipped {
		if sk.Reason == SkipSessionBudget {
			budgetSkips++
		}
	}
	if budgetSkips == 0 {
		t.Errorf("no memory skipped for the session budget: %v", res.Skipped)
	}
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		text             string
		lines, bytes     int
		wantCut, wantNte string
	}{
		{"a\nb\nc", 2, 100, "a\nb", "2 lines limit, 1 more lines"},
		{"abc\ndef", 10, 5, "abc", "5 bytes limit, 4 more bytes"},
		{"short", 10, 100, "short", ""},
		{"数据库数据库", 10, 7, "数据", "7 bytes limit, 12 more bytes"},
	}
	for _, c := range cases {
		cut, note := Truncate(c.text, c.lines, c.bytes)
		if cut != c.wantCut || note != c.wantNte {
			t.Errorf("Truncate(%q, %d, %d) = %q, %q; want %q, %q", c.text, c.lines, c.bytes, cut, note, c.wantCut, c.wantNte)
		}
	}
}

func TestRecallToolReferencesAndAge(t *testing.T) {
	dir := t.TempDir()
	old := writeMem(t, dir, "docker.md", "docker-reference", "reference", "Docker commands for this repo", "Build with docker build -t app .\n## Gotchas\nNever run compose down -v: it deletes the database volume.")
	setMtime(t, old, t0.Add(-72*time.Hour))
	writeMem(t, dir, "kubectl.md", "kubectl-reference", "reference", "kubectl contexts", "Use kubectl config use-context staging.")
	writeMem(t, dir, "build.md", "build-notes", "project", "docker build and kubectl deploy notes", "The build runs on CI.")
	r := newTestRecaller(t, dir, Options{})
	res, err := r.Recall(t.Context(), NewSession(), Turn{Query: "docker kubectl", Tools: []string{"Docker", "kubectl"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Recalled{}
	for _, m := range res.Memories {
		got[m.File] = m
	}
	if _, ok := got["kubectl.md"]; ok {
		t.Error("kubectl reference without warnings was injected while kubectl is in use")
	}
	d, ok := got["docker.md"]
	if !ok {
		t.Fatalf("docker.md with a gotcha was dropped: %v %v", recalledFiles(res), res.Skipped)
	}
	if strings.Contains(d.Content, "docker build -t") || !strings.Contains(d.Content, "Never run compose down") {
		t.Errorf("docker.md content should hold only the warnings:\n%s", d.Content)
	}
	if d.AgeDays != 3 || !strings.Contains(d.Content, "3 days old; verify against current code") {
		t.Errorf("age note missing: %d days, %q", d.AgeDays, d.Content)
	}
	if _, ok := got["build.md"]; !ok {
		t.Error("a project memory mentioning the tools was dropped")
	}
	if b := got["build.md"]; strings.Contains(b.Content, "days old") {
		t.Errorf("a fresh memory got an age note: %q", b.Content)
	}
}

type inventingSelector struct{}

func (inventingSelector) Select(_ context.Context, _ string, short []Candidate, _ int) ([]string, error) {
	return []string{"nope.md", short[0].File, short[0].File}, nil
}

type failingSelector struct{}

func (failingSelector) Select(context.Context, string, []Candidate, int) ([]string, error) {
	return nil, errors.New("model down")
}

func TestRecallSelector(t *testing.T) {
	dir := t.TempDir()
	writeMem(t, dir, "a.md", "alpha", "user", "alpha topic", "alpha")
	res, err := newTestRecaller(t, dir, Options{Selector: inventingSelector{}}).Recall(t.Context(), NewSession(), Turn{Query: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md"}, recalledFiles(res)); diff != "" {
		t.Errorf("invented and repeated names must be dropped (-want +got):\n%s", diff)
	}
	if _, err := newTestRecaller(t, dir, Options{Selector: failingSelector{}}).Recall(t.Context(), NewSession(), Turn{Query: "alpha"}); err == nil {
		t.Error("a failing selector must fail the recall")
	}
}

func TestRecallChinese(t *testing.T) {
	dir := t.TempDir()
	writeMem(t, dir, "db.md", "数据库迁移", "project", "数据库迁移文件放在 db/migrations", "每次修改表结构都要写迁移脚本。")
	writeMem(t, dir, "ui.md", "界面风格", "feedback", "界面使用深色主题", "用户喜欢深色主题。")
	res, err := newTestRecaller(t, dir, Options{}).Recall(t.Context(), NewSession(), Turn{Query: "迁移脚本放在哪里？"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) == 0 || res.Memories[0].File != "db.md" {
		t.Fatalf("got %v", recalledFiles(res))
	}
}

func TestRecallRecordsStats(t *testing.T) {
	dir := t.TempDir()
	writeMem(t, dir, "a.md", "alpha", "user", "alpha topic", "alpha")
	st := NewStats(dir)
	r := newTestRecaller(t, dir, Options{Stats: st})
	for range 2 {
		if _, err := r.Recall(t.Context(), NewSession(), Turn{Query: "alpha"}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]StatEntry{"a.md": {Recalled: 2, LastRecalled: t0}}, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	// The memory file is untouched by recall.
	data, _ := os.ReadFile(filepath.Join(dir, "a.md"))
	if !strings.HasPrefix(string(data), "---\nname: alpha\n") {
		t.Errorf("memory file changed: %q", data)
	}
}

func TestStatsCorruptAndFailures(t *testing.T) {
	dir := t.TempDir()
	st := NewStats(dir)
	st.foldAt = 1 // every Record folds the log into the sidecar
	if err := os.WriteFile(st.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(t.Context()); !errors.Is(err, ErrCorruptStats) {
		t.Fatalf("Load of corrupt sidecar: %v, want ErrCorruptStats", err)
	}
	if err := st.Record(t.Context(), []string{"a.md"}, t0); !errors.Is(err, ErrCorruptStats) {
		t.Fatalf("Record over a corrupt sidecar: %v, want ErrCorruptStats reported", err)
	}
	got, err := st.Load(t.Context())
	if err != nil || got["a.md"].Recalled != 1 {
		t.Fatalf("after replacing a corrupt sidecar: %v, %v", got, err)
	}
	// A failed rename leaves the old sidecar intact.
	before, _ := os.ReadFile(st.Path())
	failing := NewStatsFS(dir, &fsutil.Faulty{FailRename: 1})
	failing.foldAt = 1
	if err := failing.Record(t.Context(), []string{"a.md"}, t0); err == nil {
		t.Fatal("Record with a failing rename: want an error")
	}
	after, _ := os.ReadFile(st.Path())
	if string(before) != string(after) {
		t.Errorf("sidecar changed by a failed write")
	}
	if err := st.Forget(t.Context(), []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Load(t.Context()); len(got) != 0 {
		t.Errorf("after Forget: %v", got)
	}
}

func TestStatsConcurrentRecords(t *testing.T) {
	dir := t.TempDir()
	errc := make(chan error, 8)
	for range 8 {
		go func() {
			var err error
			for range 10 {
				if err = NewStats(dir).Record(context.Background(), []string{"a.md", "b.md"}, t0); err != nil {
					break
				}
			}
			errc <- err
		}()
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	got, err := NewStats(dir).Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got["a.md"].Recalled != 80 || got["b.md"].Recalled != 80 {
		t.Errorf("counts = %v, want 80 each", got)
	}
}

func TestManifest(t *testing.T) {
	mems := []memdir.Memory{
		{File: "old.md", Name: "old", Type: "user", Description: "Old one", ModTime: t0.Add(-time.Hour)},
		{File: "new.md", Name: "new", Type: "", Description: "", ModTime: t0},
		{File: "cn.md", Name: "中文", Type: "project", Description: "多行\n描述", ModTime: t0.Add(-2 * time.Hour)},
	}
	want := "- [unknown] new.md (2026-03-01T12:00:00Z): new\n" +
		"- [user] old.md (2026-03-01T11:00:00Z): Old one\n" +
		"- [project] cn.md (2026-03-01T10:00:00Z): 多行 描述\n"
	if diff := cmp.Diff(want, Manifest(mems, 0)); diff != "" {
		t.Errorf("Manifest (-want +got):\n%s", diff)
	}
	if got := Manifest(mems, 1); strings.Count(got, "\n") != 1 {
		t.Errorf("Manifest with max 1: %q", got)
	}
}

func TestLoadHeadersReadsOnlyTheStart(t *testing.T) {
	dir := t.TempDir()
	writeMem(t, dir, "a.md", "alpha", "user", "first", strings.Repeat("line\n", 100)+"SECRET-TAIL")
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("- [a](a.md)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.md"), []byte("no frontmatter here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mems, diags, err := LoadHeaders(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 2 {
		t.Fatalf("got %d memories, want 2 (MEMORY.md is not one)", len(mems))
	}
	for _, m := range mems {
		if strings.Contains(m.Body, "SECRET-TAIL") {
			t.Error("LoadHeaders read past the header lines")
		}
		if m.File == "a.md" && m.Description != "first" {
			t.Errorf("description = %q", m.Description)
		}
	}
	if len(diags) != 1 || diags[0].Severity != memdir.SevWarning {
		t.Errorf("diagnostics = %v, want one warning for broken.md", diags)
	}
}

func TestStoreRanker(t *testing.T) {
	dir := t.TempDir()
	writeMem(t, dir, "a.md", "alpha", "user", "alpha topic", "zebra")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeMem(t, filepath.Join(dir, "sub"), "b.md", "beta", "user", "beta topic", "giraffe")
	store, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewStoreRanker(store, RankerOptions{})
	if _, _, err := r.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if hits := r.Search("giraffe", 5); len(hits) != 1 || hits[0].Memory.File != "sub/b.md" {
		t.Fatalf("giraffe: %v", files(hits))
	}
	writeMem(t, dir, "a.md", "alpha", "user", "alpha topic, renamed", "okapi and more words")
	if err := os.Remove(filepath.Join(dir, "sub", "b.md")); err != nil {
		t.Fatal(err)
	}
	st, _, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RefreshStats{Updated: []string{"a.md"}, Removed: []string{"sub/b.md"}, Relabelled: []string{"a.md"}}, st); diff != "" {
		t.Errorf("refresh stats (-want +got):\n%s", diff)
	}
	if hits := r.Search("giraffe zebra", 5); len(hits) != 0 {
		t.Errorf("stale content found: %v", files(hits))
	}
	if hits := r.Search("okapi", 5); len(hits) != 1 {
		t.Errorf("new content not found: %v", files(hits))
	}
}

func TestAgeNote(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		mod  time.Time
		want string
	}{
		{time.Time{}, ""},
		{now.Add(-23 * time.Hour), ""},
		{now.Add(-24 * time.Hour), ""},
		{now.Add(-25 * time.Hour), "1 day old; verify against current code before relying on it"},
		{now.Add(-3*24*time.Hour - time.Minute), "3 days old; verify against current code before relying on it"},
	}
	for _, tt := range tests {
		if got := AgeNote(now, tt.mod); got != tt.want {
			t.Errorf("AgeNote(now-%v) = %q, want %q", now.Sub(tt.mod), got, tt.want)
		}
	}
}
