package instructions

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ignoreCases are patterns and paths on which the matcher must agree with git: names at any
// depth, anchoring, directories covering what is below them, "**" in every position, negation
// (and that a file below an excluded directory cannot be re-included), classes, escapes.
var ignoreCases = []struct {
	patterns []string
	path     string
	isDir    bool
	want     bool
}{
	{[]string{"package.json"}, "package.json", false, true},
	{[]string{"package.json"}, "apps/mobile/package.json", false, true},
	{[]string{"tsconfig*.json"}, "apps/server/tsconfig.json", false, true},
	{[]string{"tsconfig*.json"}, "apps/server/tsconfig.build.json", false, true},
	{[]string{"*.config.*"}, "apps/web/vite.config.ts", false, true},
	{[]string{"*.config.*"}, "apps/web/config.ts", false, false},
	{[]string{"/package.json"}, "apps/mobile/package.json", false, false},
	{[]string{"/package.json"}, "package.json", false, true},
	{[]string{"src/api"}, "src/api/x/y.go", false, true},
	{[]string{"src/api"}, "lib/src/api/x.go", false, false},
	{[]string{"api/"}, "src/api/x/y.go", false, true},
	{[]string{"api/"}, "src/api", false, false},
	{[]string{"api/"}, "src/api", true, true},
	{[]string{"doc/*.md"}, "doc/a.md", false, true},
	{[]string{"doc/*.md"}, "doc/sub/a.md", false, false},
	{[]string{"**/foo"}, "foo", false, true},
	{[]string{"**/foo"}, "a/b/foo", false, true},
	{[]string{"**/foo/bar"}, "a/foo/bar", false, true},
	{[]string{"a/**/b"}, "a/b", false, true},
	{[]string{"a/**/b"}, "a/x/y/b", false, true},
	{[]string{"abc/**"}, "abc", false, false},
	{[]string{"abc/**"}, "abc/x/y", false, true},
	{[]string{"a**b"}, "axyb", false, true},
	{[]string{"[!a]bc.md"}, "xbc.md", false, true},
	{[]string{"[!a]bc.md"}, "abc.md", false, false},
	{[]string{"*.md", "!keep.md"}, "docs/keep.md", false, false},
	{[]string{"*.md", "!keep.md"}, "docs/other.md", false, true},
	{[]string{"build/", "!build/keep.md"}, "build/keep.md", false, true},
	{[]string{"/*", "!/foo", "/foo/*", "!/foo/bar"}, "foo/bar/baz", false, false},
	{[]string{"/*", "!/foo", "/foo/*", "!/foo/bar"}, "foo/other", false, true},
	{[]string{`\!x`}, "!x", false, true},
	{[]string{"*.{ts,tsx}"}, "{ts,tsx}", false, false},
	{[]string{"gen/*.md  "}, "gen/a.md", false, true},
	{[]string{"*"}, ".hidden/x", false, true},
}

func ignoreListOf(t *testing.T, patterns []string, braces bool) ignoreList {
	t.Helper()
	var l ignoreList
	for _, p := range patterns {
		if pat, ok := parseIgnore(p, braces); ok {
			if !pat.valid() {
				t.Fatalf("pattern %q does not parse", p)
			}
			l = append(l, pat)
		}
	}
	return l
}

func TestIgnoreMatch(t *testing.T) {
	for _, tt := range ignoreCases {
		l := ignoreListOf(t, tt.patterns, false)
		got := l.match(tt.path, func() bool { return tt.isDir }) != nil
		if got != tt.want {
			t.Errorf("%q ~ %s (dir %v) = %v, want %v", tt.patterns, tt.path, tt.isDir, got, tt.want)
		}
	}
}

// TestIgnoreMatchAgreesWithGit asks git itself (git check-ignore --no-index) about every case,
// so the table above cannot drift from what git does.
func TestIgnoreMatchAgreesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) error {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
		return cmd.Run()
	}
	if err := run("init", "-q", "."); err != nil {
		t.Fatalf("git init: %v", err)
	}
	for _, tt := range ignoreCases {
		if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(strings.Join(tt.patterns, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		p := tt.path
		if tt.isDir {
			p += "/"
		}
		err := run("check-ignore", "-q", "--no-index", p)
		gitSays := err == nil
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		if gitSays != tt.want {
			t.Errorf("git: %q ~ %s = %v, the table says %v", tt.patterns, p, gitSays, tt.want)
		}
	}
}

// TestRuleGlobsMonorepo: the shapes of the issue — a rule for package manifests and configs in
// a monorepo loads when a sub-package's file is touched, and a directory pattern covers
// everything below it.
func TestRuleGlobsMonorepo(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/rules/deps.md":   "---\npaths: [\"package.json\",\"tsconfig*.json\",\"*.config.*\"]\n---\ndeps\n",
		"repo/.claude/rules/api.md":    "---\npaths: src/api\n---\napi\n",
		"repo/.claude/rules/top.md":    "---\npaths: [\"/package.json\", \"./turbo.json\"]\n---\ntop\n",
		"repo/.claude/rules/except.md": "---\npaths:\n  - \"apps/**/*.{ts,tsx}\"\n  - \"!apps/legacy/**\"\n---\nexcept\n",
	})
	deps, api, top, except := "rule:path_glob_match:repo/.claude/rules/deps.md", "rule:path_glob_match:repo/.claude/rules/api.md",
		"rule:path_glob_match:repo/.claude/rules/top.md", "rule:path_glob_match:repo/.claude/rules/except.md"
	for _, tt := range []struct {
		touch string
		want  []string
	}{
		{"apps/mobile/package.json", []string{deps}},
		{"apps/server/tsconfig.json", []string{deps}}, // deps already loaded: nothing new
		{"src/api/x/y.go", []string{api}},
		{"turbo.json", []string{top}},
		{"apps/legacy/old.ts", nil},
		{"apps/web/page.tsx", []string{except}},
	} {
		s := f.load("repo")
		got := f.rel(s.Touch(context.Background(), tt.touch))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("touch %s (-want +got):\n%s", tt.touch, diff)
		}
	}
	// One session: the second sub-package manifest brings nothing new, the top-level one only top.md.
	s := f.load("repo")
	if got := f.rel(s.Touch(context.Background(), "apps/server/tsconfig.json")); !cmp.Equal(got, []string{deps}) {
		t.Errorf("first touch = %v", got)
	}
	if got := f.rel(s.Touch(context.Background(), "apps/mobile/package.json")); got != nil {
		t.Errorf("second touch = %v, want nothing new", got)
	}
	if got := f.rel(s.Touch(context.Background(), "package.json")); !cmp.Equal(got, []string{top}) {
		t.Errorf("top-level package.json = %v, want %v", got, []string{top})
	}
}
