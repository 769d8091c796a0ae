package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/conversation"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGitBranch(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/feature/登录\n")
	os.MkdirAll(filepath.Join(repo, "src", "deep"), 0o700)
	// A linked worktree: .git is a file naming the worktree's gitdir (relative here).
	wt := filepath.Join(root, "wt")
	writeFile(t, filepath.Join(repo, ".git", "worktrees", "wt", "HEAD"), "ref: refs/heads/fix\n")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: ../repo/.git/worktrees/wt\n")
	// A detached head, with an absolute gitdir.
	det := filepath.Join(root, "det")
	writeFile(t, filepath.Join(root, "gitdirs", "det", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	writeFile(t, filepath.Join(det, ".git"), "gitdir: "+filepath.Join(root, "gitdirs", "det")+"\n")
	os.MkdirAll(filepath.Join(root, "plain"), 0o700)
	for dir, want := range map[string]string{
		repo:                               "feature/登录",
		filepath.Join(repo, "src", "deep"): "feature/登录",
		wt:                                 "fix",
		det:                                "HEAD",
		filepath.Join(root, "plain"):       "",
		"":                                 "",
	} {
		if got := GitBranch(dir); got != want {
			t.Errorf("GitBranch(%s) = %q, want %q", dir, got, want)
		}
	}
}

// TestJournalRecordsBranch: entries carry the branch HEAD names, read again at each user entry
// (a branch switched mid-session shows from the next turn), and listing shows the newest.
func TestJournalRecordsBranch(t *testing.T) {
	repo := t.TempDir()
	head := filepath.Join(repo, ".git", "HEAD")
	writeFile(t, head, "ref: refs/heads/main\n")
	path := filepath.Join(t.TempDir(), "p", "s.jsonl")
	j, err := Open(t.Context(), path, Options{SessionID: "s", CWD: repo, Version: "v1", FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	j.AppendMessage(conversation.NewText(conversation.User, "one"), false)
	writeFile(t, head, "ref: refs/heads/next\n")
	j.AppendMessage(conversation.NewText(conversation.Assistant, "still on main for this turn"), false)
	j.AppendMessage(conversation.NewText(conversation.User, "two"), false)
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	f := checkFile(t, path)
	var got []string
	for _, e := range f.Entries {
		got = append(got, e.GitBranch)
		if e.CWD != repo || e.Version != "v1" || e.SessionID != "s" {
			t.Errorf("entry %s: cwd %q version %q session %q", e.UUID, e.CWD, e.Version, e.SessionID)
		}
	}
	if want := []string{"main", "main", "next"}; !slicesEqual(got, want) {
		t.Errorf("branches %v, want %v", got, want)
	}
	info, err := Stat(path)
	if err != nil || info.Branch != "next" {
		t.Errorf("listing branch %q (%v), want next", info.Branch, err)
	}
	// An explicit branch wins.
	path2 := filepath.Join(t.TempDir(), "s2.jsonl")
	j, _ = Open(t.Context(), path2, Options{CWD: repo, GitBranch: "given", FlushInterval: -1})
	j.AppendMessage(conversation.NewText(conversation.User, "x"), false)
	j.Close(t.Context())
	if e := checkFile(t, path2).Entries[0]; e.GitBranch != "given" {
		t.Errorf("explicit branch: %q", e.GitBranch)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
