package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestProjectFilesFind(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"internal/chatui/model.go", "internal/chatui/view.go", "cmd/strata/main.go", "docs/chat.md", "vendor/x/model.go", ".github/ci.yml", "README.md"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o700)
		os.WriteFile(filepath.Join(root, f), nil, 0o600)
	}
	ignored := func(abs string, isDir bool) bool { return strings.HasSuffix(abs, "/vendor") }
	now := time.Now()
	p := &projectFiles{root: root, ignored: ignored, now: func() time.Time { return now }}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"model", []string{"internal/chatui/model.go"}},                                               // vendor/ is ignored
		{"chat", []string{"docs/chat.md", "internal/chatui/view.go", "internal/chatui/model.go"}},     // the name first, then the path
		{"icv", []string{"internal/chatui/view.go"}},                                                  // a subsequence
		{"ci", []string{"internal/chatui/view.go", "internal/chatui/model.go", "cmd/strata/main.go"}}, // hidden files only for a query with a dot
		{".git", []string{".github/ci.yml"}},
		{"zzz", nil},
	} {
		if diff := cmp.Diff(tt.want, p.Find(tt.q, 5)); diff != "" {
			t.Errorf("Find(%q) (-want +got):\n%s", tt.q, diff)
		}
	}
	// The listing is kept for a while, then taken again.
	os.WriteFile(filepath.Join(root, "new.go"), nil, 0o600)
	if got := p.Find("new.go", 5); slices.Contains(got, "new.go") {
		t.Errorf("a fresh listing was not reused: %q", got)
	}
	now = now.Add(time.Minute)
	if got := p.Find("new.go", 5); len(got) == 0 || got[0] != "new.go" {
		t.Errorf("a stale listing was not taken again: %q", got)
	}
}
