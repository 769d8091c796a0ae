package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writeFile writes content to dir/name and returns the path and its mtime.
func writeFile(t testing.TB, dir, name, content string) (string, time.Time) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, mtime(t, p)
}

func mtime(t testing.TB, p string) time.Time {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// touch moves p's mtime by d without changing its content.
func touch(t testing.TB, p string, d time.Duration) time.Time {
	t.Helper()
	m := mtime(t, p).Add(d)
	if err := os.Chtimes(p, m, m); err != nil {
		t.Fatal(err)
	}
	return mtime(t, p)
}

func TestNormalizePath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, _ := writeFile(t, dir, "real/a.go", "package a")
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "alias.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, base, in, want string
	}{
		{"absolute", "", real, real},
		{"relative to dir", dir, "real/a.go", real},
		{"dot dot", dir, "real/../real/./a.go", real},
		{"symlinked dir", dir, "link/a.go", real},
		{"symlinked file", dir, "alias.go", real},
		{"missing file in symlinked dir", dir, "link/new.go", filepath.Join(dir, "real", "new.go")},
		{"missing dir", dir, "nope/x/../y.go", filepath.Join(dir, "nope", "y.go")},
		{"chinese name", dir, "real/../文档/说明.md", filepath.Join(dir, "文档", "说明.md")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizePath(tt.base, tt.in); got != tt.want {
				t.Errorf("NormalizePath(%q, %q) = %q, want %q", tt.base, tt.in, got, tt.want)
			}
		})
	}
}

func TestRereadStub(t *testing.T) {
	dir := t.TempDir()
	p, m := writeFile(t, dir, "a.txt", "one\ntwo\nthree\n")
	later := m.Add(time.Second)
	tests := []struct {
		name     string
		recorded FileState
		offset   int
		limit    int
		mtime    time.Time
		want     bool
	}{
		{"identical whole file", FileState{}, 0, 0, m, true},
		{"identical range", FileState{Offset: 2, Limit: 1}, 2, 1, m, true},
		{"other offset", FileState{Offset: 2, Limit: 1}, 1, 1, m, false},
		{"other limit", FileState{Offset: 2, Limit: 1}, 2, 5, m, false},
		{"range after whole file", FileState{}, 1, 2, m, false},
		{"mtime changed", FileState{}, 0, 0, later, false},
		{"partial view", FileState{Partial: true, Source: SourceInjected}, 0, 0, m, false},
		{"injected full view", FileState{Source: SourceInjected}, 0, 0, m, false},
		{"written by the agent", FileState{Source: SourceWrite}, 0, 0, m, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewReadCache(ReadCacheOptions{})
			st := tt.recorded
			st.Path, st.Content, st.ModTime = p, "one\ntwo\nthree\n", m
			if err := c.Record(st); err != nil {
				t.Fatal(err)
			}
			stub, ok := c.Reread(p, tt.offset, tt.limit, tt.mtime)
			if ok != tt.want {
				t.Fatalf("Reread hit = %v, want %v", ok, tt.want)
			}
			if ok && stub != UnchangedStub {
				t.Fatalf("stub = %q", stub)
			}
			if !ok && stub != "" {
				t.Fatalf("miss returned text %q", stub)
			}
		})
	}
	t.Run("never read", func(t *testing.T) {
		c := NewReadCache(ReadCacheOptions{})
		if _, ok := c.Reread(p, 0, 0, m); ok {
			t.Fatal("stub for a file never read")
		}
	})
	t.Run("stub is short", func(t *testing.T) {
		if len(UnchangedStub) > 200 || !strings.Contains(UnchangedStub, "unchanged") {
			t.Fatalf("stub %q", UnchangedStub)
		}
	})
}

