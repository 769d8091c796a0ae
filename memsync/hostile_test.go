package memsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/fsutil"
)

// commitRaw makes a commit on the remote's main (on top of what it holds) whose tree has
// files as given, through git fast-import, which writes paths git's own commands would
// refuse: what a hostile replica can push.
func (c *cluster) commitRaw(t *testing.T, files map[string][]byte) {
	t.Helper()
	parent, err := exec.Command("git", "-C", c.remote, "rev-parse", "--verify", "-q", "refs/heads/main").Output()
	var in bytes.Buffer
	in.WriteString("commit refs/heads/main\ncommitter Mallory <m@example.invalid> 1700000000 +0000\ndata 7\nhostile\n")
	if err == nil {
		fmt.Fprintf(&in, "from %s\n", bytes.TrimSpace(parent))
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n", p, len(files[p]))
		in.Write(files[p])
		in.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = c.remote, c.env, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
}

func skippedFiles(rep Report) []string {
	var out []string
	for _, s := range rep.Skipped {
		out = append(out, s.File)
	}
	return out
}

// A remote tree is hostile input: a .git/config that sets core.fsmonitor (in any spelling of
// .git), local-only files and files that are no memory never reach the store, and a later git
// status there runs nothing.
func TestSyncTakesOnlyMemoryFilesFromTheRemote(t *testing.T) {
	c := newCluster(t, 1)
	dir := c.clones[0]
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	marker := filepath.Join(t.TempDir(), "ran")
	evil := []byte("[core]\n\tfsmonitor = \"touch " + marker + "; false\"\n\thooksPath = /tmp\n")
	stats := filepath.Join(dir, ".recall-stats.json")
	if err := os.WriteFile(stats, []byte(`{"local":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	hostile := []string{".git/config", ".GIT/config", ".git./config", "GIT~1/config", "team/.git/config",
		"\u200c.git/config", ".recall-stats.json", ".strata.lock", ".strata-watch.json", "run.sh", "a\\b.md", "c:d.md"}
	files := map[string][]byte{"welcome.md": []byte("---\nname: welcome\ndescription: hi\ntype: project\n---\nhello\n")}
	for _, p := range hostile {
		files[p] = evil
	}
	c.commitRaw(t, files)

	rep := c.sync(t, 0)
	if !rep.Pushed {
		t.Fatalf("not pushed: %+v", rep)
	}
	sort.Strings(hostile)
	if got := skippedFiles(rep); strings.Join(got, "|") != strings.Join(hostile, "|") {
		t.Fatalf("skipped = %q\nwant      %q", got, hostile)
	}
	if _, err := os.Stat(filepath.Join(dir, "welcome.md")); err != nil {
		t.Fatalf("the memory in the same commit did not arrive: %v", err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil || bytes.Contains(cfg, []byte("fsmonitor")) {
		t.Fatalf("the store's git config was written from the remote (%v):\n%s", err, cfg)
	}
	for _, p := range hostile {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); err == nil && bytes.Equal(data, evil) {
			t.Errorf("%s was written into the store", p)
		}
	}
	if data, _ := os.ReadFile(stats); string(data) != `{"local":true}` {
		t.Errorf("the local-only .recall-stats.json was overwritten: %s", data)
	}
	runGit(t, c.env, dir, "status", "--porcelain")
	runGit(t, c.env, dir, "-c", "core.fsmonitor=true", "status") // the built-in monitor, if any, runs no command
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git status in the store ran the remote's fsmonitor")
	}
	// The merge the sync pushed does not carry the hostile files on.
	tree := runGit(t, c.env, dir, "ls-tree", "-r", "--name-only", "HEAD")
	for _, p := range []string{".GIT/config", "run.sh", ".recall-stats.json"} {
		if strings.Contains(tree, p) {
			t.Errorf("the merged commit holds %s:\n%s", p, tree)
		}
	}
}

// A blob larger than MaxFileBytes in the remote's tree is refused from its size in git: the
// sync never reads it, and allocates far less than its size.
func TestSyncRefusesAHugeBlobWithoutReadingIt(t *testing.T) {
	c := newCluster(t, 1)
	c.add(t, 0, "deploy", "staging first")
	c.sync(t, 0)
	const size = 24 << 20
	huge := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	c.commitRaw(t, map[string][]byte{"huge.md": huge, "small.md": []byte("fine\n")})
	huge = nil
	id := runGit(t, c.env, c.remote, "rev-parse", "main:huge.md")

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep := c.sync(t, 0)
	runtime.ReadMemStats(&after)
	if got := skippedFiles(rep); len(got) != 1 || got[0] != "huge.md" {
		t.Fatalf("skipped = %q, want huge.md", got)
	}
	if _, err := os.Stat(filepath.Join(c.clones[0], "huge.md")); err == nil {
		t.Fatal("the huge blob was written into the store")
	}
	if _, err := os.Stat(filepath.Join(c.clones[0], "small.md")); err != nil {
		t.Fatalf("small.md did not arrive: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Fatalf("the sync allocated %d bytes for a %d-byte blob it refuses", alloc, size)
	}
	// Reading such an object is refused as it streams in, not after.
	r, _, _, err := openRepo(context.Background(), c.clones[0], c.opts())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.readBlobs(context.Background(), []string{id}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("readBlobs of the huge blob: %v", err)
	}
}

// A tree of more memory files than MaxStoreBytes is not merged at all.
func TestAdmitCapsTheStore(t *testing.T) {
	tr, sizes := tree{}, map[string]int64{}
	for i := range 300 {
		p := fmt.Sprintf("m%d.md", i)
		tr[p], sizes[p] = blob{mode: "100644", id: fmt.Sprint(i)}, MaxFileBytes
	}
	if _, _, err := admit(tr, sizes); !errors.Is(err, ErrStoreTooLarge) {
		t.Fatalf("admit of %d MiB: %v", len(tr), err)
	}
	delete(tr, "m0.md")
	tr["link.md"] = blob{mode: "120000", id: "x"}
	for i := 1; i < 100; i++ {
		delete(tr, fmt.Sprintf("m%d.md", i))
	}
	got, skipped, err := admit(tr, sizes)
	if err != nil || len(got) != 200 || len(skipped) != 1 || skipped[0].File != "link.md" {
		t.Fatalf("admit: %d kept, skipped %v, %v", len(got), skipped, err)
	}
}

func TestDotGit(t *testing.T) {
	for c, want := range map[string]bool{
		".git": true, ".GIT": true, ".Git. .": true, "git~1": true, "GIT~1": true, ".g\u200cit": true, "\ufeff.git": true,
		"git": false, ".github": false, ".gitignore": false, "x.git": false, "git~2": false,
	} {
		if got := fsutil.IsGitName(c); got != want {
			t.Errorf("fsutil.IsGitName(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestCheckNameRefusesEverySpellingOfGit(t *testing.T) {
	for _, p := range []string{".git/config", ".GIT/config", ".Git. ./config", "git~1/config", "GIT~1/hooks/x.md",
		"team/.git/config", ".g\u200cit/x.md", "\ufeff.git/x.md", "team/git~1/x.md", ".git"} {
		if checkName(p) == nil {
			t.Errorf("checkName(%q) = nil, want a refusal", p)
		}
	}
	for _, p := range []string{"git.md", "github/x.md", "team/gitlab.md"} {
		if err := checkName(p); err != nil {
			t.Errorf("checkName(%q) = %v", p, err)
		}
	}
}
