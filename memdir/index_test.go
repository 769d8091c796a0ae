package memdir

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-mem/strata/tokens"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/termtext"
)

func TestParseIndexLine(t *testing.T) {
	tests := []struct {
		line string
		want IndexEntry
		ok   bool
	}{
		{"- [Prefer tabs](prefer-tabs.md) — Use tabs", IndexEntry{Title: "Prefer tabs", File: "prefer-tabs.md", Hook: "Use tabs"}, true},
		{"* [A](./a.md): hook", IndexEntry{Title: "A", File: "a.md", Hook: "hook"}, true},
		{"  + [A](a.md) - hook", IndexEntry{Title: "A", File: "a.md", Hook: "hook"}, true},
		{"- [A](a.md)", IndexEntry{Title: "A", File: "a.md"}, true},
		{"- [A](a.md) – en dash", IndexEntry{Title: "A", File: "a.md", Hook: "en dash"}, true},
		{"- [my file](<my file.md>) — x", IndexEntry{Title: "my file", File: "my file.md", Hook: "x"}, true},
		{`- [a \[b\] c](a.md) — x`, IndexEntry{Title: "a [b] c", File: "a.md", Hook: "x"}, true},
		{"- [A](team/a.md#part \"title\") — x", IndexEntry{Title: "A", File: "team/a.md", Hook: "x"}, true},
		{"- [部署流程](部署流程.md) — 如何部署", IndexEntry{Title: "部署流程", File: "部署流程.md", Hook: "如何部署"}, true},
		{"- [A](a.md) — hook\r", IndexEntry{Title: "A", File: "a.md", Hook: "hook"}, true},
		{"# Memory", IndexEntry{}, false},
		{"plain prose [A](a.md)", IndexEntry{}, false},
		{"- [docs](https://example.com/x.md)", IndexEntry{}, false},
		{"- [up](../outside.md)", IndexEntry{}, false},
		{"- [abs](/etc/passwd)", IndexEntry{}, false},
		{"- [broken](a.md", IndexEntry{}, false},
		{"- [no link]", IndexEntry{}, false},
		{"-[A](a.md)", IndexEntry{}, false},
		// Shapes found in real MEMORY.md files.
		{"- [Title](file.md) - hook", IndexEntry{Title: "Title", File: "file.md", Hook: "hook"}, true},
		{"- [Title](file.md) -- hook", IndexEntry{Title: "Title", File: "file.md", Hook: "hook"}, true},
		{"1. [One](one.md) — first", IndexEntry{Title: "One", File: "one.md", Hook: "first"}, true},
		{"12) [Two](two.md)", IndexEntry{Title: "Two", File: "two.md"}, true},
		{"    - [Nested](nested.md) — under a bullet", IndexEntry{Title: "Nested", File: "nested.md", Hook: "under a bullet"}, true},
		{"	* [Tab](tab.md)", IndexEntry{Title: "Tab", File: "tab.md"}, true},
		{"- [Why](prefer-tabs.md#why) — anchor", IndexEntry{Title: "Why", File: "prefer-tabs.md", Hook: "anchor"}, true},
		{"- [Sub](./team/sub.md)", IndexEntry{Title: "Sub", File: "team/sub.md"}, true},
		{"- [In](team/../in.md)", IndexEntry{Title: "In", File: "in.md"}, true},
		{"- [Spaces](my notes file.md) — raw spaces", IndexEntry{Title: "Spaces", File: "my notes file.md", Hook: "raw spaces"}, true},
		{"- [Draft](my (draft).md) — parentheses in the name", IndexEntry{Title: "Draft", File: "my (draft).md", Hook: "parentheses in the name"}, true},
		{"- [Titled](a.md 'single') — x", IndexEntry{Title: "Titled", File: "a.md", Hook: "x"}, true},
		{"- [Titled](a.md (paren)) — x", IndexEntry{Title: "Titled", File: "a.md", Hook: "x"}, true},
		{"- [Escaped](my%20notes%20file.md)", IndexEntry{Title: "Escaped", File: "my notes file.md"}, true},
		{"- [Percent](100%.md)", IndexEntry{Title: "Percent", File: "100%.md"}, true},
		{"- [한국어 메모](한국어_메모.md) — 설명", IndexEntry{Title: "한국어 메모", File: "한국어_메모.md", Hook: "설명"}, true},
		{"- [한](%ED%95%9C%EA%B8%80.md)", IndexEntry{Title: "한", File: "한글.md"}, true},
		{"- [中文](<中文 笔记.md>) — 说明", IndexEntry{Title: "中文", File: "中文 笔记.md", Hook: "说明"}, true},
		{"- [Spiral renderer — Maddie's site](spiral.md) — V6/A14", IndexEntry{Title: "Spiral renderer — Maddie's site", File: "spiral.md", Hook: "V6/A14"}, true},
		{"- [Overlap (M ↔ R)](overlap.md) — bridges", IndexEntry{Title: "Overlap (M ↔ R)", File: "overlap.md", Hook: "bridges"}, true},
		{"- [Becka](becka.md) — **CLOSED — DO NOT CONTACT**", IndexEntry{Title: "Becka", File: "becka.md", Hook: "**CLOSED — DO NOT CONTACT**"}, true},
		{"- [Win](sub\\win.md)", IndexEntry{Title: "Win", File: "sub/win.md"}, true},
		// Not index entries.
		{"## [Heading](heading.md)", IndexEntry{}, false},
		{"<!-- - [Example](example.md) — hook -->", IndexEntry{}, false},
		{"- [All plans](../../../plans/INDEX.md) — outside the dir", IndexEntry{}, false},
		{"- [Escape](%2E%2E/up.md)", IndexEntry{}, false},
		{"- [mail](mailto:someone@example.md)", IndexEntry{}, false},
		{"- [plain http](http:x.md)", IndexEntry{}, false},
		{"- [drive](C:\\notes\\x.md)", IndexEntry{}, false},
		{"- [anchor only](#why)", IndexEntry{}, false},
		{"- [text file](notes.txt)", IndexEntry{}, false},
		{"- [dir](team/)", IndexEntry{}, false},
		{"- [hidden ext](.md)", IndexEntry{}, false},
		{"- [nul](a%00b.md)", IndexEntry{}, false},
		{"- [ ] [task](task.md)", IndexEntry{}, false},
		{"1.[A](a.md)", IndexEntry{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseIndexLine(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseIndexLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFormatIndexLineRoundTrip(t *testing.T) {
	tests := []struct{ title, file, hook string }{
		{"Prefer tabs", "prefer-tabs.md", "Use tabs, not spaces"},
		{"a [b] c\\", "a-b-c.md", "x"},
		{"部署流程", "部署流程.md", "如何部署\n到生产"},
		{"spaces", "my file (1).md", ""},
		{"percent", "100%20.md", "a literal percent sign"},
		{"hash", "c#-notes.md", "not an anchor"},
		{"angle", "a<b>.md", ""},
		{"colon", "note:v2.md", "not a URL scheme"},
		{"한국어", "한국어 메모.md", "설명"},
	}
	for _, tt := range tests {
		line := FormatIndexLine(tt.title, tt.file, tt.hook)
		e, ok := ParseIndexLine(line)
		want := IndexEntry{Title: tt.title, File: tt.file, Hook: termtext.OneLine(tt.hook)}
		if !ok || e != want {
			t.Errorf("round trip of %+v through %q = %+v, %v", tt, line, e, ok)
		}
	}
}

func TestTruncateIndex(t *testing.T) {
	lines := func(n int, width int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- [m%d](m%d.md) — %s\n", i, i, strings.Repeat("x", width))
		}
		return b.String()
	}
	t.Run("under", func(t *testing.T) {
		in := lines(200, 10)
		out, cut, warn := TruncateIndex(in, 200, 25000)
		if cut || warn != "" || out != in {
			t.Errorf("cut=%v warn=%q", cut, warn)
		}
	})
	t.Run("lines", func(t *testing.T) {
		out, cut, warn := TruncateIndex(lines(250, 10), 200, 25000)
		if !cut || countLines(out) != 200 || !strings.Contains(warn, "250 lines (limit: 200 lines)") || strings.Contains(warn, "characters") {
			t.Errorf("lines=%d cut=%v warn=%q", countLines(out), cut, warn)
		}
	})
	t.Run("characters", func(t *testing.T) {
		in := lines(150, 200)
		out, cut, warn := TruncateIndex(in, 200, 25000)
		if !cut || tokens.Chars(out) > 25000 || !strings.HasSuffix(out, "\n") || !strings.Contains(warn, "(limit: 25000 characters)") || strings.Contains(warn, "lines (limit") {
			t.Errorf("len=%d cut=%v warn=%q", len(out), cut, warn)
		}
		if !strings.HasPrefix(in, out) {
			t.Errorf("the cut is not a prefix")
		}
	})
	t.Run("both", func(t *testing.T) {
		_, cut, warn := TruncateIndex(lines(300, 200), 200, 25000)
		if !cut || !strings.Contains(warn, "300 lines (limit: 200 lines) and ") || !strings.Contains(warn, "characters (limit: 25000 characters)") {
			t.Errorf("cut=%v warn=%q", cut, warn)
		}
	})
	t.Run("one long Chinese line", func(t *testing.T) {
		in := strings.Repeat("长", 30000) // 90,000 bytes, no newline
		out, cut, _ := TruncateIndex(in, 200, 25000)
		if !cut || tokens.Chars(out) != 25000 || !utf8.ValidString(out) {
			t.Errorf("chars=%d cut=%v valid=%v", tokens.Chars(out), cut, utf8.ValidString(out))
		}
	})
	t.Run("Korean over 25,000 bytes, under 25,000 characters", func(t *testing.T) {
		in := strings.Repeat("- [배포 절차](deploy.md) — 메인 브랜치에 병합하기 전에 승인을 받는다, 리뷰어 두 명의 승인이 필요하다\n", 195)
		if len(in) <= 25000 {
			t.Fatalf("only %d bytes", len(in))
		}
		out, cut, warn := TruncateIndex(in, 200, 25000)
		if cut || out != in || warn != "" {
			t.Errorf("cut=%v warn=%q", cut, warn)
		}
	})
	t.Run("emoji count two", func(t *testing.T) {
		in := strings.Repeat("😀", 6) + "\n" // 13 characters as JavaScript counts, 7 runes
		if out, cut, _ := TruncateIndex(in, 200, 13); out != in || cut {
			t.Errorf("under: cut=%v", cut)
		}
		if out, cut, _ := TruncateIndex(in, 200, 6); !cut || out != strings.Repeat("😀", 3) {
			t.Errorf("over: out=%q cut=%v", out, cut)
		}
	})
	t.Run("lines cut first, then characters of what is left", func(t *testing.T) {
		// The long lines fall past the 200-line cut: only the line limit is hit.
		out, cut, warn := TruncateIndex(lines(190, 10)+lines(20, 300), 200, 25000)
		if !cut || countLines(out) != 200 || strings.Contains(warn, "characters") {
			t.Errorf("lines=%d warn=%q", countLines(out), warn)
		}
	})
}

func TestLoadIndex(t *testing.T) {
	s := newTestStore(t, Options{MaxIndexLines: 2})
	it, err := s.LoadIndex(t.Context())
	if err != nil || it.Exists || it.Text != "" {
		t.Fatalf("missing index: %+v, %v", it, err)
	}
	mustAdd(t, s, "a", "one")
	mustAdd(t, s, "b", "two")
	it, err = s.LoadIndex(t.Context())
	if err != nil || it.Truncated || it.Content() != "- [a](a.md) — one\n- [b](b.md) — two\n" {
		t.Fatalf("LoadIndex = %+v, %v", it, err)
	}
	// A hand edit pushes it over: loading cuts and warns; nothing is dropped on disk.
	idx, _ := os.ReadFile(s.IndexPath())
	os.WriteFile(s.IndexPath(), append([]byte("\ufeff# Index\r\n"), idx...), 0o600)
	it, _ = s.LoadIndex(t.Context())
	want := "# Index\n- [a](a.md) — one\n\n> WARNING: MEMORY.md is 3 lines (limit: 2 lines), so only part of it was loaded: 1 of 3 lines are left out, from line 3 (\"- [b](b.md) — two\") on."
	if !it.Truncated || it.Lines != 3 || !strings.HasPrefix(it.Content(), want) {
		t.Errorf("Content = %q\nwant prefix %q", it.Content(), want)
	}
	diags, _ := s.Lint(t.Context())
	if Errors(diags) != 1 || !strings.Contains(diags[0].Message, "2-line limit") {
		t.Errorf("Lint = %v; want the line limit error", diags)
	}
	// Shrinking an index that is over its limit is allowed; growing it is not.
	if _, err := s.Forget(t.Context(), "b", false); err != nil {
		t.Errorf("Forget on an over-limit index: %v", err)
	}
}

func TestSetAndRemoveIndexLine(t *testing.T) {
	base := "# Index\n\n- [a](a.md) — one\nprose\n- [b](b.md) — two"
	got := setIndexLine(base, "b.md", "- [b](b.md) — new")
	if diff := cmp.Diff("# Index\n\n- [a](a.md) — one\nprose\n- [b](b.md) — new\n", got); diff != "" {
		t.Errorf("set (-want +got):\n%s", diff)
	}
	got = setIndexLine(base, "c.md", "- [c](c.md)")
	if diff := cmp.Diff(base+"\n- [c](c.md)\n", got); diff != "" {
		t.Errorf("append (-want +got):\n%s", diff)
	}
	got, n := removeIndexLines(base+"\n- [a again](a.md)\n", "a.md")
	if diff := cmp.Diff("# Index\n\nprose\n- [b](b.md) — two\n", got); diff != "" || n != 2 {
		t.Errorf("remove %d (-want +got):\n%s", n, diff)
	}
}

func FuzzParseIndexLine(f *testing.F) {
	for _, s := range []string{"- [A](a.md) — hook", "* [a \\] b](<x y.md>): z", "- [部署](部署.md)", "- [x](../y)", "- [[]]()", "- [a](b(c)d.md)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := ParseIndexLine(line)
		if !ok {
			return
		}
		checkEntryFile(t, e, line)
		// What Format writes, Parse reads back (for titles and files without line breaks).
		if strings.ContainsAny(e.Title+e.File, "\n\r>") || !utf8.ValidString(e.Title) || !utf8.ValidString(e.File) || !utf8.ValidString(e.Hook) {
			return
		}
		again, ok := ParseIndexLine(FormatIndexLine(e.Title, e.File, e.Hook))
		if !ok || again.Title != termtext.OneLine(e.Title) && again.Title != e.Title || again.File != e.File {
			t.Fatalf("round trip of %+v = %+v, %v", e, again, ok)
		}
	})
}

// With no MEMORY.md the model still gets an index, built from the topic files as Claude Code
// builds it; nothing is written.
func TestLoadIndexesBuildsAMissingIndex(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "beta", "second")
	mustAdd(t, s, "阿尔法", "第一")
	if err := os.Remove(s.IndexPath()); err != nil {
		t.Fatal(err)
	}
	other := newTestStore(t, Options{})
	for _, stores := range [][]*Store{{s}, {s, other}} {
		idx, errs := LoadIndexes(t.Context(), stores, nil)
		if errs[0] != nil || !idx[0].Exists || !idx[0].Built {
			t.Fatalf("%d stores: index %+v, %v; want built", len(stores), idx[0], errs[0])
		}
		want := "- [beta](beta.md) — second\n- [阿尔法](阿尔法.md) — 第一\n"
		if idx[0].Text != want {
			t.Errorf("%d stores: built index %q, want %q", len(stores), idx[0].Text, want)
		}
	}
	if _, err := os.Stat(s.IndexPath()); !os.IsNotExist(err) {
		t.Errorf("a MEMORY.md was written: %v", err)
	}
	mustAdd(t, s, "gamma", "third") // the consistency check at the end wants an index again
	if _, err := s.Repair(t.Context()); err != nil {
		t.Fatal(err)
	}
}
