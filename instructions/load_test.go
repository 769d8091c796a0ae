package instructions

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadOrder(t *testing.T) {
	f := newFixture(t, map[string]string{
		"managed/CLAUDE.md":              "managed policy\n",
		"managed/rules/m.md":             "managed rule\n",
		"home/.strata/CLAUDE.md":         "user prefs\n",
		"home/.strata/rules/b/z.md":      "user rule z\n",
		"home/.strata/rules/a.md":        "user rule a\n",
		"repo/CLAUDE.md":                 "root\n",
		"repo/AGENTS.md":                 "agents\n",
		"repo/CLAUDE.local.md":           "local\n",
		"repo/.claude/CLAUDE.md":         "dot claude\n",
		"repo/.claude/rules/style.md":    "style\n",
		"repo/.claude/rules/go/tests.md": "---\npaths: \"**/*_test.go\"\n---\ntests\n",
		"repo/.claude/rules/always.md":   "---\npaths: [\"**\"]\n---\nalways\n",
		"repo/.claude/rules/notes.txt":   "not a rule\n",
		"repo/svc/CLAUDE.md":             "svc\n",
		"repo/svc/api/CLAUDE.md":         "nested below cwd\n",
		"repo/svc/.claude/rules/x.md":    "svc rule\n",
		"repo/svc/CLAUDE.local.md":       "svc local\n",
		"repo/other/CLAUDE.md":           "sibling, never\n",
	})
	s := f.load("repo/svc")
	want := []string{
		"managed:session_start:managed/CLAUDE.md",
		"managed:session_start:managed/rules/m.md",
		"user:session_start:home/.strata/CLAUDE.md",
		"user:session_start:home/.strata/rules/a.md",
		"user:session_start:home/.strata/rules/b/z.md",
		"project:session_start:repo/CLAUDE.md",
		"project:session_start:repo/.claude/CLAUDE.md",
		"rule:session_start:repo/.claude/rules/always.md",
		"rule:session_start:repo/.claude/rules/style.md",
		"local:session_start:repo/CLAUDE.local.md",
		"project:session_start:repo/svc/CLAUDE.md",
		"rule:session_start:repo/svc/.claude/rules/x.md",
		"local:session_start:repo/svc/CLAUDE.local.md",
	}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("load order (-want +got):\n%s", diff)
	}
	if got := f.diags(s.Diagnostics()); len(got) != 0 {
		t.Errorf("unexpected diagnostics: %q", got)
	}
	if diff := cmp.Diff([]string{filepath.Join(f.repo, ".claude/rules/go/tests.md")}, s.PendingRules()); diff != "" {
		t.Errorf("pending rules (-want +got):\n%s", diff)
	}
	if s.ProjectRoot() != f.repo {
		t.Errorf("root %s, want %s", s.ProjectRoot(), f.repo)
	}
	// Touch: the nested file and the matching rule, once.
	got := f.rel(s.Touch(context.Background(), "api/handler_test.go"))
	want = []string{"nested:nested_traversal:repo/svc/api/CLAUDE.md", "rule:path_glob_match:repo/.claude/rules/go/tests.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("touch (-want +got):\n%s", diff)
	}
	if again := s.Touch(context.Background(), "api/other_test.go"); len(again) != 0 {
		t.Errorf("second touch added %v", f.rel(again))
	}
	src := s.Sources()[len(s.Sources())-1]
	if src.Trigger != filepath.Join(f.repo, "svc/api/handler_test.go") || src.Text != "tests\n" {
		t.Errorf("touched rule: trigger %q text %q", src.Trigger, src.Text)
	}
}