func TestCheckWritable(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, c *ReadCache, p string, m time.Time)
		wantErr error
	}{
		{"never read", func(*testing.T, *ReadCache, string, time.Time) {}, ErrNotRead},
		{"read in full", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
		}, nil},
		{"read a range", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "bo", ModTime: m, Offset: 1, Limit: 1})
		}, nil},
		{"partial view", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "bod", ModTime: m, Partial: true, Source: SourceInjected})
		}, ErrPartialView},
		{"partial view then a real read", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "bod", ModTime: m, Partial: true, Source: SourceInjected})
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
		}, nil},
		{"real read then partial injection keeps the full view", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
			c.Record(FileState{Path: p, Content: "bod", ModTime: m, Partial: true, Source: SourceInjected})
		}, nil},
		{"written by the agent", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m, Source: SourceWrite})
		}, nil},
		{"modified on disk", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
			os.WriteFile(p, []byte("changed"), 0o600)
			touch(t, p, 2*time.Second)
		}, ErrModified},
		{"touched, same content, full view", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
			touch(t, p, 2*time.Second)
		}, nil},
		{"touched, ranged view", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m, Offset: 1, Limit: 1})
			touch(t, p, 2*time.Second)
		}, ErrModified},
		{"touched, restored without content", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			if _, err := c.Restore(t.Context(), []FileState{{Path: p, ModTime: m}}); err != nil {
				t.Fatal(err)
			}
			touch(t, p, 2*time.Second)
		}, ErrModified},
		{"removed from the cache", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
			c.Remove(p)
		}, ErrNotRead},
		{"cleared by compaction", func(t *testing.T, c *ReadCache, p string, m time.Time) {
			c.Record(FileState{Path: p, Content: "body", ModTime: m})
			c.Clear()
		}, ErrNotRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p, m := writeFile(t, dir, "f.md", "body")
			c := NewReadCache(ReadCacheOptions{Dir: dir})
			tt.setup(t, c, p, m)
			err := c.CheckWritable("f.md") // relative: the key must still match
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("CheckWritable = %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "f.md") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	t.Run("new file may be created", func(t *testing.T) {
		c := NewReadCache(ReadCacheOptions{})
		if err := c.CheckWritable(filepath.Join(t.TempDir(), "new.go")); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMtimeChangeInvalidatesStub(t *testing.T) {
	dir := t.TempDir()
	p, m := writeFile(t, dir, "a.go", "package a")
	c := NewReadCache(ReadCacheOptions{})
	c.Record(FileState{Path: p, Content: "package a", ModTime: m})
	if _, ok := c.Reread(p, 0, 0, m); !ok {
		t.Fatal("identical re-read missed")
	}
	m2 := touch(t, p, time.Second)
	if _, ok := c.Reread(p, 0, 0, m2); ok {
		t.Fatal("stub after an mtime change")
	}
	c.Record(FileState{Path: p, Content: "package a", ModTime: m2})
	if _, ok := c.Reread(p, 0, 0, m2); !ok {
		t.Fatal("no stub after recording the new view")
	}
	if _, ok := c.Reread(p, 0, 0, m); ok {
		t.Fatal("stub for the old mtime")
	}
}

func TestChineseContentSizes(t *testing.T) {
	han := strings.Repeat("记忆", 50) // 100 characters, 300 bytes
	c := NewReadCache(ReadCacheOptions{MaxEntries: 10, MaxBytes: 1000})
	for i := range 3 {
		c.Record(FileState{Path: fmt.Sprintf("/x/中文%d.md", i), Content: han})
	}
	if got := c.Bytes(); got != 900 {
		t.Fatalf("Bytes = %d, want 900 (3 files of 100 Han characters = 300 bytes each)", got)
	}
	c.Record(FileState{Path: "/x/中文3.md", Content: han})
	if got, n := c.Bytes(), c.Len(); got != 900 || n != 3 {
		t.Fatalf("after a 4th file: %d bytes in %d entries, want 900 in 3", got, n)
	}
	if _, ok := c.Get("/x/中文0.md"); ok {
		t.Fatal("oldest file not evicted")
	}
}

func TestOversizedContentKeepsMetadata(t *testing.T) {
	c := NewReadCache(ReadCacheOptions{MaxBytes: 10})
	c.Record(FileState{Path: "/a", Content: "small"})
	c.Record(FileState{Path: "/big", Content: strings.Repeat("x", 11), ModTime: time.Unix(5, 0)})
	st, ok := c.Get("/big")
	if !ok || st.HasContent || st.Content != "" || !st.ModTime.Equal(time.Unix(5, 0)) {
		t.Fatalf("big entry = %+v, %v; want metadata without content", st, ok)
	}
	if c.Bytes() != 5 || c.Len() != 2 {
		t.Fatalf("Bytes %d Len %d, want 5 and 2", c.Bytes(), c.Len())
	}
}

// model is the simplest possible LRU: a slice, most recent first.
type model struct {
	maxEntries int
	maxBytes   int64
	items      []modelItem
}

type modelItem struct {
	key  string
	size int64
}

func (m *model) bytes() (n int64) {
	for _, it := range m.items {
		n += it.size
	}
	return n
}

func (m *model) index(key string) int {
	for i, it := range m.items {
		if it.key == key {
			return i
		}
	}
	return -1
}

func (m *model) record(key string, size int64) {
	if size > m.maxBytes {
		size = 0
	}
	if i := m.index(key); i >= 0 {
		m.items = append(m.items[:i], m.items[i+1:]...)
	}
	m.items = append([]modelItem{{key, size}}, m.items...)
	for len(m.items) > m.maxEntries || m.bytes() > m.maxBytes {
		m.items = m.items[:len(m.items)-1]
	}
}

func (m *model) touch(key string) bool {
	i := m.index(key)
	if i < 0 {
		return false
	}
	it := m.items[i]
	m.items = append(m.items[:i], m.items[i+1:]...)
	m.items = append([]modelItem{it}, m.items...)
	return true
}

func (m *model) remove(key string) {
	if i := m.index(key); i >= 0 {
		m.items = append(m.items[:i], m.items[i+1:]...)
	}
}

func TestLRUAgainstModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 42))
			maxEntries, maxBytes := 1+r.IntN(6), int64(1+r.IntN(120))
			c := NewReadCache(ReadCacheOptions{MaxEntries: maxEntries, MaxBytes: maxBytes})
			m := &model{maxEntries: maxEntries, maxBytes: maxBytes}
			mt := time.Unix(1, 0)
			for step := range 2000 {
				key := fmt.Sprintf("/m/f%d", r.IntN(10))
				var op string
				switch x := r.IntN(100); {
				case x < 60:
					op = "record"
					content := strings.Repeat("字", r.IntN(int(maxBytes)/3+3))
					c.Record(FileState{Path: key, Content: content, ModTime: mt})
					m.record(key, int64(len(content)))
				case x < 90:
					op = "reread"
					_, hit := c.Reread(key, 0, 0, mt)
					if want := m.touch(key); hit != want {
						t.Fatalf("step %d: Reread(%s) hit=%v, model says %v", step, key, hit, want)
					}
				case x < 98:
					op = "remove"
					c.Remove(key)
					m.remove(key)
				default:
					op = "clear"
					c.Clear()
					m.items = nil
				}
				var got, want []modelItem
				for _, st := range c.Recent(0) {
					got = append(got, modelItem{st.Path, st.size()})
				}
				want = m.items
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(modelItem{}), cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("step %d (%s %s): order (-model +cache):\n%s", step, op, key, diff)
				}
				if c.Bytes() != m.bytes() || c.Len() != len(m.items) {
					t.Fatalf("step %d: cache %d bytes/%d entries, model %d/%d", step, c.Bytes(), c.Len(), m.bytes(), len(m.items))
				}
				if c.Len() > maxEntries || c.Bytes() > maxBytes {
					t.Fatalf("step %d: limits broken: %d entries, %d bytes", step, c.Len(), c.Bytes())
				}
			}
		})
	}
}

