package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// mem is a memory written by hand: age is how long before t0 its file was last modified.
type mem struct {
	file, name, desc, body string
	age                    time.Duration
}

// newStore writes the memories and an index listing each (plus extra index lines).
func newStore(t *testing.T, mems []mem, extraIndex ...string) *memdir.Store {
	t.Helper()
	dir := t.TempDir()
	var index strings.Builder
	for _, m := range mems {
		text := fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: project\n---\n%s\n", m.name, m.desc, m.body)
		p := filepath.Join(dir, m.file)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		when := t0.Add(-m.age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		index.WriteString(memdir.FormatIndexLine(m.name, m.file, m.desc) + "\n")
	}
	for _, l := range extraIndex {
		index.WriteString(l + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, memdir.IndexFile), []byte(index.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// brief is an action reduced to what the tables compare.
type brief struct {
	Kind, File, Survivor string
	Archive              bool
}

func briefs(p Plan) []brief {
	out := []brief{}
	for _, a := range p.Actions {
		out = append(out, brief{a.Kind, a.File, a.Survivor, a.Archive})
	}
	return out
}

const day = 24 * time.Hour

// watched is the watch state of a store strata has watched for a year.
var watched = &memdir.Watch{Version: 1, Since: t0.Add(-365 * day), Sessions: 40}

// sharedWhy and sharedWhyZh are the reasons and directions several memories written after one
// incident share.
const (
	sharedWhy = "**Why:** the outage last week took the checkout down for two hours because a config value drifted between environments and nobody noticed until customers complained.\n" +
		"**How to apply:** check the value in the environment file before each deploy and compare staging with production."
	sharedWhyZh = "**原因：** 上周的事故让结账服务停了两个小时，因为配置值在环境之间漂移，直到客户投诉才发现。\n" +
		"**How to apply:** 每次部署前检查环境文件里的值，并比较预发和生产环境。"
)

func TestPlanDream(t *testing.T) {
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	tests := []struct {
		name  string
		mems  []mem
		extra []string
		stats map[string]recall.StatEntry
		opts  Options
		want  []brief
	}{
		{
			name: "exact duplicate: the newer is kept",
			mems: []mem{{"a.md", "tabs", "indentation", long, 2 * day}, {"b.md", "tabs2", "indentation", long, day}},
			want: []brief{{KindMerge, "a.md", "b.md", true}},
		},
		{
			name: "near duplicate body under another name",
			mems: []mem{{"a.md", "old", "x", long + " please", day}, {"b.md", "new", "y", long, 2 * day}},
			want: []brief{{KindMerge, "b.md", "a.md", true}},
		},
		{
			name: "different memories stay",
			mems: []mem{{"a.md", "tabs", "indentation", long, day}, {"b.md", "db", "database", "we use postgres 16 in production and sqlite in tests", day}},
			want: []brief{},
		},
		{
			name: "short bodies alone do not make duplicates",
			mems: []mem{{"a.md", "alpha", "first thing", "yes", day}, {"b.md", "beta", "second item", "yes", 2 * day}},
			want: []brief{},
		},
		{
			name: "chinese duplicate",
			mems: []mem{{"a.md", "缩进", "笔记", "用户喜欢使用制表符缩进并在提交前格式化代码", day}, {"b.md", "缩进2", "笔记", "用户喜欢使用制表符缩进并在提交前格式化代码。", 3 * day}},
			want: []brief{{KindMerge, "b.md", "a.md", true}},
		},
		{
			name: "contradiction: every key overridden, older superseded",
			mems: []mem{{"a.md", "db", "database", "- database: postgres 14\n- port: 5432", 5 * day}, {"b.md", "DB", "db now", "database: postgres 16\nport: 6432\nhost: db1", day}},
			want: []brief{{KindSupersede, "a.md", "b.md", true}},
		},
		{
			name: "the same keys in memories about other subjects: nothing",
			mems: []mem{{"a.md", "db", "database", "- database: postgres 14\n- port: 5432", 5 * day}, {"b.md", "cache", "the cache", "database: redis\nport: 6379", day}},
			want: []brief{},
		},
		{
			name: "memories in the recommended format share labels, not facts",
			mems: []mem{
				{"a.md", "prefer-tabs", "indentation", "Indent Go code with tabs.\n**Why:** the team's style.\n**How to apply:** in every Go file.", 5 * day},
				{"b.md", "no-mocks", "tests", "Never mock the database in tests.\n**Why:** a mocked test hid a broken migration.\n**How to apply:** integration tests.", 3 * day},
				{"c.md", "terse", "answers", "Keep answers short.\n**Why:** the user reads on a phone.\n**How to apply:** always.", day},
				{"d.md", "배포", "배포 절차", "배포는 태그로 한다.\n관련: CI\n상태: 확정", 4 * day},
				{"e.md", "리뷰", "코드 리뷰", "리뷰는 두 명이 한다.\n관련: 팀 규칙\n상태: 논의 중", 2 * day},
				{"f.md", "release", "release", "Releases ship on Fridays.\nStatus: agreed", 4 * day},
				{"g.md", "hotfix", "hotfix", "Hotfixes skip the queue.\nStatus: proposed", 2 * day},
			},
			want: []brief{},
		},
		{
			name: "contradiction in part: reported only",
			mems: []mem{{"a.md", "db", "database", "database: postgres 14\nowner: ops team", 5 * day}, {"b.md", "db", "db now", "database: postgres 16", day}},
			want: []brief{{KindConflict, "a.md", "b.md", false}},
		},
		{
			name: "same key same value is no contradiction",
			mems: []mem{{"a.md", "db", "database", "database: postgres 16\nowner: ops", 5 * day}, {"b.md", "db2", "db now", "database: Postgres 16", day}},
			want: []brief{},
		},
		{
			name: "chinese key with full-width colon",
			mems: []mem{{"a.md", "库", "数据库", "数据库：postgres 14", 5 * day}, {"b.md", "库", "数据库新", "数据库：postgres 16", day}},
			want: []brief{{KindSupersede, "a.md", "b.md", true}},
		},
		{
			name: "same name and description, different body",
			mems: []mem{{"a.md", "deploy", "How we deploy", "with make deploy from a laptop", 5 * day}, {"b.md", "Deploy", "how we deploy", "through the CI pipeline on tag", day}},
			want: []brief{{KindSupersede, "a.md", "b.md", true}},
		},
		{
			name: "same description under other names is not one subject",
			mems: []mem{{"a.md", "deploy", "How we deploy", "with make deploy from a laptop", 5 * day}, {"b.md", "deploy2", "how we deploy", "through the CI pipeline on tag", day}},
			want: []brief{},
		},
		{
			name:  "forgetting: unused in enough watched sessions and for long",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 200 * day}, {"b.md", "new", "new thing", "recent stuff here", day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 10}, "b.md": {IdleSessions: 10}},
			opts:  Options{Watch: watched},
			want:  []brief{{KindForget, "a.md", "", true}},
		},
		{
			name:  "forgetting: age alone never archives (no watch state)",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 2000 * day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 50}},
			want:  []brief{},
		},
		{
			name: "forgetting: a store another tool wrote has no evidence",
			mems: []mem{{"a.md", "old", "old thing", "something from long ago", 2000 * day}},
			opts: Options{Watch: watched},
			want: []brief{},
		},
		{
			name:  "forgetting: too few idle sessions",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 2000 * day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 9}},
			opts:  Options{Watch: watched},
			want:  []brief{},
		},
		{
			name:  "forgetting: the sessions setting",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 2000 * day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 3}},
			opts:  Options{Watch: watched, ForgetSessions: 3},
			want:  []brief{{KindForget, "a.md", "", true}},
		},
		{
			name:  "forgetting: recently recalled is kept",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 200 * day}},
			stats: map[string]recall.StatEntry{"a.md": {Recalled: 3, LastRecalled: t0.Add(-10 * day), IdleSessions: 20}},
			opts:  Options{Watch: watched},
			want:  []brief{},
		},
		{
			name:  "forgetting: setting shorter",
			mems:  []mem{{"a.md", "old", "old thing", "something from a while ago", 20 * day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 10}},
			opts:  Options{ForgetAfter: 10 * day, Watch: watched},
			want:  []brief{{KindForget, "a.md", "", true}},
		},
		{
			name:  "forgetting: disabled",
			mems:  []mem{{"a.md", "old", "old thing", "something from long ago", 2000 * day}},
			stats: map[string]recall.StatEntry{"a.md": {IdleSessions: 100}},
			opts:  Options{ForgetAfter: -1, Watch: watched},
			want:  []brief{},
		},
		{
			name:  "dangling index line",
			mems:  []mem{{"a.md", "a", "a thing", "body of a", day}},
			extra: []string{"- [gone](gone.md) — removed by hand", "- [web](https://example.org) — a link"},
			want:  []brief{{KindDangling, "gone.md", "", false}}, // only proposed: Claude Code ignores the line
		},
		{
			name:  "dangling index line accepted",
			mems:  []mem{{"a.md", "a", "a thing", "body of a", day}},
			extra: []string{"- [gone](gone.md) — removed by hand"},
			opts:  Options{Only: []string{"gone.md"}},
			want:  []brief{{KindDangling, "gone.md", "", true}},
		},
		{
			name:  "dangling lines proposed count toward the index: no memory archived to make room",
			mems:  []mem{{"a.md", "a", "alpha memory", "first body text", 3 * day}, {"b.md", "b", "beta memory", "second body text", day}},
			extra: []string{"- [gone](gone.md) — removed by hand"},
			opts:  Options{MaxIndexLines: 2},
			want:  []brief{{KindDangling, "gone.md", "", false}},
		},
		{
			name: "index over its line limit: the least recently used memory leaves the index",
			mems: []mem{{"a.md", "a", "alpha memory", "first body text", 3 * day}, {"b.md", "b", "beta memory", "second body text", day},
				{"c.md", "c", "gamma memory", "third body words", 2 * day}},
			opts: Options{MaxIndexLines: 2},
			want: []brief{{KindIndex, "a.md", "", true}},
		},
		{
			name: "a shared Why and How to apply do not make two memories duplicates or one subject",
			mems: []mem{{"db.md", "db port", "the database port", "port: 5432\n\n" + sharedWhy, 2 * day},
				{"cache.md", "cache port", "the cache port", "port: 6379\n\n" + sharedWhy, day},
				{"db-zh.md", "数据库端口", "数据库的端口", "端口：5432\n\n" + sharedWhyZh, 2 * day},
				{"cache-zh.md", "缓存端口", "缓存的端口", "端口：6379\n\n" + sharedWhyZh, day}},
			want: []brief{},
		},
		{
			name: "index over its limit by lines that are not memories: taking memory lines out cannot make it fit, none leaves",
			mems: []mem{{"a.md", "a", "alpha memory", "first body text", 3 * day}, {"b.md", "b", "beta memory", "second body text", day}},
			extra: []string{"Notes the user keeps by hand:", "- deploys go out on Tuesdays", "- the staging host is db-2",
				"- ask before touching billing"},
			opts: Options{MaxIndexLines: 3},
			want: []brief{},
		},
		{
			name: "index over its byte limit",
			mems: []mem{{"a.md", "a", "alpha memory", "first body text", 3 * day}, {"b.md", "b", "beta memory", "second body text", day},
				{"c.md", "c", "gamma memory", "third body words", 2 * day}},
			opts: Options{MaxIndexBytes: 40},
			want: []brief{{KindIndex, "a.md", "", true}, {KindIndex, "c.md", "", true}},
		},
		{
			name: "archives for other reasons count toward the index",
			mems: []mem{{"a.md", "tabs", "indentation", long, 2 * day}, {"b.md", "tabs2", "indentation", long, day},
				{"c.md", "c", "gamma memory", "third body words", 3 * day}},
			opts: Options{MaxIndexLines: 2},
			want: []brief{{KindMerge, "a.md", "b.md", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, tt.mems, tt.extra...)
			opts := tt.opts
			opts.Now = t0
			opts.Stats = tt.stats
			p, err := PlanDream(context.Background(), s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, briefs(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanDreamStale(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("store/store.go", "package store\n\nfunc (s *Store) Forget() {}\nfunc parseArgs() {}\n")
	write("web/app.js", "export function renderPage() {}\n")
	tests := []struct {
		body string
		want []string
	}{
		{"see store/store.go and `Store.Forget`", nil},
		{"see `store/gone.go` and old/file.go", []string{"old/file.go", "store/gone.go"}},
		{"call `parseArgs()` then `renderPage()`", nil},
		{"call `parseFlags()` and `store.Vanished`", []string{"parseFlags()", "store.Vanished"}},
		{"the stdlib `os.OpenRoot` is not ours; nor is https://example.org/x.go or ~/notes.md", nil},
		{"plain `make` and `true` are not symbols", nil},
		{"中文：见 `store/store.go` 与 `缺失/文件.go`", []string{"缺失/文件.go"}},
		{"absolute /etc/passwd.txt is not ours", nil},
		{"`MissingType` in camel case", []string{"MissingType"}},
		// The memory store's own files are not the project's: the index and a memory by name.
		{"see MEMORY.md and a.md, then gone.md", []string{"gone.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			s := newStore(t, []mem{{"a.md", "a", "refs", tt.body, day}})
			p, err := PlanDream(context.Background(), s, Options{Root: root, Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range p.Actions {
				if a.Kind == KindStale {
					if a.Archive {
						t.Errorf("stale action archives: %+v", a)
					}
					got = a.Refs
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stale refs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStaleScanBounded(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.go", i)), []byte("package x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(t, []mem{{"a.md", "a", "refs", "`NowhereFunc()`", day}})
	// Within the bound the symbol is missing; past it nothing is claimed.
	for _, tt := range []struct {
		maxFiles int
		stale    bool
	}{{100, true}, {2, false}} {
		p, err := PlanDream(context.Background(), s, Options{Root: root, Now: t0, MaxScanFiles: tt.maxFiles})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(p.Actions) == 1; got != tt.stale {
			t.Errorf("maxFiles %d: stale = %v, want %v (%+v)", tt.maxFiles, got, tt.stale, p.Actions)
		}
	}
}

func TestApply(t *testing.T) {
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	s := newStore(t, []mem{{"a.md", "tabs", "indentation", long, 2 * day}, {"b.md", "tabs2", "indentation", long, day},
		{"c.md", "old", "old thing", "from long ago", 400 * day}}, "- [gone](gone.md) — removed")
	ctx := context.Background()
	p, err := PlanDream(ctx, s, Options{Now: t0, Watch: watched, Stats: map[string]recall.StatEntry{"c.md": {IdleSessions: 10}}, Only: []string{"gone.md", "a.md", "c.md"}})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.IndexPath())
	if p.Archives() != 3 {
		t.Fatalf("plan archives %d, want 3: %+v", p.Archives(), p.Actions)
	}
	if after, _ := os.ReadFile(s.IndexPath()); string(after) != string(before) {
		t.Fatal("planning changed the index")
	}
	done, err := Apply(ctx, s, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range done.Actions {
		if !a.Done {
			t.Errorf("not done: %+v", a)
		}
	}
	for _, f := range []string{".archive/a.md", ".archive/c.md", "b.md"} {
		if _, err := os.Stat(filepath.Join(s.Dir(), f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if want := memdir.FormatIndexLine("tabs2", "b.md", "indentation") + "\n"; string(idx) != want {
		t.Errorf("index = %q, want %q", idx, want)
	}
	recs, err := memdir.ReadArchiveLog(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, strings.Join([]string{r.Time.Format(time.RFC3339), r.Run, r.Action, r.File, r.ArchivedTo, r.Survivor}, "|"))
	}
	run := RunID(t0)
	want := []string{
		"2026-06-01T12:00:00Z|" + run + "|dangling|gone.md||",
		"2026-06-01T12:00:00Z|" + run + "|merge|a.md|.archive/a.md|b.md",
		"2026-06-01T12:00:00Z|" + run + "|forget|c.md|.archive/c.md|",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("archive log (-want +got):\n%s", diff)
	}
	for _, r := range recs {
		if len(r.IndexLines) != 1 || !strings.Contains(r.IndexLines[0].Text, "("+r.File+")") {
			t.Errorf("record of %s: index lines %+v; want its one line", r.File, r.IndexLines)
		}
	}
	// A second plan finds nothing left to archive.
	p2, err := PlanDream(ctx, s, Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if p2.Archives() != 0 {
		t.Errorf("second plan archives %d: %+v", p2.Archives(), p2.Actions)
	}
}

func TestKeys(t *testing.T) {
	body := "# Title: not a key\n- database: Postgres 16\n**Port**: 5432\n```\ncode: ignored\n```\nsee http://x.org\nurl: https://example.org\n" +
		"a very long key with many words: no\n数据库：postgres\n> quote: no\n"
	want := map[string]string{"database": "postgres 16", "port": "5432", "url": "https example org", "数据库": "postgres"}
	if diff := cmp.Diff(want, Keys(body)); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"a b c", "a b c", 1},
		{"a b c", "A, b! c.", 1},
		{"a b c", "x y z", 0},
		{"a b c d", "a b c e", 0.5},
		{"", "", 0},
		{"中文测试", "中文测试", 1},
	}
	for _, tt := range tests {
		if got := Jaccard(Shingles(tt.a), Shingles(tt.b)); got != tt.want {
			t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzFindRefs(f *testing.F) {
	for _, s := range []string{"see `a/b.go` and `Foo.Bar()`", "中文 `缺失/文件.go`", "x.go: y", "``", "`.`", "/abs/x.go ../up.go", "`origin/main` github.com/x/y.go `./a/b`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := FindRefs(s)
		for _, p := range append(r.Paths, r.Loose...) {
			if strings.HasPrefix(p, "/") || strings.Contains(p, "..") || p == "" {
				t.Errorf("unsafe path %q from %q", p, s)
			}
		}
		for _, sym := range r.Symbols {
			if symbolName(sym) == "" {
				t.Errorf("empty symbol from %q", s)
			}
		}
		_ = Keys(s)
	})
}
