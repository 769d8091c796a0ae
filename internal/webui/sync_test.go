package webui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/memsync"
)

// git runs git in dir for a test's set-up.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestSyncState: a mounted team store that is a git clone shows where it stands against its
// upstream (memsync.ReadStatus), and the others show none.
func TestSyncState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "gitconfig")
	must(t, os.WriteFile(cfg, []byte("[user]\n\tname = Tester\n\temail = tester@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o600))
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")

	root := t.TempDir()
	remote, team := filepath.Join(root, "team.git"), filepath.Join(root, "team")
	git(t, root, "init", "-q", "--bare", "-b", "main", remote)
	git(t, root, "clone", "-q", remote, team)
	ts, err := memdir.Open(team, memdir.Options{})
	must(t, err)
	add := func(name string) {
		t.Helper()
		_, err := ts.Add(context.Background(), memdir.Input{Name: name, Description: "about " + name, Type: memdir.TypeProject, Body: "Team note " + name + "."})
		must(t, err)
	}
	add("release-train")
	if _, err := memsync.Sync(context.Background(), team, memsync.Options{}); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(root, "home", ".strata", "settings.json")
	must(t, os.MkdirAll(filepath.Dir(settings), 0o700))
	must(t, os.WriteFile(settings, []byte(`{"memoryStores": [{"name": "team", "path": "`+team+`", "writable": true}]}`), 0o600))
	f := newFixtureAt(t, root, 0, nil)
	f.login(t)

	_, body := f.get(t, "/")
	if !strings.Contains(body, "synced with origin/main: <span class=\"tag ok\">in sync</span>") || strings.Count(body, `class="sync"`) != 1 {
		t.Fatalf("the memory page does not show the team store in sync (and only it):\n%s", body)
	}
	add("on-call")
	f.srv.changed(t.Context())
	_, body = f.get(t, "/")
	if !strings.Contains(body, `<span class="tag">2 changed</span>`) || strings.Contains(body, "in sync") {
		t.Fatalf("after a local change:\n%s", body)
	}
	if !strings.Contains(body, "strata memory sync --store team") {
		t.Fatalf("no command to sync the store:\n%s", body)
	}
}
