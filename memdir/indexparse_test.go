package memdir

import (
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkEntryFile fails unless e.File is a clean, relative ".md" path that stays in the dir.
func checkEntryFile(t *testing.T, e IndexEntry, input string) {
	t.Helper()
	f := e.File
	if f == "" || path.IsAbs(f) || path.Clean(f) != f || !strings.HasSuffix(f, ".md") || path.Base(f) == ".md" {
		t.Fatalf("entry file %q from %q is not a clean relative .md path", f, input)
	}
	for _, part := range strings.Split(f, "/") {
		if part == ".." {
			t.Fatalf("entry file %q from %q leaves the dir", f, input)
		}
	}
}

// entryAt is an entry reduced to its line and file.
type entryAt struct {
	Line int
	File string
}

func lineFiles(entries []IndexEntry) []entryAt {
	out := []entryAt{}
	for _, e := range entries {
		out = append(out, entryAt{e.Line, e.File})
	}
	return out
}

func TestParseIndex(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []entryAt
	}{
		{"Claude Code's shape", "# Memory\n\n## User\n- [Role](user_role.md) — data scientist\n  - [Nested](nested.md) - detail\n\nSome prose with [a link](prose.md).\n## Feedback\n- [Tabs](feedback_tabs.md) — use tabs\n",
			[]entryAt{{4, "user_role.md"}, {5, "nested.md"}, {9, "feedback_tabs.md"}}},
		{"one-line comment", "<!-- - [Example](example.md) — hook -->\n- [A](a.md)\n",
			[]entryAt{{2, "a.md"}}},
		{"multi-line comment", "<!--\nExample of an index line:\n- [Title](file.md) — hook\n-->\n- [A](a.md)\n",
			[]entryAt{{5, "a.md"}}},
		{"indented comment, closed mid-line", "- [A](a.md)\n  <!-- old:\n  - [Old](old.md)\n  end --> trailing\n- [B](b.md)\n",
			[]entryAt{{1, "a.md"}, {5, "b.md"}}},
		{"unclosed comment is no comment", "<!-- never closed\n- [A](a.md)\n",
			[]entryAt{{2, "a.md"}}},
		{"backtick fence", "```markdown\n- [Example](example.md)\n```\n- [A](a.md)\n",
			[]entryAt{{4, "a.md"}}},
		{"tilde fence closed by a longer run", "~~~\n- [X](x.md)\n~~~~\n- [A](a.md)\n",
			[]entryAt{{4, "a.md"}}},
		{"a shorter or different run does not close", "````\n```\n- [X](x.md)\n~~~~\n````\n- [A](a.md)\n",
			[]entryAt{{6, "a.md"}}},
		{"unclosed fence is no fence", "```\n- [A](a.md)\n",
			[]entryAt{{2, "a.md"}}},
		{"inline code is no fence", "```x`y```\n- [A](a.md)\n",
			[]entryAt{{2, "a.md"}}},
		{"comment opener inside a fence", "```\n<!--\n```\n- [A](a.md)\n-->\n",
			[]entryAt{{4, "a.md"}}},
		{"fence inside a comment", "<!--\n```\n-->\n- [A](a.md)\n```\n",
			[]entryAt{{4, "a.md"}}},
		{"BOM and CRLF", "\ufeff- [A](a.md)\r\n<!--\r\n- [X](x.md)\r\n-->\r\n- [B](b.md#why)\r\n",
			[]entryAt{{1, "a.md"}, {5, "b.md"}}},
		{"external links are no entries", "- [Docs](https://example.com/a.md)\n- [Mail](mailto:me@example.com)\n- [Up](../plans/INDEX.md)\n",
			[]entryAt{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseIndex([]byte(tt.text))
			if diff := cmp.Diff(tt.want, lineFiles(got)); diff != "" {
				t.Errorf("ParseIndex (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIndexEditsSkipComments: the store's edits see the entries ParseIndex sees, so an example
// in a comment is never replaced or removed, and a real line after it is.
func TestIndexEditsSkipComments(t *testing.T) {
	base := "<!--\n- [a](a.md) — example\n-->\n```\n- [a](a.md) — in code\n```\n- [a](a.md) — real\n"
	got := setIndexLine(base, "a.md", "- [a](a.md) — new")
	want := "<!--\n- [a](a.md) — example\n-->\n```\n- [a](a.md) — in code\n```\n- [a](a.md) — new\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("set (-want +got):\n%s", diff)
	}
	got, n := removeIndexLines(base, "a.md")
	if want := "<!--\n- [a](a.md) — example\n-->\n```\n- [a](a.md) — in code\n```\n"; got != want || n != 1 {
		t.Errorf("remove = %q, %d; want %q, 1", got, n, want)
	}
	// Only commented out: not indexed, so set appends.
	got = setIndexLine("<!-- - [b](b.md) -->\n", "b.md", "- [b](b.md) — b")
	if want := "<!-- - [b](b.md) -->\n- [b](b.md) — b\n"; got != want {
		t.Errorf("append = %q, want %q", got, want)
	}
	// A BOM on the first line survives the replacement of that line.
	got = setIndexLine("\ufeff- [a](a.md) — old\r\n- [b](b.md)\r\n", "a.md", "- [a](a.md) — new")
	if want := "\ufeff- [a](a.md) — new\n- [b](b.md)\r\n"; got != want {
		t.Errorf("BOM line = %q, want %q", got, want)
	}
}

func FuzzParseIndex(f *testing.F) {
	for _, s := range []string{
		"# Memory\n- [A](a.md) — hook\n  - [B](b.md#why) - x\n",
		"<!--\n- [X](x.md)\n-->\n- [A](./a.md)\n",
		"```\n- [X](x.md)\n```\n~~~\n<!--\n~~~\n- [A](a%20b.md)\n",
		"<!-- unclosed\n```\n- [한](한.md)\n",
		"\ufeff1. [A](<a b.md>)\r\n2) [B](b.md \"t\")\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries := ParseIndex([]byte(text))
		lines := splitLines(text)
		last := 0
		for _, e := range entries {
			checkEntryFile(t, e, text)
			if e.Line <= last || e.Line > len(lines) {
				t.Fatalf("entry line %d after %d of %d lines", e.Line, last, len(lines))
			}
			last = e.Line
			// The entry is what the line says on its own: context only decides whether it counts.
			l := strings.TrimSuffix(lines[e.Line-1], "\r")
			if e.Line == 1 {
				l = strings.TrimPrefix(l, "\ufeff")
			}
			one, ok := ParseIndexLine(l)
			one.Line = e.Line
			if !ok || one != e {
				t.Fatalf("line %d %q: in context %+v, alone %+v, %v", e.Line, l, e, one, ok)
			}
		}
		// The store's edits act on exactly these entries.
		for _, e := range entries {
			want := 0
			for _, o := range entries {
				if o.File == e.File {
					want++
				}
			}
			out, n := removeIndexLines(text, e.File)
			if n != want {
				t.Fatalf("removed %d lines of %s, want %d", n, e.File, want)
			}
			rest := ParseIndex([]byte(out))
			if len(rest) != len(entries)-n {
				t.Fatalf("after removing %s: %d entries, want %d", e.File, len(rest), len(entries)-n)
			}
			for _, o := range rest {
				if o.File == e.File {
					t.Fatalf("%s still indexed on line %d after removal", e.File, o.Line)
				}
			}
		}
		// A line set for a file is found again (unless its hook would close a comment).
		for _, file := range []string{"fuzz.md", firstFile(entries)} {
			line := FormatIndexLine("T", file, "h")
			out := setIndexLine(text, file, line)
			found := false
			for _, o := range ParseIndex([]byte(out)) {
				found = found || o.File == file
			}
			if !found {
				t.Fatalf("set %s: not indexed in %q", file, out)
			}
		}
	})
}

func firstFile(entries []IndexEntry) string {
	if len(entries) == 0 {
		return "x.md"
	}
	return entries[0].File
}
