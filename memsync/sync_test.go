package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

func TestSyncTwoClonesConverge(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "deploy", "Deploys go through the staging cluster first.")
	rep := c.sync(t, 0)
	if !rep.Pushed || len(rep.Committed) != 1 {
		t.Fatalf("first sync: pushed %v, committed %+v", rep.Pushed, rep.Committed)
	}
	c.add(t, 1, "部署流程", "先在预发环境验证。")
	rep = c.sync(t, 1)
	if !rep.Pushed || rep.Merge == "" {
		t.Fatalf("second sync: %+v", rep)
	}
	c.sync(t, 0)
	a, b := c.files(t, 0), c.files(t, 1)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("clones differ (-a +b):\n%s", diff)
	}
	if !strings.Contains(a["MEMORY.md"], "deploy.md") || !strings.Contains(a["MEMORY.md"], "部署流程.md") {
		t.Fatalf("MEMORY.md lacks a memory:\n%s", a["MEMORY.md"])
	}
	for i := range 2 {
		if d, err := c.store(t, i).Lint(context.Background()); err != nil || len(d) != 0 {
			t.Fatalf("lint clone %d: %v %v", i, d, err)
		}
	}
}

func TestSyncBothEditedKeepsTheirsAsProposal(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "deploy", "v0")
	c.sync(t, 0)
	c.sync(t, 1)
	c.add(t, 0, "deploy", "edited on a")
	c.add(t, 1, "deploy", "edited on b")
	c.sync(t, 0)
	rep := c.sync(t, 1)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Kind != KindBothEdited || rep.Conflicts[0].Kept != "ours" {
		t.Fatalf("conflicts = %+v", rep.Conflicts)
	}
	prop := rep.Conflicts[0].Proposal
	if !strings.HasPrefix(prop, ".inbox/deploy.from-tester.") {
		t.Fatalf("proposal %q is not named after its origin", prop)
	}
	c.sync(t, 0)
	a := c.files(t, 0)
	if diff := cmp.Diff(a, c.files(t, 1)); diff != "" {
		t.Fatalf("clones differ:\n%s", diff)
	}
	if !strings.Contains(a["deploy.md"], "edited on b") || !strings.Contains(a[prop], "edited on a") {
		t.Fatalf("an edit was lost: deploy.md %q, %s %q", a["deploy.md"], prop, a[prop])
	}
}

func TestSyncEditWinsOverForgetAndArchiveTravels(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "kept", "v0")
	c.add(t, 0, "gone", "v0")
	c.sync(t, 0)
	c.sync(t, 1)
	ctx := context.Background()
	if _, err := c.store(t, 0).Forget(ctx, "kept", true); err != nil {
		t.Fatal(err)
	}
	c.add(t, 1, "kept", "edited while a archived it")
	if _, err := c.store(t, 1).Forget(ctx, "gone", true); err != nil {
		t.Fatal(err)
	}
	c.sync(t, 0)
	rep := c.sync(t, 1)
	c.sync(t, 0)
	var kinds []string
	for _, k := range rep.Conflicts {
		kinds = append(kinds, k.File+":"+k.Kind+":"+k.Kept)
	}
	if diff := cmp.Diff([]string{"kept.md:edit-over-forget:ours"}, kinds); diff != "" {
		t.Fatalf("conflicts (-want +got):\n%s", diff)
	}
	for i := range 2 {
		f := c.files(t, i)
		if !strings.Contains(f["kept.md"], "edited while a archived it") {
			t.Fatalf("clone %d lost the edit: %v", i, f)
		}
		if _, ok := f["gone.md"]; ok {
			t.Fatalf("clone %d: gone.md was archived on b but is still live", i)
		}
		if _, ok := f[".archive/gone.md"]; !ok {
			t.Fatalf("clone %d: the archive of gone.md did not travel: %v", i, keys(f))
		}
		if d, _ := c.store(t, i).Lint(ctx); len(d) != 0 {
			t.Fatalf("lint clone %d: %v", i, d)
		}
	}
}