func TestInstructionFilesSetting(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":          "claude\n",
		"repo/GEMINI.md":          "gemini\n",
		"repo/AGENTS.md":          "agents\n",
		"repo/.claude/rules/r.md": "rule\n",
		"repo/CLAUDE.local.md":    "local\n",
	})
	f.opts.FileNames = []string{"GEMINI.md", "AGENTS.md"}
	got := f.rel(f.load("repo").Sources())
	want := []string{"rule:session_start:repo/.claude/rules/r.md", "project:session_start:repo/GEMINI.md",
		"project:session_start:repo/AGENTS.md", "local:session_start:repo/CLAUDE.local.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOptionsFromCaller(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/settings.json": `{"instructionFiles": ["CLAUDE.md"]}`, // not read: Load reads no settings
		"repo/AGENTS.md":             "agents\n",
		"repo/CLAUDE.md":             "not read: not in FileNames\n",
		"repo/vendor/AGENTS.md":      "excluded\n",
	})
	f.opts.FileNames = []string{"AGENTS.md"}
	f.opts.Excludes = []string{"**/vendor/**"}
	f.opts.Diagnostics = []Diagnostic{{Path: "settings.json", Line: 1, Severity: SeverityError, Message: "settings file does not parse"}}
	s := f.load("repo")
	if diff := cmp.Diff([]string{"project:session_start:repo/AGENTS.md"}, f.rel(s.Sources())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	s.Touch(context.Background(), "vendor/x.go")
	if !hasDiag(s.Diagnostics(), SeverityInfo, "repo/vendor/AGENTS.md", "claudeMdExcludes") {
		t.Errorf("no exclude diagnostic: %q", f.diags(s.Diagnostics()))
	}
	if d := s.Diagnostics(); len(d) == 0 || d[0].Message != "settings file does not parse" {
		t.Errorf("the caller's diagnostic is not first: %q", f.diags(d))
	}
}

func TestRuleGlobs(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/rules/list.md":    "---\npaths:\n  - \"src/**/*.{ts,tsx}\"\n  - docs/*.md\n---\nlist\n",
		"repo/.claude/rules/string.md":  "---\npaths: \"lib/**, cmd/*.go\"\n---\nstring\n",
		"repo/.claude/rules/under.md":   "---\npaths: web/\n---\nunder\n",
		"repo/.claude/rules/bad.md":     "---\npaths: [\"src/[\", \"ok/**\"]\n---\nbad\n",
		"repo/.claude/rules/broken.md":  "---\npaths: [unclosed\n---\nbroken\n",
		"repo/.claude/rules/third.md":   "---\ndescription: x\npaths:\n  - \"third/**\"\n  - \"[unclosed\"\n  - 规则/**\n---\nthird\n",
		"repo/.claude/rules/number.md":  "---\npaths: 3\n---\nnumber\n",
		"repo/.claude/rules/cursor.md":  "---\nglobs: \"*.ts\"\n---\ncursor\n",
		"repo/pkg/.claude/rules/pkg.md": "---\npaths: \"*.go\"\n---\npkg rule\n",
	})
	s := f.load("repo")
	start := f.rel(s.Sources())
	// broken.md's frontmatter does not parse: not loaded, as in Claude Code.
	wantStart := []string{"rule:session_start:repo/.claude/rules/cursor.md", "rule:session_start:repo/.claude/rules/number.md"}
	if diff := cmp.Diff(wantStart, start); diff != "" {
		t.Errorf("start (-want +got):\n%s", diff)
	}
	ds := s.Diagnostics()
	if !hasDiag(ds, SeverityError, "repo/.claude/rules/broken.md", "not loaded") {
		t.Errorf("broken.md: no 'not loaded' error: %q", f.diags(ds))
	}
	if !hasDiag(ds, SeverityWarning, "repo/.claude/rules/cursor.md", "globs: is Cursor's key") {
		t.Errorf("cursor.md: no warning about globs: %q", f.diags(ds))
	}
	// A bad glob of a list is reported on its own line, not on the paths: line.
	if !slices.ContainsFunc(ds, func(d Diagnostic) bool {
		return strings.HasSuffix(d.Path, "third.md") && d.Line == 5 && strings.Contains(d.Message, `"[unclosed"`)
	}) {
		t.Errorf("third.md's bad glob not reported on line 5; got %q", f.diags(ds))
	}
	for _, w := range []struct{ path, msg string }{
		{"bad.md", `glob "src/[" does not parse`},
		{"broken.md", "malformed YAML"},
		{"number.md", "paths must be a string or a list"},
	} {
		if !hasDiag(ds, SeverityError, w.path, w.msg) {
			t.Errorf("missing error %q on %s; got %q", w.msg, w.path, f.diags(ds))
		}
	}
	tests := []struct {
		touch string
		want  []string
	}{
		{"README.md", nil},
		{"src/a/b/c.tsx", []string{"rule:path_glob_match:repo/.claude/rules/list.md"}},
		{"cmd/main.go", []string{"rule:path_glob_match:repo/.claude/rules/string.md"}},
		{"web/static/x/y.css", []string{"rule:path_glob_match:repo/.claude/rules/under.md"}},
		{"ok/z", []string{"rule:path_glob_match:repo/.claude/rules/bad.md"}},
		// pkg.md is found by nested traversal and is conditional, relative to pkg/: *.go has
		// no slash, so (gitignore semantics) it matches at any depth, and it loads once.
		{"pkg/sub/x.go", []string{"rule:path_glob_match:repo/pkg/.claude/rules/pkg.md"}},
		{"pkg/main.go", nil},
		{"pkg/y.go", nil},
	}
	for _, tt := range tests {
		got := f.rel(s.Touch(context.Background(), tt.touch))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("touch %s (-want +got):\n%s", tt.touch, diff)
		}
	}
}

