package instructions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/config"
)

// ProjectRoot agrees with config.ProjectRoot: a repository, a directory below it reached through
// a symlink, a linked worktree (mapped to its main tree) and a directory outside any repository.
func TestProjectRootAgreesWithConfig(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) string {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo/.git/worktrees/wt")
	deep := mk("repo/a/b")
	wt := mk("wt/sub")
	os.WriteFile(filepath.Join(tmp, "wt", ".git"), []byte("gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n"), 0o600)
	os.WriteFile(filepath.Join(repo, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o600)
	os.WriteFile(filepath.Join(repo, ".git", "worktrees", "wt", "gitdir"), []byte(filepath.Join(tmp, "wt", ".git")+"\n"), 0o600)
	plain := mk("plain/x")
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(deep, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cwd, dir, root string }{
		{repo, repo, repo},
		{link, deep, repo},
		{wt, wt, repo},
		{plain, plain, plain},
	} {
		dir, root, err := ProjectRoot(tt.cwd)
		if err != nil || dir != tt.dir || root != tt.root || root != config.ProjectRoot(tt.cwd) {
			t.Errorf("ProjectRoot(%s) = %s, %s, %v; want %s, %s (config: %s)", tt.cwd, dir, root, err, tt.dir, tt.root, config.ProjectRoot(tt.cwd))
		}
	}
	if _, _, err := ProjectRoot(filepath.Join(tmp, "missing")); err == nil {
		t.Errorf("a missing directory: no error")
	}
}
