package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/memdir"
)

// memText renders a memory file as the extractor would write it.
func memText(name, desc, typ, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: %s\n---\n\n%s\n", name, desc, typ, body)
}

// tree lists every path under dir (symlinks not followed) with its kind and content, so a test
// can assert that nothing changed.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "symlink -> " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newConfined makes a memory dir inside a fresh temp dir, next to an "outside" dir holding a
// sentinel file, and opens a Confined on it.
func newConfined(t *testing.T, mode WriteMode, opts memdir.Options) (c *Confined, s *memdir.Store, memDir, outside string) {
	t.Helper()
	base := t.TempDir()
	memDir = filepath.Join(base, "memory")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{memDir, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := memdir.Open(memDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err = OpenConfined(s, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, s, memDir, outside
}

func TestParseWriteMode(t *testing.T) {
	for in, want := range map[string]WriteMode{"": WriteAuto, "auto": WriteAuto, " confirm ": WriteConfirm, "read-only": WriteReadOnly} {
		got, err := ParseWriteMode(in)
		if err != nil || got != want {
			t.Errorf("ParseWriteMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseWriteMode("yes")
	if err == nil || !strings.Contains(err.Error(), "auto, confirm or read-only") {
		t.Errorf("ParseWriteMode(yes) error = %v; want one naming the choices", err)
	}
}

func TestConfinedWriteAuto(t *testing.T) {
	ctx := t.Context()
	c, s, dir, _ := newConfined(t, WriteAuto, memdir.Options{})
	text := memText("部署流程", "如何部署到生产环境", "project", "先运行 make release，再在群里通知。")
	msg, err := c.Write(ctx, "部署.md", text)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "created 部署.md") {
		t.Errorf("message %q does not say what was created", msg)
	}
	data, err := os.ReadFile(filepath.Join(dir, "部署.md"))
	if err != nil || string(data) != text {
		t.Fatalf("file = %q, %v; want %q", data, err, text)
	}
	fi, _ := os.Stat(filepath.Join(dir, "部署.md"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v; want 0600", fi.Mode().Perm())
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if want := "- [部署流程](部署.md) — 如何部署到生产环境\n"; string(idx) != want {
		t.Errorf("index = %q; want %q", idx, want)
	}
	// The absolute spelling works too, and an update says so.
	msg, err = c.Write(ctx, filepath.Join(dir, "部署.md"), memText("部署流程", "部署步骤", "project", "新的步骤"))
	if err != nil || !strings.Contains(msg, "updated") {
		t.Fatalf("second Write = %q, %v", msg, err)
	}
	idx, _ = os.ReadFile(s.IndexPath())
	if want := "- [部署流程](部署.md) — 部署步骤\n"; string(idx) != want {
		t.Errorf("index = %q; want %q", idx, want)
	}
	if diff := cmp.Diff([]string{"部署.md"}, c.Written()); diff != "" {
		t.Errorf("Written (-want +got):\n%s", diff)
	}
	if len(c.Denied()) != 0 {
		t.Errorf("Denied = %v; want none", c.Denied())
	}
	// No temp file is left behind.
	for p := range tree(t, dir) {
		if strings.Contains(p, ".tmp") {
			t.Errorf("temp file %s left", p)
		}
	}
}

func TestConfinedEdit(t *testing.T) {
	ctx := t.Context()
	c, _, dir, _ := newConfined(t, WriteAuto, memdir.Options{})
	if _, err := c.Write(ctx, "tabs.md", memText("tabs", "indent with tabs", "feedback", "tabs. tabs.")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		old, new string
		all      bool
		wantErr  string
		want     string
	}{
		{old: "tabs.", new: "x", wantErr: "occurs 2 times"},
		{old: "nothing", new: "x", wantErr: "not found"},
		{old: "", new: "x", wantErr: "empty"},
		{old: "tabs.", new: "制表符。", all: true, want: "制表符。 制表符。"},
		{old: "制表符。 ", new: "", want: "制表符。"},
	} {
		_, err := c.Edit(ctx, "tabs.md", tc.old, tc.new, tc.all)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, ErrDenied) {
				t.Errorf("Edit(%q) error = %v; want a plain error with %q", tc.old, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Edit(%q): %v", tc.old, err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "tabs.md"))
		if !strings.HasSuffix(string(data), "\n"+tc.want+"\n") {
			t.Errorf("after Edit(%q) file = %q; want body %q", tc.old, data, tc.want)
		}
	}
	if _, err := c.Edit(ctx, "missing.md", "a", "b", false); err == nil || !strings.Contains(err.Error(), "no such memory file") {
		t.Errorf("Edit of a missing file: %v", err)
	}
	// An edit that breaks a rule is refused and leaves the file alone.
	before, _ := os.ReadFile(filepath.Join(dir, "tabs.md"))
	if _, err := c.Edit(ctx, "tabs.md", "制表符。", "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", false); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "secret") {
		t.Errorf("secret edit error = %v; want a denial naming a secret", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "tabs.md"))
	if string(before) != string(after) {
		t.Errorf("refused edit changed the file: %q", after)
	}
}

func TestConfinedConfirmStages(t *testing.T) {
	ctx := t.Context()
	c, _, dir, _ := newConfined(t, WriteConfirm, memdir.Options{})
	live := memText("tabs", "indent with tabs", "feedback", "always tabs")
	if err := os.WriteFile(filepath.Join(dir, "tabs.md"), []byte(live), 0o600); err != nil {
		t.Fatal(err)
	}
	// An edit with no staged copy reads the live file and stages the result.
	msg, err := c.Edit(ctx, "tabs.md", "always tabs", "always tabs, width 4", false)
	if err != nil || !strings.Contains(msg, "staged") {
		t.Fatalf("Edit = %q, %v", msg, err)
	}
	// A second edit reads the staged copy.
	if _, err := c.Edit(ctx, "tabs.md", "width 4", "width 8", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, "新.md", memText("新记忆", "中文描述", "user", "用户喜欢简短的回答。")); err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{
		".":              "dir",
		"tabs.md":        live,
		".inbox":         "dir",
		".inbox/tabs.md": memText("tabs", "indent with tabs", "feedback", "always tabs, width 8"),
		".inbox/新.md":    memText("新记忆", "中文描述", "user", "用户喜欢简短的回答。"),
	}
	delete(got, memdir.LockFile)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dir (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".inbox/tabs.md", ".inbox/新.md"}, c.Written()); diff != "" {
		t.Errorf("Written (-want +got):\n%s", diff)
	}
}

func TestConfinedReadOnly(t *testing.T) {
	c, _, dir, _ := newConfined(t, WriteReadOnly, memdir.Options{})
	before := tree(t, dir)
	_, err1 := c.Write(t.Context(), "a.md", memText("a", "b", "user", "c"))
	_, err2 := c.Edit(t.Context(), "a.md", "b", "c", false)
	for _, err := range []error{err1, err2} {
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("error = %v; want a read-only denial", err)
		}
	}
	if len(c.Denied()) != 2 {
		t.Errorf("Denied = %v; want 2", c.Denied())
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("read-only changed the dir (-before +after):\n%s", diff)
	}
}

func TestConfinedIndexFullPutsBack(t *testing.T) {
	ctx := t.Context()
	c, _, dir, _ := newConfined(t, WriteAuto, memdir.Options{MaxIndexLines: 1})
	if _, err := c.Write(ctx, "one.md", memText("one", "first", "user", "1")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	_, err := c.Write(ctx, "two.md", memText("two", "second", "user", "2"))
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), "put back") {
		t.Fatalf("error = %v; want a denial about the index limit", err)
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("refused write changed the dir (-before +after):\n%s", diff)
	}
	// Replacing the existing memory keeps the index at one line: allowed, and a refused
	// replacement puts the old content back.
	if _, err := c.Write(ctx, "one.md", memText("one", "first, updated", "user", "1b")); err != nil {
		t.Fatal(err)
	}
}

func TestConfinedRefusals(t *testing.T) {
	good := memText("ok", "fine", "user", "body")
	for _, tc := range []struct {
		name, path, content, want string
		setup                     func(t *testing.T, dir, outside string)
	}{
		{name: "empty path", path: "", want: "empty path"},
		{name: "dotdot", path: "../x.md", want: `".."`},
		{name: "dotdot inside", path: "a/../b.md", want: `".."`},
		{name: "absolute outside", path: "/etc/passwd.md", want: "absolute path outside"},
		{name: "subdir", path: "sub/x.md", want: "no subdirectories"},
		{name: "NUL", path: "x\x00.md", want: "NUL"},
		{name: "control", path: "x\n.md", want: "control character"},
		{name: "bidi override", path: "x\u202egnp.md", want: "invisible formatting"},
		{name: "backslash", path: `..\x.md`, want: "backslash"},
		{name: "fullwidth solidus", path: "a\uff0fb.md", want: "look-alike of a path separator"},
		{name: "division slash", path: "a\u2215b.md", want: "look-alike of a path separator"},
		{name: "fullwidth dots", path: "\uff0e\uff0ex.md", want: "hidden"},
		{name: "hidden", path: ".x.md", want: "hidden"},
		{name: "inbox", path: ".inbox/x.md", want: "no subdirectories"},
		{name: "archive", path: ".archive", want: "hidden"},
		{name: "not md", path: "x.txt", want: "*.md"},
		{name: "index", path: "MEMORY.md", want: "index strata keeps"},
		{name: "index case", path: "memory.MD", want: "*.md"},
		{name: "index lower", path: "memory.md", want: "index strata keeps"},
		{name: "guidance", path: "EXTRACT.md", want: "user's guidance"},
		{name: "long name", path: strings.Repeat("长", 70) + ".md", want: "byte limit"},
		{name: "dir itself", path: ".", want: "memory dir itself"},
		{name: "invalid utf8 path", path: "\xff.md", want: "UTF-8"},
		{name: "too big", path: "big.md", content: good + strings.Repeat("x", MaxWriteBytes), want: "KB limit"},
		{name: "invalid utf8 content", path: "x.md", content: good + "\xff\xfe", want: "not valid UTF-8"},
		{name: "NUL content", path: "x.md", content: good + "a\x00b", want: "line 8 contains the control character U+0000"},
		{name: "escape content", path: "x.md", content: good + "\x1b[2J", want: "control character U+001B"},
		{name: "secret", path: "x.md", content: good + "aws: AKIAIOSFODNN7QWERTYU\n", want: "line 8 looks like a secret"},
		{name: "no frontmatter", path: "x.md", content: "just text\n", want: "no frontmatter"},
		{name: "bad type", path: "x.md", content: memText("x", "d", "note", "b"), want: `type "note"`},
		{name: "no description", path: "x.md", content: "---\nname: x\ntype: user\n---\nb\n", want: "no description"},
		{name: "bad name", path: "x.md", content: memText("a/b", "d", "user", "b"), want: "path separator"},
		{name: "duplicate name", path: "other.md", content: memText("Taken", "d", "user", "b"), want: "already lives in taken.md",
			setup: func(t *testing.T, dir, _ string) {
				mustWrite(t, filepath.Join(dir, "taken.md"), memText("taken", "d", "user", "b"))
			}},
		{name: "symlink out", path: "link.md", want: "not a regular file (a symlink)",
			setup: func(t *testing.T, dir, outside string) {
				mustSymlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md"))
			}},
		{name: "symlink inside", path: "link.md", want: "not a regular file (a symlink)",
			setup: func(t *testing.T, dir, _ string) {
				mustWrite(t, filepath.Join(dir, "real.md"), memText("real", "d", "user", "b"))
				mustSymlink(t, "real.md", filepath.Join(dir, "link.md"))
			}},
		{name: "directory", path: "d.md", want: "not a regular file (a directory)",
			setup: func(t *testing.T, dir, _ string) { os.Mkdir(filepath.Join(dir, "d.md"), 0o700) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, dir, outside := newConfined(t, WriteAuto, memdir.Options{})
			if tc.setup != nil {
				tc.setup(t, dir, outside)
			}
			content := tc.content
			if content == "" {
				content = good
			}
			before, beforeOut := tree(t, dir), tree(t, outside)
			_, err := c.Write(t.Context(), tc.path, content)
			if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write(%q) error = %v; want a denial containing %q", tc.path, err, tc.want)
			}
			d := c.Denied()
			if len(d) != 1 || d[0].Path != tc.path || !strings.Contains(d[0].Reason, tc.want) {
				t.Errorf("Denied = %q; want one for %q", d, tc.path)
			}
			after := tree(t, dir)
			delete(after, memdir.LockFile)
			delete(before, memdir.LockFile)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("memory dir changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(beforeOut, tree(t, outside)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
			if len(c.Written()) != 0 {
				t.Errorf("Written = %v; want none", c.Written())
			}
		})
	}
}

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// TestConfinedSwapBeforeWrite replaces the target with a symlink out of the dir between the
// checks and the write: the rename replaces the link itself, so nothing outside changes.
func TestConfinedSwapBeforeWrite(t *testing.T) {
	c, _, dir, outside := newConfined(t, WriteAuto, memdir.Options{})
	beforeOut := tree(t, outside)
	c.beforeCommit = func(rel string) {
		mustSymlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, rel))
	}
	if _, err := c.Write(t.Context(), "swap.md", memText("swap", "d", "user", "mine")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(beforeOut, tree(t, outside)); diff != "" {
		t.Errorf("outside changed (-before +after):\n%s", diff)
	}
	fi, err := os.Lstat(filepath.Join(dir, "swap.md"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("swap.md = %v, %v; want a regular file", fi, err)
	}
}

func TestConfinedClosed(t *testing.T) {
	c, _, _, _ := newConfined(t, WriteAuto, memdir.Options{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(t.Context(), "a.md", memText("a", "b", "user", "c")); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Write after Close = %v; want a denial", err)
	}
}

// TestConfinedConcurrentWithStore writes through a Confined from several goroutines while the
// store's own Add runs too: every memory must end up in its file and in the index once.
func TestConfinedConcurrentWithStore(t *testing.T) {
	ctx := t.Context()
	c, s, _, _ := newConfined(t, WriteAuto, memdir.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 8 {
		wg.Go(func() {
			_, err := c.Write(ctx, fmt.Sprintf("c%d.md", i), memText(fmt.Sprintf("记忆%d", i), "written by the extractor", "project", "正文"))
			errs <- err
		})
		wg.Go(func() {
			_, err := s.Add(ctx, memdir.Input{Name: fmt.Sprintf("main%d", i), Description: "written by the main agent", Type: memdir.TypeUser})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	idx, err := s.LoadIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries := memdir.ParseIndex([]byte(idx.Content()))
	if len(entries) != 16 {
		t.Errorf("index has %d entries; want 16:\n%s", len(entries), idx.Content())
	}
	mems, _, err := s.List(ctx)
	if err != nil || len(mems) != 16 {
		t.Errorf("List = %d memories, %v; want 16", len(mems), err)
	}
}
