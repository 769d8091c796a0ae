package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
)

// session writes a transcript with the given prompt and optional title through a Journal.
func session(t *testing.T, env config.Env, cwd, id, prompt, title string, at time.Time) string {
	t.Helper()
	path := SessionPath(env, cwd, id)
	j, err := Open(t.Context(), path, Options{SessionID: id, CWD: cwd, GitBranch: "main", FlushInterval: -1, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	j.Append(&Entry{Type: TypeFileHistorySnapshot, MessageID: "m", Snapshot: []byte(`{}`)})
	u := textEntry(t, TypeUser, "", prompt)
	j.Append(u)
	j.Append(textEntry(t, TypeAssistant, u.UUID, "answer to "+prompt))
	if title != "" {
		j.Append(&Entry{Type: TypeCustomTitle, CustomTitle: title, SessionID: id})
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestListAndFind(t *testing.T) {
	home := t.TempDir()
	env := config.Env{Home: home}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	session(t, env, "/proj/a", "11111111-aaaa", "fix the login bug", "", t0)
	session(t, env, "/proj/a", "22222222-bbbb", "写一个测试", "中文标题", t0.Add(time.Hour))
	session(t, env, "/proj/b", "33333333-cccc", "other project", "", t0.Add(2*time.Hour))
	// Files that are not sessions are ignored.
	dirA := ProjectDir(env, "/proj/a")
	os.WriteFile(filepath.Join(dirA, "agent-deadbeef.jsonl"), []byte(line("user", "x", "")+"\n"), 0o600)
	os.MkdirAll(filepath.Join(dirA, "memory"), 0o700)

	infos, err := List(t.Context(), dirA, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Label, Branch, CWD string }
	var got []row
	for _, i := range infos {
		got = append(got, row{i.ID, i.Label(), i.Branch, i.CWD})
	}
	want := []row{
		{"22222222-bbbb", "中文标题", "main", "/proj/a"},
		{"11111111-aaaa", "fix the login bug", "main", "/proj/a"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
	if !infos[0].LastActivity.Equal(t0.Add(time.Hour).Truncate(time.Millisecond)) || infos[0].Size == 0 {
		t.Fatalf("info = %+v", infos[0])
	}
	all, err := ListAll(t.Context(), env.ProjectsDir(), ListOptions{})
	if err != nil || len(all) != 3 || all[0].ID != "33333333-cccc" {
		t.Fatalf("ListAll = %v, %v", all, err)
	}

	for _, tt := range []struct{ id, want, err string }{
		{"2222", "22222222-bbbb", ""},
		{"33333333-cccc", "33333333-cccc", ""},
		{"9", "", "no session"},
		{"../x", "", "invalid id"},
	} {
		p, err := Find(env.ProjectsDir(), dirA, tt.id)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Find(%q) = %v, want error %q", tt.id, err, tt.err)
			}
			continue
		}
		if err != nil || SessionIDOf(p) != tt.want {
			t.Errorf("Find(%q) = %s, %v; want %s", tt.id, p, err, tt.want)
		}
	}
	// Two sessions share the prefix "": use a common one.
	session(t, env, "/proj/a", "11119999-dddd", "again", "", t0)
	if _, err := Find(env.ProjectsDir(), dirA, "1111"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Find(ambiguous) = %v", err)
	}
}

func TestStatReadsOnlyTheEnds(t *testing.T) {
	// A file whose middle is garbage: listing must not care.
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	head := line("user", "u1", "", `"cwd":"/x","timestamp":"2026-01-01T00:00:00.000Z"`) + "\n"
	middle := strings.Repeat("garbage that is not json\n", 20000)
	tail := `{"type":"ai-title","aiTitle":"AI title"}` + "\n" + line("assistant", "a1", "u1", `"gitBranch":"dev","timestamp":"2026-01-02T00:00:00.000Z"`) + "\n"
	os.WriteFile(p, []byte(head+middle+tail), 0o600)
	info, err := Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{ID: "s", Path: p, Project: filepath.Base(dir), CWD: "/x", Title: "AI title", FirstPrompt: "u1 text", Branch: "dev",
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), LastActivity: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Size: int64(len(head + middle + tail))}
	if diff := cmp.Diff(want, info); diff != "" {
		t.Fatalf("Stat (-want +got):\n%s", diff)
	}
	if _, err := Stat(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Stat(missing) = %v", err)
	}
}

func TestSearch(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p1 := session(t, env, "/w", "s1", "Please FIX the Parser", "", t0)
	p2 := session(t, env, "/w", "s2", "修复解析器的错误", "", t0)
	tests := []struct {
		q    string
		want []string // session:type
	}{
		{"fix the parser", []string{"s1:user", "s1:assistant"}},
		{"解析器", []string{"s2:user", "s2:assistant"}},
		{"nothing like this", nil},
	}
	for _, tt := range tests {
		hits, err := Search(t.Context(), []string{p1, p2}, tt.q, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.SessionID+":"+h.Type)
			if !strings.Contains(strings.ToLower(h.Snippet), strings.ToLower(tt.q)) || h.Time.IsZero() || h.Line == 0 {
				t.Errorf("hit %+v: snippet lacks the query or no time/line", h)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s", tt.q, diff)
		}
	}
	if _, err := Search(t.Context(), []string{p1}, "  ", SearchOptions{}); err == nil {
		t.Error("empty query accepted")
	}
}

func TestArchive(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	old := session(t, env, "/w", "old", "old one", "", now)
	recent := session(t, env, "/w", "new", "new one", "", now)
	os.Chtimes(old, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour))
	os.Chtimes(recent, now.Add(-time.Hour), now.Add(-time.Hour))
	// The old session has a subagent directory that must move with it.
	writeSubagent(t, old, "a1", `{"agentId":"a1"}`)

	opts := ArchiveOptions{OlderThan: 30 * 24 * time.Hour, Now: func() time.Time { return now }}
	moves, err := Archive(t.Context(), env.ProjectsDir(), opts)
	if err != nil || len(moves) != 1 || moves[0].Moved || moves[0].SessionID != "old" {
		t.Fatalf("dry run = %+v, %v", moves, err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatal("dry run moved the file")
	}

	// Retention without a setting does nothing.
	if m, err := Retention(t.Context(), env, 0, now); m != nil || err != nil {
		t.Fatalf("Retention without cleanupPeriodDays = %v, %v", m, err)
	}
	// A failed rename leaves the transcript where it was.
	opts.Apply = true
	opts.FS = &faultyAppendFS{failRename: 1}
	moves, err = Archive(t.Context(), env.ProjectsDir(), opts)
	if err == nil || moves[0].Moved {
		t.Fatalf("Archive with a failing rename = %+v, %v", moves, err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("transcript gone after a failed rename: %v", err)
	}

	moves, err = Retention(t.Context(), env, 30, now)
	if err != nil || len(moves) != 1 || !moves[0].Moved {
		t.Fatalf("Retention = %+v, %v", moves, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatal("old transcript still in place")
	}
	if _, err := os.Stat(moves[0].To); err != nil {
		t.Fatalf("archived transcript missing: %v", err)
	}
	if _, err := os.Stat(SubagentPath(moves[0].To, "a1")); err != nil {
		t.Fatalf("subagent not moved with its session: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatal("recent transcript moved")
	}
	// Archived sessions are not listed.
	infos, _ := ListAll(t.Context(), env.ProjectsDir(), ListOptions{})
	if len(infos) != 1 || infos[0].ID != "new" {
		t.Fatalf("listing after archive = %v", infos)
	}
}

func TestArchiveSkipsALockedSession(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	now := time.Now()
	p := session(t, env, "/w", "busy", "busy", "", now)
	os.Chtimes(p, now.Add(-100*24*time.Hour), now.Add(-100*24*time.Hour))
	j, err := Open(t.Context(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close(t.Context())
	moves, err := Archive(t.Context(), env.ProjectsDir(), ArchiveOptions{OlderThan: time.Hour, Apply: true})
	if !errors.Is(err, ErrLocked) || len(moves) != 1 || moves[0].Moved {
		t.Fatalf("Archive of a locked session = %+v, %v", moves, err)
	}
}

func TestListIndex(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p1 := session(t, env, "/w", "s1", "first", "", t0)
	session(t, env, "/w", "s2", "second", "", t0.Add(time.Minute))
	index := filepath.Join(t.TempDir(), "cache", "list.gob")
	opts := ListOptions{Index: index}
	dir := ProjectDir(env, "/w")
	want, err := List(t.Context(), dir, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // builds the index, then uses it
		got, err := List(t.Context(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("indexed listing differs (-want +got):\n%s", diff)
		}
	}
	// A listing that finds nothing changed does not rewrite the index.
	before, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := List(t.Context(), dir, opts); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(index); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("index rewritten by an unchanged listing (%v)", err)
	}
	// A changed file is read again: the index never shows stale data.
	j, err := Open(t.Context(), p1, Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	j.Append(&Entry{Type: TypeCustomTitle, CustomTitle: "renamed"})
	j.Append(textEntry(t, TypeUser, "", "more"))
	j.Close(t.Context())
	got, err := List(t.Context(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != "s1" || got[0].Title != "renamed" {
		t.Fatalf("after a change: %+v", got[0])
	}
	// A corrupt index is reported and rebuilt.
	os.WriteFile(index, []byte("garbage"), 0o600)
	got, err = List(t.Context(), dir, opts)
	if err == nil || len(got) != 2 {
		t.Fatalf("corrupt index: %d sessions, err %v", len(got), err)
	}
	if _, err := List(t.Context(), dir, opts); err != nil {
		t.Fatalf("index not rebuilt: %v", err)
	}
}

func TestSearchEscapedUnicode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	// Written by a tool that escapes non-ASCII ("解析器" as \u89e3\u6790\u5668).
	os.WriteFile(p, []byte(`{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"\u89e3\u6790\u5668 ok"}}`+"\n"), 0o600)
	hits, err := Search(t.Context(), []string{p}, "解析器", SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
}

// FuzzStat feeds arbitrary files to the listing's head/tail scanner (and its key extraction).
func FuzzStat(f *testing.F) {
	f.Add([]byte(`{"type":"custom-title","customTitle":"t"}` + "\n" + line("user", "u", "", `"cwd":"/x","timestamp":"2026-01-01T00:00:00.000Z"`) + "\n"))
	f.Add([]byte(`{"cwd":"a\"b\\","gitBranch":"\u00e9","timestamp":"x"}`))
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"\`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		info, err := Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != int64(len(data)) {
			t.Fatalf("size %d, want %d", info.Size, len(data))
		}
		keyString(data, "cwd")
	})
}

func FuzzIndex(f *testing.F) {
	var w indexWriter
	w.add(1, fileKey{Size: 3, MTime: 9, CTime: -1, Ino: 1 << 40}, &Info{ID: "s", Path: "/p/x/s.jsonl", Project: "x", Size: 3,
		Title: "标题", Branch: "b", Created: time.Unix(5, 0).UTC(), LastActivity: time.Unix(6, 0).UTC()})
	w.add(0, fileKey{}, &Info{ID: "t", Path: "/p/x/t.jsonl", Project: "x", FirstPrompt: "解析器 ok"})
	f.Add(w.bytes())
	f.Add([]byte(indexMagic + "\x05"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeIndex(string(data))
		if err != nil {
			return
		}
		var w indexWriter
		for k := range got.entries {
			w.copy(got.entries[k].Pos, got, k)
		}
		again, err := decodeIndex(string(w.bytes()))
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if diff := cmp.Diff(indexInfos(got), indexInfos(again)); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// indexInfos returns what idx holds: each entry's key and Info.
func indexInfos(idx *listIndex) []indexEntryInfo {
	var out []indexEntryInfo
	for k, e := range idx.entries {
		x := indexEntryInfo{Pos: e.Pos, Key: e.Key}
		idx.info(k, &x.Info)
		out = append(out, x)
	}
	return out
}

type indexEntryInfo struct {
	Pos  int
	Key  fileKey
	Info Info
}

// TestListIndexFreshness checks that a listing with the index always agrees with one that
// reads every file, right after each kind of change, however quickly it follows.
func TestListIndexFreshness(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p1 := session(t, env, "/w", "s1", "first", "", t0)
	p2 := session(t, env, "/w", "s2", "second", "标题", t0.Add(time.Minute))
	session(t, env, "/w", "s3", "third", "", t0.Add(2*time.Minute))
	dir := ProjectDir(env, "/w")
	opts := ListOptions{Index: filepath.Join(t.TempDir(), "index")}
	check := func(t *testing.T, wantN int) []Info {
		t.Helper()
		want, err := List(t.Context(), dir, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the listing that notices the change, then one from the updated index
			got, err := List(t.Context(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("indexed listing differs (-want +got):\n%s", diff)
			}
		}
		if len(want) != wantN {
			t.Fatalf("%d sessions, want %d", len(want), wantN)
		}
		return want
	}
	check(t, 3)
	// sameSize rewrites path with its content changed in place, keeping size and mtime.
	sameSize := func(t *testing.T, path, old, new string, byRename bool) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		data = []byte(strings.Replace(string(data), old, new, 1))
		if byRename {
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("append a moment ago", func(t *testing.T) {
		f, err := os.OpenFile(p1, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"parentUuid":null,"type":"user","message":{"role":"user","content":"later"},"uuid":"u9","timestamp":"2026-03-01T12:00:00Z","sessionId":"s1","gitBranch":"dev"}` + "\n")
		f.Close()
		got := check(t, 3)
		if got[0].ID != "s1" || got[0].Branch != "dev" {
			t.Fatalf("the appended session is not newest: %+v", got[0])
		}
	})
	t.Run("new and removed files", func(t *testing.T) {
		session(t, env, "/w", "s4", "fourth", "", t0.Add(3*time.Minute))
		if err := os.Remove(SessionPath(env, "/w", "s3")); err != nil {
			t.Fatal(err)
		}
		check(t, 3)
	})
	t.Run("not regular files", func(t *testing.T) {
		if err := os.Symlink(p2, filepath.Join(dir, "link.jsonl")); err != nil {
			t.Skip("no symlinks:", err)
		}
		os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o700)
		check(t, 3)
	})
	if runtime.GOOS != "linux" {
		return // the index keys on ctime and inode only where statx gives them
	}
	t.Run("same size and mtime, in place", func(t *testing.T) {
		sameSize(t, p2, "标题", "题目", false)
		if got := check(t, 3); !slices.ContainsFunc(got, func(i Info) bool { return i.Title == "题目" }) {
			t.Fatalf("rewritten title not listed: %+v", got)
		}
	})
	t.Run("same size and mtime, by rename", func(t *testing.T) {
		sameSize(t, p2, "题目", "名字", true)
		if got := check(t, 3); !slices.ContainsFunc(got, func(i Info) bool { return i.Title == "名字" }) {
			t.Fatalf("rewritten title not listed: %+v", got)
		}
	})
}

// TestListAllIndex lists more project directories than ListAll keeps open (the last ones are
// stat-ed by full path) and checks the indexed listing against a full read after a change in
// one of them.
func TestListAllIndex(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var last string
	for i := range maxOpenDirs + 6 {
		cwd := fmt.Sprintf("/p/%03d", i)
		for j := range 2 {
			id := fmt.Sprintf("s%03d-%d", i, j)
			last = session(t, env, cwd, id, "prompt of "+id, "", t0.Add(time.Duration(2*i+j)*time.Minute))
		}
	}
	os.Symlink(last, filepath.Join(filepath.Dir(last), "link.jsonl"))
	opts := ListOptions{Index: filepath.Join(t.TempDir(), "index")}
	check := func() {
		t.Helper()
		want, err := ListAll(t.Context(), env.ProjectsDir(), ListOptions{})
		if err != nil || len(want) != 2*(maxOpenDirs+6) {
			t.Fatalf("ListAll: %d sessions, %v", len(want), err)
		}
		for range 2 {
			got, err := ListAll(t.Context(), env.ProjectsDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("indexed ListAll differs (-want +got):\n%s", diff)
			}
		}
	}
	check()
	f, err := os.OpenFile(last, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"custom-title","customTitle":"最后","sessionId":"x"}` + "\n")
	f.Close()
	check()
	if got, _ := ListAll(t.Context(), env.ProjectsDir(), opts); !slices.ContainsFunc(got, func(i Info) bool { return i.Title == "最后" }) {
		t.Fatal("the appended title is not listed")
	}
}

func TestListCancelled(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	session(t, env, "/w", "s1", "first", "", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, opts := range []ListOptions{{}, {Index: filepath.Join(t.TempDir(), "index")}} {
		if infos, err := List(ctx, ProjectDir(env, "/w"), opts); !errors.Is(err, context.Canceled) || infos != nil {
			t.Errorf("List(cancelled, %+v) = %v, %v", opts, infos, err)
		}
	}
}

// A first prompt longer than the head window (a pasted 100 KB log, a message with images) is
// still the session's title, and the line's timestamp, cwd and branch are read.
func TestStatLongFirstPrompt(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	for _, n := range []int{TailWindow - 100, TailWindow + 10, 100 << 10, 900 << 10} {
		prompt := "请看这个日志 look at this log: " + strings.Repeat("x", n)
		path := session(t, env, "/src/app", fmt.Sprintf("long-%d", n), prompt, "", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		info, err := Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := titleText(prompt); info.Title != want || info.FirstPrompt == "" {
			t.Errorf("%d-byte prompt: title %q, want %q", n, info.Title, want)
		}
		if info.Created.IsZero() || info.CWD != "/src/app" || info.Branch != "main" {
			t.Errorf("%d-byte prompt: created %v, cwd %q, branch %q", n, info.Created, info.CWD, info.Branch)
		}
	}
}

// TestIndexTitleSameAsFirstPrompt: a title or last prompt equal to the first prompt is
// written once and read back as it was, and every other combination round-trips too.
func TestIndexTitleSameAsFirstPrompt(t *testing.T) {
	infos := []Info{
		{Title: "修复解析器", FirstPrompt: "修复解析器", LastPrompt: "修复解析器"},
		{Title: "fix the parser", FirstPrompt: "fix the parser"},
		{Title: "an AI title", FirstPrompt: "fix the parser", LastPrompt: "fix the parser"},
		{Title: "", FirstPrompt: "", LastPrompt: ""},
		{Title: "", FirstPrompt: "x", LastPrompt: ""},
		{Title: "a", FirstPrompt: "", LastPrompt: "a"},
		{Title: "파서 수정", FirstPrompt: "파서", LastPrompt: "다른 프롬프트"},
	}
	var w indexWriter
	for k := range infos {
		infos[k].ID = fmt.Sprintf("s%d", k)
		infos[k].Path = "/p/x/" + infos[k].ID + ".jsonl"
		infos[k].Project = "x"
		w.add(k, fileKey{Size: int64(k)}, &infos[k])
	}
	idx, err := decodeIndex(string(w.bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range infos {
		var got Info
		idx.info(k, &got)
		got.Size = want.Size
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("entry %d (-want +got):\n%s", k, diff)
		}
	}
	// The first entry's title and last prompt are not repeated: its rest is shorter than one
	// that spells them out.
	var spelled indexWriter
	spelled.add(0, fileKey{}, &Info{Path: "/p/x/s0.jsonl", Title: "修复解析器!", FirstPrompt: "修复解析器", LastPrompt: "修复解析器!"})
	var same indexWriter
	same.add(0, fileKey{}, &infos[0])
	if len(same.b) >= len(spelled.b)-2*len("修复解析器") {
		t.Errorf("a title equal to the first prompt is stored again: %d bytes against %d", len(same.b), len(spelled.b))
	}
}

// The decoded index is kept for the next listing while its file is unchanged, and read again
// as soon as anything rewrites it, even to the same size.
func TestListIndexCache(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	session(t, env, "/w", "s1", "first", "", t0)
	session(t, env, "/w", "s2", "第二个会话", "", t0.Add(time.Minute))
	dir := ProjectDir(env, "/w")
	index := filepath.Join(t.TempDir(), "index")
	if _, err := List(t.Context(), dir, ListOptions{Index: index}); err != nil {
		t.Fatal(err)
	}
	a, err := loadIndex(index)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadIndex(index)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || len(a.entries) != 2 {
		t.Fatalf("unchanged index decoded again (%p, %p) or wrong (%d entries)", a, b, len(a.entries))
	}
	// Lookups by path build the map once, whatever the number of listings sharing the index.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if a.find(a.entries[1].Path) != 1 || a.find(filepath.Join(dir, "none.jsonl")) != -1 {
				t.Error("find on a shared index")
			}
		})
	}
	wg.Wait()
	// Rewritten in place to the same size (an entry's path made unreadable as a varint
	// count): the next load reads it, reports it corrupt, and the listing rebuilds it.
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[len(indexMagic)] = 0xff       // the entry count: a varint that never ends in time
	time.Sleep(10 * time.Millisecond) // a modification time the file system can tell apart
	if err := os.WriteFile(index, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadIndex(index); err == nil {
		t.Fatal("a rewritten index was taken from the cache")
	}
	got, err := List(t.Context(), dir, ListOptions{Index: index})
	if err == nil || len(got) != 2 {
		t.Fatalf("corrupt index: %d sessions, err %v", len(got), err)
	}
	c, err := loadIndex(index)
	if err != nil || c == a || len(c.entries) != 2 {
		t.Fatalf("rebuilt index: %v, same as the old one: %v", err, c == a)
	}
}
