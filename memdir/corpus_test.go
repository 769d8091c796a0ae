package memdir

import (
	"github.com/strata-mem/strata/internal/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusMemoryDir returns the real Claude Code memory directory of the shared corpus, or skips.
func corpusMemoryDir(t *testing.T) string {
	t.Helper()
	return sharedtest.Dir(t, "corpus", "memory", "4444J99__portfolio", ".claude", "memory")
}

// TestRealClaudeCodeMemoryDir reads a real auto-memory directory written by Claude Code: free
// index titles, sections, links outside the dir, links to files that are missing, an index over
// 200 lines. Reading and linting must not change it; an update through a copy must find the
// memory whose index title differs from its name, and change only its line.
func TestRealClaudeCodeMemoryDir(t *testing.T) {
	src := corpusMemoryDir(t)
	before := dirState(t, src)
	s, err := Open(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, diags, err := s.List(t.Context())
	if err != nil || len(mems) == 0 || len(diags) != 0 {
		t.Fatalf("List: %d memories, diags %v, err %v", len(mems), diags, err)
	}
	for _, m := range mems {
		if m.Name == "" || m.Description == "" || !m.Type.Known() {
			t.Errorf("%s: name %q description %q type %q", m.File, m.Name, m.Description, m.Type)
		}
	}
	lint, err := s.Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var dangling, overLimit int
	for _, d := range lint {
		switch {
		case strings.Contains(d.Message, "which does not exist"):
			dangling++
		case strings.Contains(d.Message, "over the 200-line limit"):
			overLimit++
		case strings.Contains(d.Message, "differs from the name"):
			t.Errorf("free Claude Code titles reported: %s", d)
		}
	}
	if dangling == 0 || overLimit != 1 {
		t.Errorf("lint: %d dangling links, %d line-limit errors; want some and 1", dangling, overLimit)
	}
	it, err := s.LoadIndex(t.Context())
	if err != nil || !it.Truncated || countLines(it.Text) != 200 || !strings.Contains(it.Warning, "(limit: 200 lines)") {
		t.Errorf("LoadIndex: truncated %v, %d lines, warning %q, err %v", it.Truncated, countLines(it.Text), it.Warning, err)
	}
	if diff := cmp.Diff(before, dirState(t, src)); diff != "" {
		t.Fatalf("reading changed the corpus (-before +after):\n%s", diff)
	}

	// Update through a copy.
	dst := filepath.Join(t.TempDir(), "memory")
	os.MkdirAll(dst, 0o700)
	for rel, content := range before {
		os.WriteFile(filepath.Join(dst, rel), []byte(content), 0o600)
	}
	c, _ := Open(dst, Options{})
	var target Memory
	for _, m := range mems {
		if m.File == "project_artifact_session_corpus_rescue_2026_04_29.md" {
			target = m
		}
	}
	if target.Name == "" {
		t.Skip("the corpus no longer has the memory this test updates")
	}
	res, err := c.Add(t.Context(), Input{Name: target.Name, Type: target.Type, Description: "updated through strata", Body: "new body"})
	if err != nil || res.File != target.File || res.Created {
		t.Fatalf("Add = %+v, %v; want an update of %s", res, err, target.File)
	}
	oldIdx := splitLines(before[IndexFile])
	newIdx := splitLines(readString(t, filepath.Join(dst, IndexFile)))
	if len(oldIdx) != len(newIdx) {
		t.Fatalf("index went from %d to %d lines", len(oldIdx), len(newIdx))
	}
	changed := 0
	for i := range oldIdx {
		if oldIdx[i] != newIdx[i] {
			changed++
			if !strings.Contains(newIdx[i], "updated through strata") {
				t.Errorf("line %d changed to %q", i+1, newIdx[i])
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d index lines changed, want 1", changed)
	}
	after, _, _ := c.List(t.Context())
	if len(after) != len(mems) {
		t.Errorf("%d memories after the update, want %d (a duplicate was created?)", len(after), len(mems))
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRealClaudeCodeDirCopy works on a copy of the real directory, as written and with every
// file moved to current Claude Code's shape (type and modified under metadata:, plus
// originSessionId and node_type): every memory lists with its type, lint warns about no type,
// and lint's errors are only what Claude Code acts on too (the loader's 200-line cut; index
// lines linking files that are gone, which its consolidation prunes) — never a size limit the
// loader does not apply.
func TestRealClaudeCodeDirCopy(t *testing.T) {
	src := corpusMemoryDir(t)
	for _, nested := range []bool{false, true} {
		dst := filepath.Join(t.TempDir(), "memory")
		os.MkdirAll(dst, 0o700)
		for rel, content := range dirState(t, src) {
			if nested && rel != IndexFile {
				content = strings.Replace(content, "\ntype: ", "\nmetadata:\n  modified: 2025-12-01T10:00:00.000Z\n  originSessionId: 14c32944\n  node_type: memory\n  type: ", 1)
			}
			os.WriteFile(filepath.Join(dst, rel), []byte(content), 0o600)
		}
		s, _ := Open(dst, Options{})
		mems, _, err := s.List(t.Context())
		if err != nil || len(mems) == 0 {
			t.Fatalf("List: %d, %v", len(mems), err)
		}
		for _, m := range mems {
			if !m.Type.Known() || nested && m.Modified.IsZero() {
				t.Errorf("nested %v: %s: type %q modified %v", nested, m.File, m.Type, m.Modified)
			}
		}
		diags, err := s.Lint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			if strings.Contains(d.Message, "no type") || strings.Contains(d.Message, "unknown type") {
				t.Errorf("nested %v: %s", nested, d)
			}
			if d.Severity == SevError && !strings.Contains(d.Message, "which does not exist") && !strings.Contains(d.Message, "200-line limit") {
				t.Errorf("nested %v: an error Claude Code would not act on: %s", nested, d)
			}
		}
	}
}
