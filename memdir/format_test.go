package memdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// claudeCodeFile is a topic file in current Claude Code's shape: type and modified under
// metadata:, plus keys strata does not know.
const claudeCodeFile = `---
name: branch policy
description: Never merge to main without approval
metadata:
  type: feedback
  modified: 2026-04-30T09:12:44.120Z
  originSessionId: 14c32944-3478-476d-8048-90bfb1869d63
  node_type: memory
# kept by hand
tags:
- git
---

Never merge to main without approval.

**Why:** a bad merge shipped.
`

func TestParseFileMetadataBlock(t *testing.T) {
	m, diags := ParseFile("/m/x.md", "x.md", []byte(claudeCodeFile))
	want := time.Date(2026, 4, 30, 9, 12, 44, 120e6, time.UTC)
	if len(diags) != 0 || m.Type != TypeFeedback || !m.Modified.Equal(want) || m.Name != "branch policy" {
		t.Errorf("ParseFile = type %q modified %v name %q, diags %v", m.Type, m.Modified, m.Name, diags)
	}
	// A plain ISO modified at the top level is read too (YAML decodes it as a time).
	m, _ = ParseFile("/m/y.md", "y.md", []byte("---\nname: y\ntype: user\nmodified: 2026-04-30T09:12:44Z\n---\n"))
	if !m.Modified.Equal(want.Truncate(time.Second)) {
		t.Errorf("top-level modified = %v", m.Modified)
	}
}

// TestAddKeepsUnknownKeys saves memories over existing files and compares bytes: only what the
// save means to change (modified, and the fields given differently) changes.
func TestAddKeepsUnknownKeys(t *testing.T) {
	now := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		old  string
		in   Input
		want string
	}{
		{"same content: only modified moves", claudeCodeFile,
			Input{Name: "branch policy", Description: "Never merge to main without approval", Type: TypeFeedback,
				Body: "Never merge to main without approval.\n\n**Why:** a bad merge shipped.\n"},
			strings.Replace(claudeCodeFile, "2026-04-30T09:12:44.120Z", "2026-05-01T08:00:00.000Z", 1)},
		{"new description and body", claudeCodeFile,
			Input{Name: "branch policy", Description: "Ask before merging", Type: TypeFeedback, Body: "Ask first."},
			strings.NewReplacer("2026-04-30T09:12:44.120Z", "2026-05-01T08:00:00.000Z",
				"description: Never merge to main without approval", "description: Ask before merging",
				"Never merge to main without approval.\n\n**Why:** a bad merge shipped.\n", "Ask first.\n").Replace(claudeCodeFile)},
		{"nested type gets modified beside it", "---\nname: n\ndescription: d\nmetadata:\n  type: user\n  node_type: memory\n---\nbody\n",
			Input{Name: "n", Description: "d", Type: TypeProject, Body: "body"},
			"---\nname: n\ndescription: d\nmetadata:\n  type: project\n  node_type: memory\n  modified: 2026-05-01T08:00:00Z\n---\nbody\n"},
		{"flat file with originSessionId", "---\nname: n\ndescription: d\ntype: project\noriginSessionId: abc\n---\nbody\n",
			Input{Name: "n", Description: "d", Type: TypeProject, Body: "body"},
			"---\nname: n\ndescription: d\ntype: project\noriginSessionId: abc\nmodified: 2026-05-01T08:00:00Z\n---\nbody\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t, Options{Now: func() time.Time { return now }})
			os.MkdirAll(s.Dir(), 0o700)
			os.WriteFile(filepath.Join(s.Dir(), "x.md"), []byte(tt.old), 0o600)
			os.WriteFile(s.IndexPath(), []byte("- ["+tt.in.Name+"](x.md) — "+tt.in.Description+"\n"), 0o600)
			res, err := s.Add(t.Context(), tt.in)
			if err != nil || res.File != "x.md" {
				t.Fatalf("Add = %+v, %v", res, err)
			}
			if diff := cmp.Diff(tt.want, readString(t, filepath.Join(s.Dir(), "x.md"))); diff != "" {
				t.Errorf("file after Add (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAddRewritesWhatItCannotEdit: a frontmatter Set cannot edit in place is written afresh.
func TestAddRewritesWhatItCannotEdit(t *testing.T) {
	s := newTestStore(t, Options{})
	os.MkdirAll(s.Dir(), 0o700)
	os.WriteFile(filepath.Join(s.Dir(), "x.md"), []byte("---\nname: n\nmetadata: {type: user}\n---\nold\n"), 0o600)
	os.WriteFile(s.IndexPath(), []byte("- [n](x.md) — d\n"), 0o600)
	if _, err := s.Add(t.Context(), Input{Name: "n", Description: "d", Type: TypeProject, Body: "new"}); err != nil {
		t.Fatal(err)
	}
	want, _ := Render(Input{Name: "n", Description: "d", Type: TypeProject, Body: "new"}, testNow)
	if got := readString(t, filepath.Join(s.Dir(), "x.md")); got != string(want) {
		t.Errorf("file = %q, want Render's %q", got, want)
	}
}

// TestLintReportsOnlyTheLoadersCut: lint's limit errors are exactly the cuts LoadIndex makes.
func TestLintReportsOnlyTheLoadersCut(t *testing.T) {
	line := "- [배포 절차](deploy.md) — 메인 브랜치에 병합하기 전에 승인을 받는다, 리뷰어 두 명의 승인이 필요하다\n"
	long := "- [deploy](deploy.md) — " + strings.Repeat("x", 300) + "\n"
	tests := []struct {
		name, index string
		want        []string
	}{
		{"Korean over 25,000 bytes", strings.Repeat(line, 195), nil},
		{"long lines past the line cut", strings.Repeat(line, 190) + strings.Repeat(long, 100), []string{"200-line limit"}},
		{"long lines within it", strings.Repeat(long, 150), []string{"25000-character limit"}},
		{"both", strings.Repeat(long, 250), []string{"25000-character limit", "200-line limit"}}, // by line
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := Open(filepath.Join(t.TempDir(), "memory"), Options{}) // duplicate lines on purpose
			os.MkdirAll(s.Dir(), 0o700)
			os.WriteFile(filepath.Join(s.Dir(), "deploy.md"), []byte("---\nname: deploy\ndescription: d\ntype: project\n---\n"), 0o600)
			os.WriteFile(s.IndexPath(), []byte(tt.index), 0o600)
			diags, err := s.Lint(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diags {
				for _, limit := range []string{"200-line limit", "25000-character limit"} {
					if strings.Contains(d.Message, limit) {
						got = append(got, limit)
					}
				}
			}
			it, _ := s.LoadIndex(t.Context())
			if diff := cmp.Diff(tt.want, got); diff != "" || it.Truncated != (len(tt.want) > 0) {
				t.Errorf("lint limits (-want +got):\n%s\nLoadIndex truncated %v", diff, it.Truncated)
			}
		})
	}
}
