package memdir

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCondenseLines(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"blank lines between memory lines and around headings go",
			"# Memory\n\n- [a](a.md) — one\n\n\n- [b](b.md) — two\n\n## Team\n\n- [c](c.md) — three\n\n",
			"# Memory\n- [a](a.md) — one\n- [b](b.md) — two\n## Team\n- [c](c.md) — three\n"},
		{"one blank line parts two paragraphs of prose",
			"Notes kept by hand.\n\n\nA second paragraph.\n- [a](a.md) — one\n",
			"Notes kept by hand.\n\nA second paragraph.\n- [a](a.md) — one\n"},
		{"a memory line repeated word for word goes; a different line for the same file stays",
			"- [a](a.md) — one\n- [b](b.md) — two\n- [a](a.md) — one\n- [a](a.md) — other\n",
			"- [a](a.md) — one\n- [b](b.md) — two\n- [a](a.md) — other\n"},
		{"headings left empty go, innermost first; a heading with prose stays",
			"# Memory\n## Old\n### Older\n\n## Kept\nsome words\n## Last\n",
			"# Memory\n## Kept\nsome words\n"},
		{"comments and fenced blocks are kept whole",
			"<!--\n\n- [a](a.md) — one\n\n-->\n```\n\n\n```\n- [a](a.md) — one\n",
			"<!--\n\n- [a](a.md) — one\n\n-->\n```\n\n\n```\n- [a](a.md) — one\n"},
		{"CJK lines", "# 记忆\n\n- [缩进](缩进.md) — 用制表符\n\n- [缩进](缩进.md) — 用制表符\n\n## 空\n",
			"# 记忆\n- [缩进](缩进.md) — 用制表符\n"},
		{"nothing to do", "- [a](a.md) — one\n", "- [a](a.md) — one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nums := CondenseLines(tt.in)
			got, gone := WithoutLines(tt.in, nums)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("condensed (-want +got):\n%s", diff)
			}
			if back := InsertIndexLines(got, gone); len(gone) > 0 && back != tt.in {
				t.Errorf("the removed lines do not give the index back (-want +got):\n%s", cmp.Diff(tt.in, back))
			}
		})
	}
}

// Condensing and taking a memory's line out are logged and undone byte for byte; the memory
// stays in the store, and neither Repair nor Lint puts its line back or asks for it.
func TestCondenseAndUnindexRestore(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, Options{})
	mustAdd(t, s, "alpha", "first")
	mustAdd(t, s, "beta", "second")
	idx, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	before := "# Memory\n\n\n" + strings.ReplaceAll(string(idx), "\n", "\n\n") + "## Empty\n"
	writeRaw(t, s.Dir(), IndexFile, before)

	rec := ArchiveRecord{Run: "r1", Action: ActionIndex, Reason: "over its limits"}
	cut, err := s.CondenseIndex(ctx, rec)
	if err != nil || len(cut) == 0 {
		t.Fatalf("CondenseIndex = %v, %v; want lines", cut, err)
	}
	gone, err := s.Unindex(ctx, "alpha.md", rec)
	if err != nil || len(gone) != 1 {
		t.Fatalf("Unindex = %v, %v; want one line", gone, err)
	}
	if _, err := os.Stat(s.Dir() + "/alpha.md"); err != nil {
		t.Fatalf("the memory itself must stay: %v", err)
	}
	res, err := s.Repair(ctx)
	if err != nil || len(res.Reindexed) != 0 {
		t.Fatalf("Repair = %+v, %v; want nothing re-indexed", res, err)
	}
	diags, err := s.Lint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if strings.Contains(d.Message, "not in MEMORY.md") {
			t.Errorf("lint asks for a line taken out on purpose: %s", d.Message)
		}
	}
	recs, err := ReadArchiveLog(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if out := OutOfIndex(recs); !out["alpha.md"] || len(out) != 1 {
		t.Fatalf("OutOfIndex = %v; want alpha.md only", out)
	}
	rs := Restorable(recs)
	for i := len(rs) - 1; i >= 0; i-- {
		if err := s.Restore(ctx, rs[i], testNow); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(s.IndexPath())
	if diff := cmp.Diff(before, string(got)); diff != "" {
		t.Errorf("restored index (-want +got):\n%s", diff)
	}
	recs, _ = ReadArchiveLog(s.Dir())
	if out := OutOfIndex(recs); len(out) != 0 {
		t.Errorf("OutOfIndex after restore = %v; want none", out)
	}
}
