package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClassifyPush(t *testing.T) {
	for _, c := range []struct {
		stderr string
		kind   int
		reason string
	}{
		{" ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs", pushRace, "fetch first"},
		{" ! [rejected]        main -> main (non-fast-forward)", pushRace, "non-fast-forward"},
		{"remote: error: cannot lock ref 'refs/heads/main': is at 1a but expected 2b\n ! [remote rejected] main -> main (failed to update ref)", pushRace, "failed to update ref"},
		{" ! [remote rejected] main -> main (incorrect old value provided)", pushRace, "incorrect old value provided"},
		{"remote: no pushes on Fridays\n ! [remote rejected] main -> main (pre-receive hook declined)", pushRefused, "pre-receive hook declined"},
		{" ! [remote rejected] main -> main (protected branch hook declined)", pushRefused, "protected branch hook declined"},
		{"remote: Permission to team/memory.git denied to bob.\nfatal: unable to access: The requested URL returned error: 403", pushRefused, "access denied"},
		{"fatal: unable to access 'https://git.example.invalid/m.git/': Could not resolve host", pushUnreachable, ""},
	} {
		kind, reason := classifyPush(errors.New(c.stderr))
		if kind != c.kind || reason != c.reason {
			t.Errorf("classifyPush(%q) = %d %q, want %d %q", c.stderr, kind, reason, c.kind, c.reason)
		}
	}
}

// hook installs a pre-receive hook in the bare remote.
func (c *cluster) hook(t *testing.T, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.remote, "hooks", "pre-receive"), []byte("#!/bin/sh\n"+script), 0o700); err != nil {
		t.Fatal(err)
	}
}

// A push that loses a race (the upstream moved between the fetch and the push) is told from
// an unreachable upstream, merged again and retried.
func TestSyncRetriesAPushThatLostARace(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	c.sync(t, 1)
	c.add(t, 1, "oncall", "page the secondary")
	runGit(t, c.env, c.clones[1], "add", "-A")
	runGit(t, c.env, c.clones[1], "commit", "-qm", "oncall")
	runGit(t, c.env, c.clones[1], "push", "-q", "origin", "HEAD:side")
	// The first push finds main moved to side under it, as another replica's push would.
	raced := filepath.Join(t.TempDir(), "raced")
	c.hook(t, "[ -e "+raced+" ] && exit 0\ntouch "+raced+"\nunset GIT_QUARANTINE_PATH\ngit update-ref refs/heads/main refs/heads/side\n")
	c.add(t, 0, "style", "tabs")
	var lines []string
	o := c.opts()
	o.Progress = func(l string) { lines = append(lines, l) }
	rep, err := Sync(context.Background(), c.clones[0], o)
	if err != nil || !rep.Pushed || rep.Offline {
		t.Fatalf("sync: %v; pushed %v offline %v (%s)", err, rep.Pushed, rep.Offline, rep.UpstreamError)
	}
	if _, err := os.Stat(raced); err != nil {
		t.Fatal("the race never happened")
	}
	if !strings.Contains(strings.Join(lines, "\n"), "the upstream moved") {
		t.Fatalf("progress does not say the push lost a race: %q", lines)
	}
	if f := c.files(t, 0); f["oncall.md"] == "" || f["style.md"] == "" {
		t.Fatalf("the retried merge lacks a memory: %v", keys(f))
	}
}

// A remote that refuses a push is named with its reason, not reported as unreachable.
func TestSyncNamesARemoteRefusal(t *testing.T) {
	c := newCluster(t, 1)
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	c.hook(t, "echo 'main is frozen' >&2\nexit 1\n")
	c.add(t, 0, "style", "tabs")
	rep, err := Sync(context.Background(), c.clones[0], c.opts())
	if !errors.Is(err, ErrRemoteRefused) || !strings.Contains(err.Error(), "pre-receive hook declined") || rep.Offline {
		t.Fatalf("err = %v, offline %v; want ErrRemoteRefused naming the hook", err, rep.Offline)
	}
	if len(rep.Committed) != 1 || rep.Committed[0].ID == "" {
		t.Fatalf("the local change is not committed: %+v", rep.Committed)
	}
	if !strings.Contains(rep.UpstreamError, "main is frozen") {
		t.Fatalf("the remote's words are lost: %q", rep.UpstreamError)
	}
}