func TestSyncHoldsBackSecrets(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "fine", "nothing secret")
	key := "AKIA" + "IOSFODNN7EXAMPLQ"
	p := filepath.Join(c.clones[0], "leak.md")
	if err := os.WriteFile(p, []byte("---\nname: leak\ndescription: x\ntype: project\n---\n\naws_access_key_id = "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := c.sync(t, 0)
	if len(rep.HeldBack) != 1 || rep.HeldBack[0].File != "leak.md" || rep.HeldBack[0].Line != 7 {
		t.Fatalf("held back = %+v", rep.HeldBack)
	}
	c.sync(t, 1)
	if _, ok := c.files(t, 1)["leak.md"]; ok {
		t.Fatal("a file with a secret reached the other clone")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the held-back file is gone locally: %v", err)
	}
}

func TestSyncOfflineCommitsLocally(t *testing.T) {
	c := newCluster(t, 1)
	c.add(t, 0, "note", "offline edit")
	if err := os.Rename(c.remote, c.remote+".away"); err != nil {
		t.Fatal(err)
	}
	rep := c.sync(t, 0)
	if !rep.Offline || rep.Pushed || len(rep.Committed) != 1 || rep.UpstreamError == "" {
		t.Fatalf("offline sync: %+v", rep)
	}
	if err := os.Rename(c.remote+".away", c.remote); err != nil {
		t.Fatal(err)
	}
	rep = c.sync(t, 0)
	if rep.Offline || !rep.Pushed || len(rep.Committed) != 0 {
		t.Fatalf("retry: %+v", rep)
	}
}

func TestSyncRefusesWhatIsNotAStore(t *testing.T) {
	env := testEnv(t)
	dir := t.TempDir()
	_, err := Sync(context.Background(), dir, Options{Environ: env})
	if !errors.Is(err, ErrNotRepo) {
		t.Fatalf("plain dir: %v", err)
	}
	runGit(t, env, dir, "init", "-q")
	if _, err := Sync(context.Background(), dir, Options{Environ: env}); !errors.Is(err, ErrNoUpstream) {
		t.Fatalf("no upstream: %v", err)
	}
	sub := filepath.Join(dir, "memory")
	os.Mkdir(sub, 0o700)
	if _, err := Sync(context.Background(), sub, Options{Environ: env}); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("subdir: %v", err)
	}
	if _, err := Sync(context.Background(), dir, Options{Environ: env, Git: "no-such-git-program"}); !errors.Is(err, ErrNoGit) {
		t.Fatalf("no git: %v", err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var _ = memdir.IndexFile

func TestSyncRunsNoRepositoryProgram(t *testing.T) {
	c := newCluster(t, 1)
	dir := c.clones[0]
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	for _, h := range []string{"pre-commit", "post-commit", "pre-push", "reference-transaction", "post-checkout", "post-merge", "fsmonitor-watchman"} {
		if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", h), []byte(hook), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A clean filter and a textconv the repository names: sync applies neither.
	runGit(t, c.env, dir, "config", "filter.evil.clean", "touch "+marker+"; cat")
	runGit(t, c.env, dir, "config", "filter.evil.smudge", "touch "+marker+"; cat")
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=evil\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.add(t, 0, "note", "hooks must not run")
	rep := c.sync(t, 0)
	if !rep.Pushed {
		t.Fatalf("not pushed: %+v", rep)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook or filter of the repository ran during sync")
	}
	// A program in the repository's own configuration makes sync refuse, naming the key.
	runGit(t, c.env, dir, "config", "core.sshCommand", "touch "+marker)
	_, err := Sync(context.Background(), dir, c.opts())
	if !errors.Is(err, ErrUnsafeConfig) || !strings.Contains(err.Error(), "core.sshcommand") {
		t.Fatalf("err = %v, want ErrUnsafeConfig naming core.sshcommand", err)
	}
}

func TestSyncRefusesToPushAHandCommittedSecret(t *testing.T) {
	c := newCluster(t, 1)
	c.add(t, 0, "note", "fine")
	c.sync(t, 0)
	dir := c.clones[0]
	key := "AKIA" + "IOSFODNN7EXAMPLQ"
	if err := os.WriteFile(filepath.Join(dir, "creds.txt"), []byte("id = "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runGit(t, c.env, dir, "add", "creds.txt")
	runGit(t, c.env, dir, "commit", "-q", "-m", "by hand")
	if err := os.Remove(filepath.Join(dir, "creds.txt")); err != nil { // gone from the tree, not from history
		t.Fatal(err)
	}
	rep, err := Sync(context.Background(), dir, c.opts())
	if !errors.Is(err, ErrSecretInHistory) || !strings.Contains(err.Error(), "creds.txt:1") || rep.Pushed {
		t.Fatalf("err = %v, pushed %v; want ErrSecretInHistory naming creds.txt:1", err, rep.Pushed)
	}
}

func TestSyncCommitsPerAuthor(t *testing.T) {
	c := newCluster(t, 1)
	dir := c.clones[0]
	for _, f := range []struct{ file, author string }{{"a.md", "Alice <alice@example.invalid>"}, {"b.md", "김민수"}, {"c.md", ""}} {
		text := "---\nname: " + f.file + "\ndescription: d\ntype: project\n"
		if f.author != "" {
			text += "author: " + f.author + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, f.file), []byte(text+"---\n\nbody\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep := c.sync(t, 0)
	var got []string
	for _, cm := range rep.Committed {
		got = append(got, cm.Author+":"+strings.Join(cm.Files, ","))
	}
	want := []string{"Alice <alice@example.invalid>:a.md", "김민수:b.md", ":c.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("commits (-want +got):\n%s", diff)
	}
	log := runGit(t, c.env, dir, "log", "--format=%an <%ae>|%cn", "main")
	wantLog := "Tester <tester@example.invalid>|Tester\n김민수 <>|Tester\nAlice <alice@example.invalid>|Tester"
	if log != wantLog {
		t.Fatalf("git log:\n%s\nwant:\n%s", log, wantLog)
	}
}

func TestSyncSeesEveryChangeDespiteItsStatCache(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "a", "one")
	c.sync(t, 0)
	p := filepath.Join(c.clones[0], "a.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// Past the racy window, the cache vouches for the file: rewrite it in place with the same
	// size and put its mtime back. Only ctime tells.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	c.sync(t, 0) // caches the old mtime as not racy
	data, _ := os.ReadFile(p)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(strings.Replace(string(data), "one", "two", 1))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(p); fi2.Size() != fi.Size() {
		t.Fatalf("size changed: %d → %d", fi.Size(), fi2.Size())
	}
	rep := c.sync(t, 0)
	if len(rep.Committed) != 1 {
		t.Fatalf("the edit was not seen: %+v", rep)
	}
	c.sync(t, 1)
	if !strings.Contains(c.files(t, 1)["a.md"], "two") {
		t.Fatal("the edit did not travel")
	}
}

func TestSyncOneAtATimePerStore(t *testing.T) {
	c := newCluster(t, 2)
	c.add(t, 0, "a", "from a")
	c.add(t, 1, "b", "from b")
	c.sync(t, 1)
	errs := make(chan error, 3)
	for range 3 { // three syncs of one clone at once: the lock makes them take turns
		go func() {
			_, err := Sync(context.Background(), c.clones[0], c.opts())
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("a concurrent sync failed: %v", err)
		}
	}
	c.sync(t, 1)
	if diff := cmp.Diff(c.files(t, 0), c.files(t, 1)); diff != "" {
		t.Fatalf("clones differ:\n%s", diff)
	}
	log := runGit(t, c.env, c.clones[0], "log", "--format=%s", "main")
	if n := strings.Count(log, "memory: "); n != 2 {
		t.Fatalf("%d commits of local changes, want 2 (one per clone):\n%s", n, log)
	}
}
