package config

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	if got := Slug("/home/a/my.proj_x"); got != "-home-a-my-proj-x" {
		t.Fatalf("Slug = %q", got)
	}
	if got := Slug("/tmp/记忆"); got != "-tmp---" {
		t.Fatalf("Slug(CJK) = %q", got)
	}
	long := "/" + strings.Repeat("a", 300)
	long2 := "/" + strings.Repeat("a", 299) + "b"
	s1, s2 := Slug(long), Slug(long2)
	if len(s1) > 210 || s1 == s2 {
		t.Fatalf("long slugs: %d chars, equal=%v", len(s1), s1 == s2)
	}
}

func TestLoadMergesAndReportsBadFiles(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"claudeMdExcludes":["/a/**"],"memoryMode":"daily-log","unknownKey":{"x":1}}`), 0o600)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"claudeMdExcludes":["/b/**"],"memoryMode":""}`), 0o600)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.local.json"), []byte("{\n\"model\": \"x\",\n oops\n}"), 0o600)
	s, errs := Env{Home: home}.Load(proj)
	if diff := cmp.Diff([]string{"/b/**"}, s.ProjectClaudeMdExcludes); diff != "" {
		t.Errorf("project excludes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/a/**"}, s.ClaudeMdExcludes); diff != "" {
		t.Errorf("excludes (-want +got):\n%s", diff)
	}
	if s.MemoryMode != "daily-log" || s.Extra["unknownKey"] == nil {
		t.Errorf("memoryMode=%q extra=%v", s.MemoryMode, s.Extra)
	}
	if s.Model != "" {
		t.Errorf("model from a broken file leaked: %q", s.Model)
	}
	var ke *KeyError
	var pe *ParseError
	if len(errs) != 2 || !errors.As(errs[0], &ke) || ke.Key != "unknownKey" ||
		!errors.As(errs[1], &pe) || pe.Line != 3 || pe.Col != 2 || !strings.HasSuffix(pe.Path, "settings.local.json") {
		t.Fatalf("errs = %v", errs)
	}
}

func TestProjectRootWorktreesShare(t *testing.T) {
	base := t.TempDir()
	main := filepath.Join(base, "repo")
	os.MkdirAll(filepath.Join(main, ".git", "worktrees", "wt"), 0o700)
	os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o600)
	wt := filepath.Join(base, "wt")
	os.MkdirAll(filepath.Join(wt, "sub"), 0o700)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n"), 0o600)
	os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o600)
	os.MkdirAll(filepath.Join(main, "pkg"), 0o700)

	want, _ := filepath.EvalSymlinks(main)
	if got := ProjectRoot(filepath.Join(main, "pkg")); got != want {
		t.Errorf("ProjectRoot(main/pkg) = %q, want %q", got, want)
	}
	if got := ProjectRoot(filepath.Join(wt, "sub")); got != want {
		t.Errorf("ProjectRoot(worktree/sub) = %q, want %q", got, want)
	}
	plain := t.TempDir()
	wantPlain, _ := filepath.EvalSymlinks(plain)
	if got := ProjectRoot(plain); got != wantPlain {
		t.Errorf("ProjectRoot(no git) = %q, want %q", got, wantPlain)
	}
}

// A .git file that points at another project's git directory, or at a worktree of another
// repository that does not link back, does not make that project this one's identity.
func TestProjectRootDoesNotFollowAForeignGitFile(t *testing.T) {
	base := t.TempDir()
	other := filepath.Join(base, "other")
	os.MkdirAll(filepath.Join(other, ".git", "worktrees", "real"), 0o700)
	os.WriteFile(filepath.Join(other, ".git", "worktrees", "real", "commondir"), []byte("../..\n"), 0o600)
	os.WriteFile(filepath.Join(other, ".git", "worktrees", "real", "gitdir"), []byte(filepath.Join(base, "real", ".git")+"\n"), 0o600)
	for name, link := range map[string]string{
		"direct":   "../other/.git",
		"absolute": filepath.Join(other, ".git"),
		"borrowed": "../other/.git/worktrees/real", // a real worktree's dir, whose link names another tree
	} {
		proj := filepath.Join(base, name)
		os.MkdirAll(filepath.Join(proj, "sub"), 0o700)
		os.WriteFile(filepath.Join(proj, ".git"), []byte("gitdir: "+link+"\n"), 0o600)
		want, _ := filepath.EvalSymlinks(proj)
		if got := ProjectRoot(filepath.Join(proj, "sub")); got != want {
			t.Errorf("%s: ProjectRoot = %q, want the project itself %q", name, got, want)
		}
	}
}

// A worktree that git made shares its repository's root.
func TestProjectRootOfARealWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	repo, wt := filepath.Join(base, "repo"), filepath.Join(base, "wt")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "x"}, {"-C", repo, "worktree", "add", "-q", wt}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	want, _ := filepath.EvalSymlinks(repo)
	if got := ProjectRoot(wt); got != want {
		t.Errorf("ProjectRoot(worktree) = %q, want %q", got, want)
	}
}

func TestLoadBackgroundMemorySettings(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"memoryExtraction":"confirm","memoryExtractEvery":3,"sessionNotesEnabled":false}`), 0o600)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"memoryExtractEvery":2,"autoDreamEnabled":false}`), 0o600)
	s, errs := Env{Home: home}.Load(proj)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if s.MemoryExtraction != "confirm" || s.MemoryExtractEvery != 2 || s.SessionNotes() || s.AutoDream() || len(s.Extra) != 0 {
		t.Errorf("got extraction=%q every=%d notes=%v dream=%v extra=%v", s.MemoryExtraction, s.MemoryExtractEvery, s.SessionNotes(), s.AutoDream(), s.Extra)
	}
	var zero Settings
	if !zero.SessionNotes() || !zero.AutoDream() {
		t.Error("session notes and auto-dream must default to on")
	}
}

// A project's settings may only make memory extraction stricter than the user's.
func TestLoadProjectMayOnlyTightenExtraction(t *testing.T) {
	for _, c := range []struct {
		user, project, local, want string
		warned                     bool
	}{
		{`"confirm"`, `"auto"`, ``, "confirm", true},
		{``, `"confirm"`, ``, "confirm", false},
		{`"auto"`, `"off"`, ``, "off", false},
		{`"read-only"`, `"confirm"`, ``, "read-only", true},
		{`"confirm"`, `"off"`, `"auto"`, "off", true},
	} {
		home, proj := t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
		write := func(path, v string) {
			if v != "" {
				os.WriteFile(path, []byte(`{"memoryExtraction":`+v+`}`), 0o600)
			}
		}
		write(filepath.Join(home, "settings.json"), c.user)
		write(filepath.Join(proj, ".claude", "settings.json"), c.project)
		write(filepath.Join(proj, ".claude", "settings.local.json"), c.local)
		s, errs := Env{Home: home}.Load(proj)
		if s.MemoryExtraction != c.want {
			t.Errorf("user %s, project %s, local %s: memoryExtraction = %q, want %q (%v)", c.user, c.project, c.local, s.MemoryExtraction, c.want, errs)
		}
		if msg := fmt.Sprint(errs); c.warned != strings.Contains(msg, "only make memory extraction stricter") {
			t.Errorf("user %s, project %s, local %s: warnings %v", c.user, c.project, c.local, errs)
		}
	}
}