// A sync killed after it moved the branch leaves the index behind: the next one brings it in
// step before anything else, so a hand commit would not revert the merge.
func TestSyncResetsTheIndexFirst(t *testing.T) {
	c := newCluster(t, 1)
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	c.add(t, 0, "style", "tabs")
	c.sync(t, 0)
	dir := c.clones[0]
	runGit(t, c.env, dir, "read-tree", "HEAD~1") // as a sync killed before its last step leaves it
	if runGit(t, c.env, dir, "diff", "--cached", "--name-only") == "" {
		t.Fatal("the set-up did not put the index out of step")
	}
	c.sync(t, 0)
	if st := runGit(t, c.env, dir, "diff", "--cached", "--name-only"); st != "" {
		t.Fatalf("the index is still out of step after a sync:\n%s", st)
	}
}

// The git commands a killed sync left running (recorded in the git directory) are ended by the
// next sync.
func TestSyncEndsAKilledSyncsGit(t *testing.T) {
	c := newCluster(t, 1)
	dir := c.clones[0]
	g, err := newGit(dir, c.opts())
	if err != nil {
		t.Fatal(err)
	}
	left := g.command(context.Background(), nil, []string{"cat-file", "--batch"}) // waits on its input forever
	r, w, _ := os.Pipe()
	defer w.Close()
	left.Stdin = r
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- left.Wait() }()
	if err := os.WriteFile(filepath.Join(dir, ".git", childrenName), []byte(strconv.Itoa(left.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		left.Process.Kill()
		t.Fatal("the left git is still running after the next sync")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", childrenName)); err == nil {
		t.Fatal("the record of git's process group is left after a sync")
	}
}

// A git killed with its sync leaves its lock files; the next sync, which finds the killed
// sync's record, removes them and goes through. Without that record a lock file is git's own
// business and is left alone.
func TestSyncRemovesAKilledGitsLocks(t *testing.T) {
	c := newCluster(t, 1)
	dir := c.clones[0]
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	gitDir := filepath.Join(dir, ".git")
	locks := []string{filepath.Join(gitDir, "index.lock"), filepath.Join(gitDir, "refs", "heads", "main.lock")}
	for _, l := range locks {
		if err := os.WriteFile(l, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c.add(t, 0, "deploy", "production next")
	if _, err := Sync(context.Background(), dir, c.opts()); err == nil || !strings.Contains(err.Error(), "index.lock") {
		t.Fatalf("sync with git's locks held and no record of a killed sync: %v, want git's lock error", err)
	}
	for _, l := range locks {
		if _, err := os.Stat(l); err != nil {
			t.Fatalf("%s removed without a killed sync's record: %v", l, err)
		}
	}
	// The record of a git that has died since (killed with its sync: no process is left).
	if err := os.WriteFile(filepath.Join(gitDir, childrenName), []byte("2147483646\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.sync(t, 0)
	for _, l := range locks {
		if _, err := os.Stat(l); err == nil {
			t.Errorf("%s is left after the sync", l)
		}
	}
	if _, err := os.Stat(filepath.Join(gitDir, lockName)); err != nil {
		t.Errorf("the sync's own lock: %v", err)
	}
	if st := runGit(t, c.env, dir, "status", "--porcelain", "--", "*.md"); st != "" {
		t.Errorf("the change was not committed:\n%s", st)
	}
}

// A store another user owns is named as such, and trusting it in the user's configuration
// (safe.directory, carried over though git reads no user configuration file) lets it sync.
func TestSyncNamesAStoreOwnedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the store to another user")
	}
	c := newCluster(t, 1)
	dir := c.clones[0]
	c.add(t, 0, "deploy", "staging first")
	if err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	_, err := Sync(context.Background(), dir, c.opts())
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "safe.directory") {
		t.Fatalf("err = %v, want ErrNotOwned", err)
	}
	runGit(t, c.env, t.TempDir(), "config", "--global", "--add", "safe.directory", dir)
	if rep := c.sync(t, 0); !rep.Pushed {
		t.Fatalf("not pushed once trusted: %+v", rep)
	}
}
