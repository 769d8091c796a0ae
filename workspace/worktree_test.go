package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
)

// A linked worktree made with git worktree add: its instructions and project settings are its
// own (the worktree's CLAUDE.md imports the worktree's docs), while its memory is the main
// tree's, shared by every worktree.
func TestLinkedWorktree(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	for rel, text := range map[string]string{
		"CLAUDE.md":             "See @docs/architecture.md\n",
		"docs/architecture.md":  "the architecture\n",
		".claude/settings.json": `{"model": "from-main"}`,
	} {
		p := filepath.Join(main, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "."}, {"commit", "-q", "-m", "x"}, {"worktree", "add", "-q", wt}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = main
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The worktree's branch changes its settings; main's stay.
	if err := os.WriteFile(filepath.Join(wt, ".claude", "settings.json"), []byte(`{"model": "from-worktree"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := config.Env{Home: filepath.Join(dir, "home", ".strata"), UserHome: filepath.Join(dir, "home")}
	open := func(cwd string) *Workspace {
		ws, err := Open(t.Context(), Options{Cwd: cwd, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	ws, mainWS := open(filepath.Join(wt, "docs")), open(main)
	if ws.Tree() != wt || ws.Root() != main {
		t.Errorf("Tree %s Root %s; want %s and %s", ws.Tree(), ws.Root(), wt, main)
	}
	if ws.Settings().Model != "from-worktree" {
		t.Errorf("settings read from %q, want the worktree's", ws.Settings().Model)
	}
	d1, err1 := ws.MemoryDir()
	d2, err2 := mainWS.MemoryDir()
	if err1 != nil || err2 != nil || d1 != d2 || !strings.Contains(d1, config.Slug(main)) {
		t.Errorf("memory dirs %s, %s (%v %v); want one, the main tree's", d1, d2, err1, err2)
	}
	set, err := open(wt).Instructions(t.Context(), SetOptions{NoIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	text := instructions.RenderSources(set.Sources())
	if !strings.Contains(text, filepath.Join(wt, "docs", "architecture.md")) || !strings.Contains(text, "the architecture") {
		t.Errorf("the worktree's import did not load:\n%s\n%v", text, set.Diagnostics())
	}
}
