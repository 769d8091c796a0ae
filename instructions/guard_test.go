package instructions

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
)

// Issue 15: anything under STRATA_HOME could be imported without approval — Claude Code's
// credentials when STRATA_HOME=~/.claude, other projects' transcripts and memories. Only
// instruction files (markdown outside hidden and data directories) are imported from there now,
// whatever the settings approve; the refused ones are never read.
func TestHomeImportsInstructionFilesOnly(t *testing.T) {
	const secret = "TOKEN-FROM-ELSEWHERE"
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md": "@~/.strata/.credentials.json\n@~/.strata/projects/-other/s.jsonl\n@~/.strata/projects/-other/memory/x.md\n" +
			"@~/.strata/settings.json\n@~/.strata/.cache/notes.md\n@~/.strata/plans/p.md\n@~/.strata/docs/style.md\n@~/.strata/agents/reviewer.md\n@link.md\n",
		"repo/link.md":                             "->" + "../home/.strata/projects/-other/memory/x.md",
		"home/.strata/.credentials.json":           `{"token":"` + secret + `"}`,
		"home/.strata/projects/-other/s.jsonl":     secret + "\n",
		"home/.strata/projects/-other/memory/x.md": secret + "\n",
		"home/.strata/settings.json":               `{"x":"` + secret + `"}`,
		"home/.strata/.cache/notes.md":             secret + "\n",
		"home/.strata/plans/p.md":                  secret + "\n",
		"home/.strata/docs/style.md":               "user style\n",
		"home/.strata/agents/reviewer.md":          "user agent\n",
	})
	f.opts.ApprovedImports = []string{"~/"} // an approval does not open STRATA_HOME's data
	s := f.load("repo")
	text := s.Render()
	if strings.Contains(text, secret) {
		t.Fatalf("data from STRATA_HOME imported:\n%s", text)
	}
	for _, want := range []string{"user style", "user agent"} {
		if !strings.Contains(text, want) {
			t.Errorf("instruction file from STRATA_HOME not imported: %q missing", want)
		}
	}
	refused := 0
	for _, d := range s.Diagnostics() {
		if d.Severity == SeverityError && strings.Contains(d.Message, "where only instruction files can be imported") {
			refused++
		}
	}
	if refused != 7 {
		t.Errorf("%d imports refused, want 7:\n%s", refused, strings.Join(f.diags(s.Diagnostics()), "\n"))
	}
}

func TestHomeRefusal(t *testing.T) {
	for _, tt := range []struct {
		rel string
		ok  bool
	}{
		{"CLAUDE.md", true}, {"rules/a/b.md", true}, {"docs/x.MD", true}, {"agents/reviewer.md", true},
		{".credentials.json", false}, {"settings.json", false}, {"history.jsonl", false}, {"projects/-x/memory/a.md", false},
		{"plugins/cache/p/README.md", false}, {".git/HEAD", false}, {"docs/.private/x.md", false}, {"notes.txt", false},
	} {
		why := homeRefusal(filepath.Join("/h", tt.rel), "/h")
		if (why == "") != tt.ok {
			t.Errorf("homeRefusal(%s) = %q, want ok=%v", tt.rel, why, tt.ok)
		}
	}
}