func TestDefaultLimits(t *testing.T) {
	c := NewReadCache(ReadCacheOptions{})
	for i := range 150 {
		c.Record(FileState{Path: fmt.Sprintf("/d/%d", i), Content: "x"})
	}
	if c.Len() != 100 {
		t.Fatalf("Len = %d, want 100", c.Len())
	}
	mb := strings.Repeat("y", 1<<20)
	for i := range 30 {
		c.Record(FileState{Path: fmt.Sprintf("/big/%d", i), Content: mb})
	}
	if c.Bytes() > 25<<20 || c.Len() != 25 {
		t.Fatalf("after 30 MB: %d bytes in %d entries, want 25 entries within 25 MB", c.Bytes(), c.Len())
	}
}

func TestRecentOrder(t *testing.T) {
	c := NewReadCache(ReadCacheOptions{})
	for _, p := range []string{"/a", "/b", "/c", "/d"} {
		c.Record(FileState{Path: p, Content: p, ModTime: time.Unix(1, 0)})
	}
	c.Reread("/b", 0, 0, time.Unix(1, 0)) // a hit makes /b the most recent
	var got []string
	for _, st := range c.Recent(3) {
		got = append(got, st.Content)
	}
	if diff := cmp.Diff([]string{"/b", "/d", "/c"}, got); diff != "" {
		t.Fatalf("Recent(3) (-want +got):\n%s", diff)
	}
}

