package instructions

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTouchOutsideCwd: nested instruction files load for directories below the working
// directory only (issue 2, DESIGN.md "Layer 3a"; the reference behaves the same: sibling
// subtrees never load each other's files). A touched path elsewhere in the project adds no
// nested file, but a conditional rule of the loaded hierarchy whose glob matches it applies.
func TestTouchOutsideCwd(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":                "root\n",
		"repo/.claude/rules/go.md":      "---\npaths: \"**/*.go\"\n---\nGo rule\n",
		"repo/sub/CLAUDE.md":            "sub\n",
		"repo/sub/inner/CLAUDE.md":      "inner\n",
		"repo/other/CLAUDE.md":          "other\n",
		"repo/other/deep/CLAUDE.md":     "other deep\n",
		"outside/CLAUDE.md":             "not in the project\n",
		"outside/deep/CLAUDE.md":        "not in the project\n",
		"repo/other/deep/.keep":         "",
		"repo/sub/inner/deeper/file.md": "x\n",
	})
	s := f.load("repo/sub")
	if diff := cmp.Diff([]string{"project:session_start:repo/CLAUDE.md", "project:session_start:repo/sub/CLAUDE.md"}, f.rel(s.Sources())); diff != "" {
		t.Fatalf("start (-want +got):\n%s", diff)
	}
	tests := []struct {
		touch string
		want  []string
	}{
		{"../other/deep/x.txt", nil},
		{filepath.Join(f.dir, "repo", "other", "y.txt"), nil},
		{filepath.Join(f.dir, "outside", "deep", "z.go"), nil},
		{"../other/deep/x.go", []string{"rule:path_glob_match:repo/.claude/rules/go.md"}},
		{"inner/deeper/file.md", []string{"nested:nested_traversal:repo/sub/inner/CLAUDE.md"}},
	}
	for _, tt := range tests {
		got := f.rel(s.Touch(context.Background(), tt.touch))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("touch %s (-want +got):\n%s", tt.touch, diff)
		}
	}
}
