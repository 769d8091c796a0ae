package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestNewPathRefusesGitInAnySpelling(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{
		".git/config", ".git//config", ".git/./config", "./.git/config", "a/../.git/config",
		".GIT/config", ".Git/hooks/pre-commit", ".git./config", ".git /config", ".git. . /config",
		"git~1/config", ".g\u200cit/config", ".git::$INDEX_ALLOCATION/config", "sub/.git",
		filepath.Join(root, ".git", "config"),
	} {
		_, err := NewPath(root, name)
		if !errors.Is(err, ErrGitComponent) {
			t.Errorf("NewPath(%q) = %v, want ErrGitComponent", name, err)
		}
	}
	for _, name := range []string{".gitignore", ".github/workflows/ci.yml", "git/x", "a.git/x", "gitx"} {
		if _, err := NewPath(root, name); err != nil {
			t.Errorf("NewPath(%q) = %v, want a Path", name, err)
		}
	}
}

func TestNewPathStaysInRoot(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	for _, name := range []string{"..", "../x", "a/../../x", filepath.Join(out, "x"), "."} {
		if _, err := NewPath(root, name); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("NewPath(%q) = %v, want ErrOutsideRoot", name, err)
		}
	}
	if err := os.Symlink(out, filepath.Join(root, "away")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := NewPath(root, "away/x"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("through a link out: %v, want ErrOutsideRoot", err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(root, "innocent")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPath(root, "innocent/config"); !errors.Is(err, ErrGitComponent) {
		t.Errorf("through a link to .git: %v, want ErrGitComponent", err)
	}
}

func TestPathResolvesAndWrites(t *testing.T) {
	real := t.TempDir()
	root := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, root); err != nil {
		t.Skip("no symlinks:", err)
	}
	p, err := NewPath(root, "a//b/../c/./note.md")
	if err != nil {
		t.Fatal(err)
	}
	if p.Rel() != "a/c/note.md" {
		t.Errorf("Rel = %q, want a/c/note.md", p.Rel())
	}
	realDir, _ := filepath.EvalSymlinks(real)
	if want := filepath.Join(realDir, "a", "c", "note.md"); p.String() != want || p.Root() != realDir {
		t.Errorf("String = %q, Root = %q; want %q in %q", p.String(), p.Root(), want, realDir)
	}
	if err := p.WriteFile([]byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := p.ReadFile(1 << 10)
	if err != nil || string(got) != "hello" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if _, err := p.ReadFile(2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the cap: %v, want ErrTooLarge", err)
	}
	abs, err := NewPath(root, filepath.Join(root, "a", "c", "note.md"))
	if err != nil || abs != p {
		t.Errorf("absolute name: %v, %v; want %v", abs, err, p)
	}
	var zero Path
	if _, err := zero.ReadFile(10); err == nil {
		t.Error("the zero Path read a file")
	}
	if err := zero.WriteFile(nil, 0o600); err == nil {
		t.Error("the zero Path wrote a file")
	}
}

func TestPathWriteDoesNotFollowSwappedLink(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	p, err := NewPath(root, "d/f")
	if err != nil {
		t.Fatal(err)
	}
	// After the check, d becomes a link out of the root: the write must not land there.
	if err := os.Symlink(out, filepath.Join(root, "d")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := p.WriteFile([]byte("x"), 0o600); err == nil {
		t.Error("the write followed a link out of the root")
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("files written outside the root: %v", ents)
	}
}

// A directory swapped for a link into .git after NewPath is neither written through nor
// read through: the link stays inside the root, where os.Root alone would follow it.
func TestPathDoesNotFollowSwappedLinkIntoGit(t *testing.T) {
	root := t.TempDir()
	git := filepath.Join(root, ".git")
	os.MkdirAll(git, 0o700)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o600)
	d := filepath.Join(root, "d")
	os.MkdirAll(d, 0o700)
	os.WriteFile(filepath.Join(d, "config"), []byte("mine\n"), 0o600)
	p, err := NewPath(root, "d/config")
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(d, filepath.Join(root, "d.old"))
	if err := os.Symlink(".git", d); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := p.WriteFile([]byte("[core]\n\tfsmonitor = ./x\n"), 0o600); !errors.Is(err, ErrGitComponent) {
		t.Errorf("write through the swapped link: %v, want ErrGitComponent", err)
	}
	if b, _ := os.ReadFile(filepath.Join(git, "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config was written: %q", b)
	}
	if ents, _ := os.ReadDir(git); len(ents) != 1 {
		t.Errorf("files left in .git: %v", ents)
	}
	if _, err := p.ReadFile(1 << 20); !errors.Is(err, ErrGitComponent) {
		t.Errorf("read through the swapped link: %v, want ErrGitComponent", err)
	}
	// Swapped back, both work again.
	os.Remove(d)
	os.Rename(filepath.Join(root, "d.old"), d)
	if err := p.WriteFile([]byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := p.ReadFile(1 << 20); err != nil || string(b) != "new\n" {
		t.Errorf("read = %q, %v", b, err)
	}
}

// Where the root's .git is a file pointing at its git directory inside the tree (a bare
// repository beside its worktree: "gitdir: ./.bare"), that directory is refused like .git.
func TestNewPathRefusesPointedGitDir(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".bare", "hooks"), 0o700)
	os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: ./.bare\n"), 0o600)
	for _, name := range []string{".bare/config", ".bare/hooks/pre-commit", ".bare", "./x/../.bare/config", filepath.Join(root, ".bare", "HEAD")} {
		if _, err := NewPath(root, name); !errors.Is(err, ErrGitComponent) {
			t.Errorf("NewPath(%q) = %v, want ErrGitComponent", name, err)
		}
	}
	for _, name := range []string{".barex/config", "src/.bare.go", "bare/config"} {
		if _, err := NewPath(root, name); err != nil {
			t.Errorf("NewPath(%q): %v", name, err)
		}
	}
	if got := GitDirs(root); len(got) != 2 || got[1] != filepath.Join(root, ".bare") {
		t.Errorf("GitDirs = %q", got)
	}
	// A worktree's: the gitdir and its commondir.
	wt := t.TempDir()
	gd := filepath.Join(root, ".bare", "worktrees", "wt")
	os.MkdirAll(gd, 0o700)
	os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o600)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o600)
	if got := GitDirs(wt); len(got) != 3 || got[1] != gd || got[2] != filepath.Join(root, ".bare") {
		t.Errorf("GitDirs of a worktree = %q", got)
	}
}

// RealPath resolves the part of a path that exists and keeps the rest.
func TestRealPath(t *testing.T) {
	dir := t.TempDir()
	real := RealPath(dir) // the temp dir itself may lie behind a link (macOS)
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(dir, "link"):             filepath.Join(real, "a"),
		filepath.Join(dir, "link", "new", "x"): filepath.Join(real, "a", "new", "x"),
		filepath.Join(dir, "a", "x"):           filepath.Join(real, "a", "x"),
		filepath.Join(dir, "loop", "x"):        filepath.Join(dir, "loop", "x"), // cannot be resolved: unchanged
		"":                                     "",
	} {
		if got := RealPath(in); got != want {
			t.Errorf("RealPath(%q) = %q, want %q", in, got, want)
		}
	}
}