func TestSplitGlobs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a, b", []string{"a", " b"}},
		{"src/{a,b}/*.ts,docs/**", []string{"src/{a,b}/*.ts", "docs/**"}},
		{"x", []string{"x"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, splitGlobs(tt.in)); diff != "" {
			t.Errorf("splitGlobs(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestChinese(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":           "# 项目说明\n\n所有注释使用中文。详见@docs/规范.md。\n",
		"repo/docs/规范.md":          "代码风格：使用 gofmt。\n",
		"repo/.claude/rules/测试.md": "---\npaths: \"**/*_test.go\"\n---\n测试规则\n",
	})
	s := f.load("repo")
	want := []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/docs/规范.md"}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("(-want +got):\n%s\n%q", diff, f.diags(s.Diagnostics()))
	}
	if got := s.Sources()[len(s.Sources())-1].Tokens; got < 8 {
		t.Errorf("tokens of a CJK text %d; CJK is about one token per character", got)
	}
	if got := f.rel(s.Touch(context.Background(), "x_test.go")); len(got) != 1 {
		t.Errorf("CJK rule name: %v", got)
	}
}

// The index goes to the model as Claude Code sends it: no frontmatter, no block comments.
func TestAutomemLosesFrontmatterAndComments(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/CLAUDE.md": "root\n"})
	s := f.load("repo")
	s.AddAutomem("MEMORY.md", "---\ntitle: x\n---\n<!-- kept by hand -->\n- [Tabs](tabs.md) — tabs\n  <!-- in the item -->\n", false)
	srcs := s.Sources()
	if got, want := srcs[len(srcs)-1].Text, "- [Tabs](tabs.md) — tabs\n  <!-- in the item -->\n"; got != want {
		t.Errorf("index text %q, want %q", got, want)
	}
	// A malformed block is reported with the index's path, as an instruction file's is.
	s.AddAutomem("MEMORY.md", "---\nkey: [unclosed\n---\n- [Tabs](tabs.md) — tabs\n", false)
	if !hasDiag(s.Diagnostics(), SeverityError, "MEMORY.md", "") {
		t.Errorf("malformed frontmatter of the index not reported: %q", f.diags(s.Diagnostics()))
	}
}

func TestAutomem(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/CLAUDE.md": "root\n"})
	s := f.load("repo")
	mem := filepath.Join(f.dir, "home/.strata/projects/x/memory/MEMORY.md")
	s.AddAutomem(mem, "- [Tabs](tabs.md) — prefer tabs\n", true, Diagnostic{Path: mem, Severity: SeverityWarning, Message: "cut at 200 lines"})
	s.Touch(context.Background(), "a.go")
	srcs := s.Sources()
	last := srcs[len(srcs)-1]
	if last.Layer != LayerAutomem || !last.Truncated || last.Reason != ReasonSessionStart {
		t.Errorf("automem piece: %+v", last)
	}
	if !hasDiag(s.Diagnostics(), SeverityWarning, "MEMORY.md", "200 lines") {
		t.Error("automem diagnostic lost")
	}
	if !strings.Contains(s.Render(), `layer="automem"`) {
		t.Error("render misses the automem piece")
	}
}

