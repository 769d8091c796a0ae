package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadStatus(t *testing.T) {
	c := newCluster(t, 2)
	status := func(i int) Status {
		t.Helper()
		st, err := ReadStatus(context.Background(), c.clones[i], c.opts())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	c.add(t, 0, "deploy", "v0")
	st := status(0)
	if st.Branch != "main" || st.Upstream != "origin/main" || st.Ahead != 0 || st.InSync() {
		t.Fatalf("a new memory, not synced: %+v", st)
	}
	if diff := cmp.Diff([]string{"MEMORY.md", "deploy.md"}, st.Changed); diff != "" {
		t.Fatalf("changed (-want +got):\n%s", diff)
	}
	c.sync(t, 0)
	if st := status(0); !st.InSync() {
		t.Fatalf("after a sync: %+v", st)
	}

	// Committed while offline: ahead. The other clone, after a fetch: behind.
	c.add(t, 0, "tests", "Run the race detector.")
	remote := c.remote
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Rename(remote, remote+".away"))
	if rep := c.sync(t, 0); !rep.Offline {
		t.Fatalf("the sync reached a missing remote: %+v", rep)
	}
	if st := status(0); st.Ahead != 1 || st.Behind != 0 || len(st.Changed) != 0 {
		t.Fatalf("committed offline: %+v", st)
	}
	must(os.Rename(remote+".away", remote))
	c.sync(t, 0)
	runGit(t, c.env, c.clones[1], "fetch", "-q", "origin")
	if st := status(1); st.Behind != 2 || st.Ahead != 0 {
		t.Fatalf("fetched, not merged: %+v", st)
	}

	// Both edit the same memory: the upstream's version waits in the inbox as a conflict.
	c.sync(t, 1)
	c.add(t, 0, "deploy", "edited on a")
	c.add(t, 1, "deploy", "edited on b")
	c.sync(t, 0)
	rep := c.sync(t, 1)
	st = status(1)
	if len(rep.Conflicts) != 1 || !cmp.Equal(st.Conflicts, []string{rep.Conflicts[0].Proposal}) || st.InSync() {
		t.Fatalf("conflicts %v, report %+v", st.Conflicts, rep.Conflicts)
	}

	if _, err := ReadStatus(context.Background(), t.TempDir(), c.opts()); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("not a repository: %v", err)
	}
}

func TestConflictName(t *testing.T) {
	for name, want := range map[string]bool{
		filepath.Base(proposalPath("deploy.md", "Alice Smith <a@x>", "1a2b3c4d5e6f")): true,
		"deploy.from-alice.1a2b3c4d.md":                                               true,
		"deploy.md":                                                                   false,
		"deploy.from-alice.1a2b3c4.md":                                                false,
		"deploy.from-alice.1a2b3c4g.md":                                               false,
		"deploy.alice.1a2b3c4d.md":                                                    false,
		"ci-cache.md":                                                                 false,
	} {
		if got := conflictName(name); got != want {
			t.Errorf("conflictName(%q) = %v, want %v", name, got, want)
		}
	}
}
