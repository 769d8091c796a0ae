package memsync

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

// testEnv is the environment of a test's git: no system or user configuration but a
// test identity, HOME in the test's directory.
func testEnv(t testing.TB) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Tester\n\temail = tester@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1")
}

// runGit runs git for a test's set-up and fails the test when it fails.
func runGit(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// cluster is a bare remote and clones of it.
type cluster struct {
	env    []string
	remote string
	clones []string
}

// newCluster makes a bare remote in a temp dir (empty) and n clones of it.
func newCluster(t testing.TB, n int) *cluster {
	t.Helper()
	env := testEnv(t)
	top := t.TempDir()
	c := &cluster{env: env, remote: filepath.Join(top, "remote.git")}
	runGit(t, env, top, "init", "-q", "--bare", "-b", "main", c.remote)
	runGit(t, env, c.remote, "config", "receive.autogc", "false") // no gc process after each push
	for i := range n {
		dir := filepath.Join(top, "clone"+string(rune('a'+i)))
		runGit(t, env, top, "clone", "-q", c.remote, dir)
		c.clones = append(c.clones, dir)
	}
	return c
}

// opts are sync options for the cluster's git.
func (c *cluster) opts() Options { return Options{Environ: c.env} }

// sync syncs clone i and fails the test on an error.
func (c *cluster) sync(t testing.TB, i int) Report {
	t.Helper()
	rep, err := Sync(context.Background(), c.clones[i], c.opts())
	if err != nil {
		t.Fatalf("sync %s: %v", filepath.Base(c.clones[i]), err)
	}
	return rep
}

// store opens clone i's memory store.
func (c *cluster) store(t testing.TB, i int) *memdir.Store {
	t.Helper()
	s, err := memdir.Open(c.clones[i], memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// add saves a memory in clone i.
func (c *cluster) add(t testing.TB, i int, name, body string) {
	t.Helper()
	if _, err := c.store(t, i).Add(context.Background(), memdir.Input{Name: name, Description: "about " + name, Type: memdir.TypeProject, Body: body}); err != nil {
		t.Fatal(err)
	}
}

// files returns the shared files of clone i (path → content), what a sync compares.
func (c *cluster) files(t testing.TB, i int) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := c.clones[i]
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !Shared(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