// With the default names AGENTS.md is read as Claude Code 2.1.328 reads it (measured against
// the real CLI): every AGENTS.md from the root to the working directory when none of those
// directories has a CLAUDE.md, a .claude/CLAUDE.md or a non-empty CLAUDE.local.md (the user's
// CLAUDE.md does not count), none otherwise, and never on a touch.
func TestAgentsMdIsAFallback(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a CLAUDE.md above: no AGENTS.md anywhere",
			map[string]string{"repo/CLAUDE.md": "root\n", "repo/AGENTS.md": "root agents\n", "repo/a/AGENTS.md": "a agents\n"},
			[]string{"project:session_start:repo/CLAUDE.md"}},
		{"a .claude/CLAUDE.md below: no AGENTS.md anywhere",
			map[string]string{"repo/AGENTS.md": "root agents\n", "repo/a/.claude/CLAUDE.md": "a dot claude\n"},
			[]string{"project:session_start:repo/a/.claude/CLAUDE.md"}},
		{"no CLAUDE.md (an empty CLAUDE.local.md, the user's CLAUDE.md): every AGENTS.md",
			map[string]string{"home/.strata/CLAUDE.md": "user\n", "repo/AGENTS.md": "root agents\n", "repo/a/AGENTS.md": "a agents\n",
				"repo/a/CLAUDE.local.md": ""},
			[]string{"user:session_start:home/.strata/CLAUDE.md", "project:session_start:repo/AGENTS.md",
				"project:session_start:repo/a/AGENTS.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.files["repo/a/b/AGENTS.md"] = "nested agents\n"
			tt.files["repo/a/b/x.go"] = "package b\n"
			f := newFixture(t, tt.files)
			s := f.load("repo/a")
			if diff := cmp.Diff(tt.want, f.rel(s.Sources())); diff != "" {
				t.Errorf("load (-want +got):\n%s", diff)
			}
			for _, src := range s.Touch(t.Context(), filepath.Join(f.dir, "repo/a/b/x.go")) {
				if strings.HasSuffix(src.Path, "AGENTS.md") {
					t.Errorf("a touch loaded %s", src.Path)
				}
			}
		})
	}
}

func TestDuplicateFileLoadsOnce(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/AGENTS.md": "shared\n",
		"repo/CLAUDE.md": "->AGENTS.md",
	})
	f.opts.FileNames = []string{"CLAUDE.md", "AGENTS.md"} // AGENTS.md read beside CLAUDE.md
	s := f.load("repo")
	if diff := cmp.Diff([]string{"project:session_start:repo/CLAUDE.md"}, f.rel(s.Sources())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !hasDiag(s.Diagnostics(), SeverityInfo, "repo/AGENTS.md", "same file as") {
		t.Errorf("diags %q", f.diags(s.Diagnostics()))
	}
}

func TestLoadErrors(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/file": "x"})
	if _, err := Load(context.Background(), filepath.Join(f.dir, "missing"), f.opts); err == nil {
		t.Error("no error for a missing working dir")
	}
	if _, err := Load(context.Background(), filepath.Join(f.dir, "repo/file"), f.opts); err == nil {
		t.Error("no error for a file as working dir")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, f.repo, f.opts); err == nil {
		t.Error("no error for a cancelled context")
	}
}

func TestNothingFound(t *testing.T) {
	f := newFixture(t, nil)
	s := f.load("repo")
	if got := f.rel(s.Sources()); len(got) != 0 {
		t.Errorf("found %v", got)
	}
}

func TestTouchDirectory(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/web/CLAUDE.md": "web\n", "repo/web/x/y.txt": "y"})
	s := f.load("repo")
	if got := f.rel(s.Touch(context.Background(), "web")); !cmp.Equal(got, []string{"nested:nested_traversal:repo/web/CLAUDE.md"}) {
		t.Errorf("touching the directory: %v", got)
	}
	if got := s.Touch(context.Background(), "web/x/y.txt"); len(got) != 0 {
		t.Errorf("loaded twice: %v", f.rel(got))
	}
}

// A user rule's globs are relative to the working directory, as in Claude Code (a project's
// rules are relative to the directory that holds their .claude/).
func TestUserRuleGlobsFromCwd(t *testing.T) {
	f := newFixture(t, map[string]string{
		"home/.strata/rules/go.md": "---\npaths: \"src/*.go\"\n---\nuser go rule\n",
		"repo/CLAUDE.md":           "root\n",
		"repo/svc/src/a.go":        "package src\n",
	})
	s := f.load("repo/svc")
	got := f.rel(s.Touch(t.Context(), filepath.Join(f.dir, "repo/svc/src/a.go")))
	if diff := cmp.Diff([]string{"user:path_glob_match:home/.strata/rules/go.md"}, got); diff != "" {
		t.Errorf("touch (-want +got):\n%s", diff)
	}
}