func TestSnapshotRestore(t *testing.T) {
	dir := t.TempDir()
	pa, ma := writeFile(t, dir, "a.go", "package a")
	pb, mb := writeFile(t, dir, "笔记.md", "内容")
	pc, mc := writeFile(t, dir, "c.go", "package c")
	pd, md := writeFile(t, dir, "d.go", "package d")
	c := NewReadCache(ReadCacheOptions{})
	c.Record(FileState{Path: pa, Content: "package a", ModTime: ma})
	c.Record(FileState{Path: pb, Content: "内容", ModTime: mb, Offset: 1, Limit: 20})
	c.Record(FileState{Path: pc, Content: "package c", ModTime: mc})
	c.Record(FileState{Path: pd, Content: "pack", ModTime: md, Partial: true, Source: SourceInjected})

	data, err := json.Marshal(c.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "package a") {
		t.Fatalf("snapshot carries content: %s", data)
	}
	var states []FileState
	if err := json.Unmarshal(data, &states); err != nil {
		t.Fatal(err)
	}
	touch(t, pc, time.Second)
	os.Remove(pa)

	r := NewReadCache(ReadCacheOptions{})
	skipped, err := r.Restore(t.Context(), states)
	if err != nil {
		t.Fatal(err)
	}
	var skippedPaths []string
	for _, s := range skipped {
		skippedPaths = append(skippedPaths, filepath.Base(s.Path)+": "+s.Reason)
	}
	if diff := cmp.Diff([]string{"a.go: no longer exists", "c.go: modified since it was read"}, skippedPaths); diff != "" {
		t.Fatalf("skipped (-want +got):\n%s", diff)
	}
	var order []string
	for _, st := range r.Recent(0) {
		order = append(order, filepath.Base(st.Path))
	}
	if diff := cmp.Diff([]string{"d.go", "笔记.md"}, order); diff != "" {
		t.Fatalf("restored order (-want +got):\n%s", diff)
	}
	if _, ok := r.Reread(pb, 1, 20, mb); !ok {
		t.Error("restored range view does not give the stub")
	}
	if err := r.CheckWritable(pd); !errors.Is(err, ErrPartialView) {
		t.Errorf("restored partial view: CheckWritable = %v", err)
	}
	if err := r.CheckWritable(pb); err != nil {
		t.Errorf("restored view: CheckWritable = %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewReadCache(ReadCacheOptions{}).Restore(ctx, states); !errors.Is(err, context.Canceled) {
		t.Errorf("Restore with a cancelled context = %v", err)
	}
}

func TestRestoreFromReadToolUses(t *testing.T) {
	dir := t.TempDir()
	p1, m1 := writeFile(t, dir, "kept.go", "x")
	p2, m2 := writeFile(t, dir, "changed.go", "y")
	var states []FileState
	for _, tc := range []struct {
		path string
		at   time.Time
	}{{p1, m1.Add(time.Minute)}, {p2, m2.Add(-time.Minute)}} {
		in, _ := json.Marshal(map[string]any{"file_path": tc.path, "offset": 3, "limit": 10})
		st, err := FileStateFromReadInput(in, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, st)
	}
	c := NewReadCache(ReadCacheOptions{})
	skipped, err := c.Restore(t.Context(), states)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || filepath.Base(skipped[0].Path) != "changed.go" {
		t.Fatalf("skipped = %+v, want changed.go (modified after the read)", skipped)
	}
	if _, ok := c.Reread(p1, 3, 10, m1); !ok {
		t.Fatal("view rebuilt from a Read tool use gives no stub")
	}
}

func TestFileStateFromReadInput(t *testing.T) {
	at := time.Unix(100, 0)
	tests := []struct {
		in      string
		want    FileState
		wantErr bool
	}{
		{`{"file_path":"/a/b.go"}`, FileState{Path: "/a/b.go", Source: SourceRead, At: at}, false},
		{`{"file_path":"/a/说明.md","offset":5,"limit":20}`, FileState{Path: "/a/说明.md", Offset: 5, Limit: 20, Source: SourceRead, At: at}, false},
		{`{"file_path":"/a","offset":null}`, FileState{Path: "/a", Source: SourceRead, At: at}, false},
		{`{"offset":1}`, FileState{}, true},
		{`{"file_path":"","notebook_path":"/n.ipynb"}`, FileState{}, true},
		{`{"file_path":"/a","limit":-1}`, FileState{}, true},
		{`{"file_path":"/a","limit":"10"}`, FileState{}, true},
		{`[]`, FileState{}, true},
		{``, FileState{}, true},
	}
	for _, tt := range tests {
		got, err := FileStateFromReadInput([]byte(tt.in), at)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestFileStateFromToolUse(t *testing.T) {
	at := time.Unix(100, 0)
	tests := []struct {
		name, in string
		want     FileState
		wantOK   bool
		wantErr  bool
	}{
		{"Read", `{"file_path":"/a","limit":5}`, FileState{Path: "/a", Limit: 5, Source: SourceRead, At: at}, true, false},
		{"Write", `{"file_path":"/a/新.md","content":"x"}`, FileState{Path: "/a/新.md", Source: SourceWrite, At: at}, true, false},
		{"Edit", `{"file_path":"/a","old_string":"x","new_string":"y"}`, FileState{Path: "/a", Source: SourceWrite, At: at}, true, false},
		{"MultiEdit", `{"file_path":"/a","edits":[]}`, FileState{Path: "/a", Source: SourceWrite, At: at}, true, false},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb","new_source":""}`, FileState{Path: "/n.ipynb", Source: SourceWrite, At: at}, true, false},
		{"Edit", `{"old_string":"x"}`, FileState{}, true, true},
		{"Bash", `{"command":"cat /a"}`, FileState{}, false, false},
		{"TodoWrite", `not json`, FileState{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := FileStateFromToolUse(tt.name, []byte(tt.in), at)
			if ok != tt.wantOK || (err != nil) != tt.wantErr {
				t.Fatalf("ok=%v err=%v, want ok=%v err=%v", ok, err, tt.wantOK, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzFileStateFromReadInput(f *testing.F) {
	f.Add([]byte(`{"file_path":"/a/b.go","offset":1,"limit":2000}`))
	f.Add([]byte(`{"file_path":"相对/路径.md"}`))
	f.Add([]byte(`{"file_path":"","offset":1e9}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, tool := range []string{"Edit", "NotebookEdit"} {
			if st, ok, err := FileStateFromToolUse(tool, in, time.Unix(1, 0)); err == nil && (!ok || st.Path == "" || st.Source != SourceWrite) {
				t.Fatalf("%s: accepted invalid state %+v from %q", tool, st, in)
			}
		}
		st, err := FileStateFromReadInput(in, time.Unix(1, 0))
		if err != nil {
			return
		}
		if st.Path == "" || st.Offset < 0 || st.Limit < 0 || st.Source != SourceRead {
			t.Fatalf("accepted invalid state %+v from %q", st, in)
		}
	})
}

func TestReadCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	var mtimes []time.Time
	for i := range 8 {
		p, m := writeFile(t, dir, fmt.Sprintf("f%d.txt", i), strings.Repeat("数据", i+1))
		paths, mtimes = append(paths, p), append(mtimes, m)
	}
	c := NewReadCache(ReadCacheOptions{MaxEntries: 5, MaxBytes: 60})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 500 {
				i := r.IntN(len(paths))
				switch r.IntN(6) {
				case 0, 1:
					c.Record(FileState{Path: paths[i], Content: strings.Repeat("数据", i+1), ModTime: mtimes[i]})
				case 2:
					c.Reread(paths[i], 0, 0, mtimes[i])
				case 3:
					if err := c.CheckWritable(paths[i]); err != nil && !errors.Is(err, ErrNotRead) {
						t.Errorf("CheckWritable: %v", err)
					}
				case 4:
					c.Recent(5)
				case 5:
					c.Snapshot()
				}
			}
		})
	}
	wg.Wait()
	var sum int64
	for _, st := range c.Recent(0) {
		sum += st.size()
	}
	if c.Len() > 5 || c.Bytes() > 60 || sum != c.Bytes() {
		t.Fatalf("after concurrent use: %d entries, %d bytes (sum of entries %d)", c.Len(), c.Bytes(), sum)
	}
}

// BenchmarkRereadHit measures the hit path of the read cache: normalising the path (with symlink
// resolution) and answering with the stub.
func BenchmarkRereadHit(b *testing.B) {
	dir := b.TempDir()
	c := NewReadCache(ReadCacheOptions{})
	var paths []string
	var mtimes []time.Time
	for i := range 100 {
		p, m := writeFile(b, dir, fmt.Sprintf("pkg/file%d.go", i), "package pkg")
		c.Record(FileState{Path: p, Content: "package pkg", ModTime: m})
		paths, mtimes = append(paths, p), append(mtimes, m)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, ok := c.Reread(paths[i%100], 0, 0, mtimes[i%100]); !ok {
			b.Fatal("miss")
		}
		i++
	}
}

// BenchmarkRereadHitParallel is the hit path under contention from all cores.
func BenchmarkRereadHitParallel(b *testing.B) {
	dir := b.TempDir()
	c := NewReadCache(ReadCacheOptions{})
	p, m := writeFile(b, dir, "hot.go", "package hot")
	c.Record(FileState{Path: p, Content: "package hot", ModTime: m})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := c.Reread(p, 0, 0, m); !ok {
				b.Fatal("miss")
			}
		}
	})
}

func TestRereadThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	p, m := writeFile(t, dir, "real/a.go", "package a")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "real"), link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	c := NewReadCache(ReadCacheOptions{})
	c.Record(FileState{Path: filepath.Join(link, "a.go"), Content: "package a", ModTime: m})
	if _, ok := c.Reread(p, 0, 0, m); !ok {
		t.Fatal("real path misses an entry recorded through a symlink")
	}
	if _, ok := c.Reread(filepath.Join(link, "x", "..", "a.go"), 0, 0, m); !ok {
		t.Fatal("symlinked path misses")
	}
	if c.Len() != 1 {
		t.Fatalf("%d entries for one file", c.Len())
	}
}

// BenchmarkRereadHitSymlink is the hit path when the path needs its symlinks resolved.
func BenchmarkRereadHitSymlink(b *testing.B) {
	dir := b.TempDir()
	p, m := writeFile(b, dir, "real/pkg/file.go", "package pkg")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "real"), link); err != nil {
		b.Skip(err)
	}
	c := NewReadCache(ReadCacheOptions{})
	c.Record(FileState{Path: p, Content: "package pkg", ModTime: m})
	via := filepath.Join(link, "pkg", "file.go")
	for b.Loop() {
		if _, ok := c.Reread(via, 0, 0, m); !ok {
			b.Fatal("miss")
		}
	}
}
