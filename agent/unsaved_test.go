package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/workspace"
)

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
