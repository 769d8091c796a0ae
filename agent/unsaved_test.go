package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/workspace"
)

func TestProbeSave(t *testing.T) {
	dir := t.TempDir()
	if err := probeSave(filepath.Join(dir, "a", "b", "s.jsonl")); err != nil {
		t.Fatalf("writable dir: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the probe left %v behind", ents)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o600)
	if err := probeSave(filepath.Join(file, "p", "s.jsonl")); err == nil {
		t.Error("a path under a regular file was found writable")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		if err := probeSave(filepath.Join(ro, "p", "s.jsonl")); err == nil || !strings.Contains(err.Error(), "cannot create files") {
			t.Errorf("read-only dir: %v", err)
		}
	}
}

// TestUnsavedSessionWarnsOnce: a home that cannot hold the transcript gives one warning at
// New, and none more over two turns and Close.
func TestUnsavedSessionWarnsOnce(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	home := filepath.Join(t.TempDir(), "home-file")
	os.WriteFile(home, []byte("x"), 0o600)
	f.env.Home = home
	a := f.agent(Options{Open: workspace.Options{NoMemory: true}})
	if w := a.Warnings(); len(w) != 1 || !strings.Contains(w[0], "not being saved") {
		t.Fatalf("warnings at start = %q, want one about saving", w)
	}
	f.srv.Script(llmtest.Text("one"), llmtest.Text("two"))
	for _, m := range []string{"hello", "again"} {
		if _, err := a.Run(t.Context(), m, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(t.Context()); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := len(a.Warnings()); n != 1 {
		t.Errorf("%d warnings, want 1: %q", n, a.Warnings())
	}
}