// Instruction text is scanned for secrets: a line that looks like one is withheld (replaced by a
// marker naming its kind), with a warning naming the file and its line (frontmatter counted).
func TestSecretsWithheld(t *testing.T) {
	key := "ghp_" + strings.Repeat("aB3dE5", 6) + "x"
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":          "---\ntitle: x\n---\nDeploy with:\n\nexport GITHUB_TOKEN=" + key + "\nthen push.\n@docs/a.md\n",
		"repo/docs/a.md":          "aws key AKIAIOSFODNN7EXAMPLE here\n",
		"repo/.claude/rules/r.md": "plain rule\n",
	})
	f.opts.ScanSecrets = func(text string) []Secret {
		var out []Secret
		for i, l := range strings.Split(text, "\n") {
			switch {
			case strings.Contains(l, "ghp_"):
				out = append(out, Secret{Kind: "GitHub token", Line: i + 1})
			case strings.Contains(l, "AKIA"):
				out = append(out, Secret{Kind: "AWS access key ID", Line: i + 1})
			}
		}
		return out
	}
	s := f.load("repo")
	text := s.Render()
	if strings.Contains(text, key) || strings.Contains(text, "AKIA") {
		t.Fatalf("secret shown to the model:\n%s", text)
	}
	for _, want := range []string{"[withheld by strata: this line looks like a secret (GitHub token)]", "then push.", "plain rule", "(AWS access key ID)]"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	ds := s.Diagnostics()
	for _, w := range []struct {
		path string
		line int
	}{{"repo/CLAUDE.md", 6}, {"repo/docs/a.md", 1}} {
		found := false
		for _, d := range ds {
			found = found || strings.HasSuffix(d.Path, w.path) && d.Line == w.line && d.Severity == SeverityWarning && strings.Contains(d.Message, "looks like a secret")
		}
		if !found {
			t.Errorf("no warning at %s:%d; got %q", w.path, w.line, f.diags(ds))
		}
	}
}

// A project's own claudeMdExcludes skip files inside the project only; the user's apply to any
// file but managed ones.
func TestProjectExcludesStayInProject(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":         "project\n",
		"repo/vendor/CLAUDE.md":  "vendored\n",
		"home/.strata/CLAUDE.md": "user\n",
		"managed/CLAUDE.md":      "managed\n",
	})
	f.opts.ProjectExcludes = []string{"**/CLAUDE.md"}
	s := f.load("repo")
	s.LoadAll(context.Background(), 0)
	got := strings.Join(f.rel(s.Sources()), " ")
	if !strings.Contains(got, "home/.strata/CLAUDE.md") || !strings.Contains(got, "managed/CLAUDE.md") {
		t.Errorf("a project's exclude hid the user's or managed file: %s", got)
	}
	if strings.Contains(got, "repo/CLAUDE.md") || strings.Contains(got, "repo/vendor/CLAUDE.md") {
		t.Errorf("a project's exclude did not skip its own files: %s", got)
	}
	f.opts.ProjectExcludes, f.opts.Excludes = nil, []string{"**/CLAUDE.md"}
	s = f.load("repo")
	got = strings.Join(f.rel(s.Sources()), " ")
	if strings.Contains(got, "home/.strata/CLAUDE.md") || !strings.Contains(got, "managed/CLAUDE.md") {
		t.Errorf("the user's exclude: %s", got)
	}
}

// Issue 16: a linked worktree made with git worktree add is its own project root, so its
// CLAUDE.md imports its own docs; the canonical root (memory) stays the main tree.
func TestLinkedWorktreeIsItsOwnRoot(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = main
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(main, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(main, "CLAUDE.md"), []byte("See @docs/architecture.md\n"), 0o600)
	os.WriteFile(filepath.Join(main, "docs", "architecture.md"), []byte("the architecture\n"), 0o600)
	run("init", "-q", ".")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	run("worktree", "add", "-q", wt)
	if fi, err := os.Lstat(filepath.Join(wt, ".git")); err != nil || fi.IsDir() {
		t.Fatalf("worktree .git is not a file: %v", err)
	}
	roots, err := FindRoots(filepath.Join(wt, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	if roots.Tree != wt || roots.Root != main || roots.Root != config.ProjectRoot(wt) {
		t.Errorf("FindRoots = %+v; want tree %s, root %s", roots, wt, main)
	}
	s, err := Load(context.Background(), wt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ProjectRoot() != wt {
		t.Errorf("project root %s, want the worktree %s", s.ProjectRoot(), wt)
	}
	var paths []string
	for _, src := range s.Sources() {
		paths = append(paths, src.Path)
	}
	want := []string{filepath.Join(wt, "CLAUDE.md"), filepath.Join(wt, "docs", "architecture.md")}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("loaded %v, want %v; diagnostics %v", paths, want, s.Diagnostics())
	}
	for _, d := range s.Diagnostics() {
		if d.Severity == SeverityError {
			t.Errorf("error in a worktree: %s", d)
		}
	}
}
