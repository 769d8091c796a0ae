package instructions

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestGitignored: the exported check gives git's answer for directories and files, nested
// .gitignore files and negations included.
func TestGitignored(t *testing.T) {
	dir := t.TempDir()
	for p, body := range map[string]string{
		".gitignore":     "build/\n*.log\n!keep.log\n",
		"sub/.gitignore": "生成/\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o700)
		os.WriteFile(filepath.Join(dir, p), []byte(body), 0o600)
	}
	s, err := Load(context.Background(), dir, Options{ProjectRoot: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"build", true, true},
		{"build", false, false},
		{"build/x.go", false, true},
		{"a.log", false, true},
		{"keep.log", false, false},
		{"src", true, false},
		{"sub/生成", true, true},
		{"生成", true, false},
	} {
		if got := s.Gitignored(filepath.Join(dir, c.rel), c.isDir); got != c.want {
			t.Errorf("Gitignored(%s, dir=%v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
}
