package instructions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImports(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md": "root\n@docs/a.md\n`@docs/code.md`\n```\n@docs/fenced.md\n```\n" +
			"@~/personal.md @../outside.md @./docs @docs/ @types/node @Component @missing.md\n" +
			"@./docs/b.md, and @docs/b.md again; @home.md @/etc/hostname\n",
		"repo/docs/a.md":         "a imports @sub/c.md\n",
		"repo/docs/sub/c.md":     "c\n",
		"repo/docs/b.md":         "b\n",
		"repo/docs/code.md":      "never\n",
		"repo/docs/fenced.md":    "never\n",
		"home/personal.md":       "personal\n",
		"outside.md":             "outside\n",
		"repo/home.md":           "->../home/.strata/shared.md",
		"home/.strata/shared.md": "under STRATA_HOME\n",
	})
	s := f.load("repo")
	want := []string{
		"project:session_start:repo/CLAUDE.md",
		"import:include:repo/docs/a.md",
		"import:include:repo/docs/sub/c.md",
		"import:include:repo/docs/b.md",
	}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ds := s.Diagnostics()
	for _, w := range []struct {
		sev Severity
		msg string
	}{
		{SeverityError, "@~/personal.md: refused"},
		{SeverityError, "@../outside.md: refused"},
		{SeverityInfo, "@./docs: "},
		{SeverityInfo, "@docs/: "},
		{SeverityError, "@missing.md: no such file"},
		{SeverityInfo, "@docs/b.md: "},
		{SeverityError, "@/etc/hostname: refused"},
		{SeverityError, "@home.md: refused"}, // a link out of the working directory, to STRATA_HOME
	} {
		if !hasDiag(ds, w.sev, "repo/CLAUDE.md", w.msg) {
			t.Errorf("missing %s %q in %q", w.sev, w.msg, f.diags(ds))
		}
	}
	for _, d := range ds {
		if strings.Contains(d.Message, "@types/node") || strings.Contains(d.Message, "@Component") {
			t.Errorf("an npm scope or decorator reported: %s", d)
		}
	}
	// An import's origin names its importer.
	for _, src := range s.Sources() {
		if strings.HasSuffix(src.Path, "sub/c.md") && (src.ImportedBy != filepath.Join(f.repo, "docs/a.md") || src.Depth != 2) {
			t.Errorf("c.md: imported by %q depth %d", src.ImportedBy, src.Depth)
		}
	}
	// Approved external imports load.
	f.opts.ApprovedImports = []string{"~/personal.md", filepath.Join(f.dir, "outside.md")}
	s = f.load("repo")
	got := strings.Join(f.rel(s.Sources()), " ")
	if !strings.Contains(got, "home/personal.md") || !strings.Contains(got, "import:include:outside.md") {
		t.Errorf("approved imports not loaded: %s\n%q", got, f.diags(s.Diagnostics()))
	}
}

func TestImportDepth(t *testing.T) {
	files := map[string]string{"repo/CLAUDE.md": "@f1.md\n"}
	for i := 1; i <= 7; i++ {
		files[fmt.Sprintf("repo/f%d.md", i)] = fmt.Sprintf("file %d\n@f%d.md\n", i, i+1)
	}
	f := newFixture(t, files)
	s := f.load("repo")
	got := f.rel(s.Sources())
	if len(got) != 1+MaxImportDepth {
		t.Errorf("loaded %d pieces, want the file and %d hops: %v", len(got), MaxImportDepth, got)
	}
	if !strings.HasSuffix(got[len(got)-1], "f4.md") {
		t.Errorf("last loaded %s, want f4.md (4 hops, as Claude Code follows)", got[len(got)-1])
	}
	if !hasDiag(s.Diagnostics(), SeverityError, "repo/f4.md", "deeper than 4 hops") {
		t.Errorf("no depth error: %q", f.diags(s.Diagnostics()))
	}
}

func TestImportCycles(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md": "@a.md\n",
		"repo/a.md":      "@b.md\n",
		"repo/b.md":      "@a.md\n@self.md\n",
		"repo/self.md":   "@link.md\n",
		"repo/link.md":   "->self.md",
		"repo/loop1.md":  "->loop2.md",
		"repo/loop2.md":  "->loop1.md",
		"repo/AGENTS.md": "@loop1.md\n",
	})
	f.opts.FileNames = []string{"CLAUDE.md", "AGENTS.md"} // AGENTS.md read beside CLAUDE.md
	s := f.load("repo")
	want := []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/a.md", "import:include:repo/b.md", "import:include:repo/self.md", "project:session_start:repo/AGENTS.md"}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ds := s.Diagnostics()
	if !hasDiag(ds, SeverityError, "repo/b.md", "import cycle") {
		t.Errorf("no cycle error on b.md: %q", f.diags(ds))
	}
	if !hasDiag(ds, SeverityError, "repo/self.md", "import cycle") {
		t.Errorf("no cycle error through a symlink: %q", f.diags(ds))
	}
	if !hasDiag(ds, SeverityError, "repo/AGENTS.md", "symlink loop") {
		t.Errorf("no symlink loop error: %q", f.diags(ds))
	}
}

func TestRootRelativeHint(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/CLAUDE.md":      "@.claude/conventions.md\n",
		"repo/.claude/conventions.md": "conventions\n",
	})
	s := f.load("repo")
	if !hasDiag(s.Diagnostics(), SeverityError, "repo/.claude/CLAUDE.md", "write @conventions.md") {
		t.Errorf("no hint: %q", f.diags(s.Diagnostics()))
	}
}

func TestImportFromConditionalRule(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/rules/api.md": "---\npaths: api/**\n---\nSee @../../docs/api.md\n",
		"repo/docs/api.md":          "api guide\n",
	})
	s := f.load("repo")
	got := f.rel(s.Touch(context.Background(), "api/v1/h.go"))
	want := []string{"rule:path_glob_match:repo/.claude/rules/api.md", "import:include:repo/docs/api.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s\n%q", diff, f.diags(s.Diagnostics()))
	}
}

// The user's own instructions may import from anywhere under their home, as in Claude Code; a
// project's may not without approval.
func TestUserInstructionsImportFromHome(t *testing.T) {
	f := newFixture(t, map[string]string{
		"home/.strata/CLAUDE.md": "@~/notes/style.md\n",
		"home/notes/style.md":    "user style notes\n",
		"home/notes/other.md":    "not for projects\n",
		"repo/CLAUDE.md":         "@~/notes/other.md\n",
	})
	s := f.load("repo")
	got := strings.Join(f.rel(s.Sources()), " ")
	if !strings.Contains(got, "import:include:home/notes/style.md") {
		t.Errorf("the user's import did not load: %s\n%q", got, f.diags(s.Diagnostics()))
	}
	if strings.Contains(got, "other.md") || !hasDiag(s.Diagnostics(), SeverityError, "repo/CLAUDE.md", "@~/notes/other.md: refused") {
		t.Errorf("the project's import of a home file must be refused: %s\n%q", got, f.diags(s.Diagnostics()))
	}
}

// A project's imports stay inside the working directory, as Claude Code keeps them until an
// import is approved: from a parent's CLAUDE.md too.
func TestImportsStayInsideTheCwd(t *testing.T) {
	files := map[string]string{
		"repo/CLAUDE.md":     "root @docs/x.md\n",
		"repo/docs/x.md":     "x\n",
		"repo/sub/CLAUDE.md": "sub @../docs/y.md @z.md\n",
		"repo/docs/y.md":     "y\n",
		"repo/sub/z.md":      "z\n",
	}
	f := newFixture(t, files)
	s := f.load("repo/sub")
	want := []string{"project:session_start:repo/CLAUDE.md", "project:session_start:repo/sub/CLAUDE.md", "import:include:repo/sub/z.md"}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("from repo/sub (-want +got):\n%s", diff)
	}
	if !hasDiag(s.Diagnostics(), SeverityError, "repo/CLAUDE.md", "outside the working directory") {
		t.Errorf("no refusal of the parent's import: %q", f.diags(s.Diagnostics()))
	}
	s = f.load("repo")
	if got := strings.Join(f.rel(s.Sources()), " "); !strings.Contains(got, "import:include:repo/docs/x.md") {
		t.Errorf("from repo the same import loads: %s", got)
	}
	f.opts.ApprovedImports = []string{filepath.Join(f.dir, "repo/docs")}
	s = f.load("repo/sub")
	if got := strings.Join(f.rel(s.Sources()), " "); !strings.Contains(got, "repo/docs/x.md") || !strings.Contains(got, "repo/docs/y.md") {
		t.Errorf("approved, both load: %s", got)
	}
}

// Nothing under .git is imported, in any spelling: a cloned repository's CLAUDE.md could
// otherwise put the clone's git configuration (remote URLs with credentials) in the context.
func TestImportsNeverReadGit(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":         "rules @.git/config @./.GIT/info/exclude @docs/x.md\n",
		"repo/.git/config":       "[remote \"origin\"]\n\turl = https://bob:hunter2@example.com/r.git\n",
		"repo/.git/info/exclude": "secret-exclude\n",
		"repo/docs/x.md":         "x\n",
	})
	s := f.load("repo")
	want := []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/docs/x.md"}
	if diff := cmp.Diff(want, f.rel(s.Sources())); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if !hasDiag(s.Diagnostics(), SeverityError, "repo/CLAUDE.md", "under .git") {
		t.Errorf("no refusal naming .git: %q", f.diags(s.Diagnostics()))
	}
	if strings.Contains(s.Render(), "hunter2") {
		t.Error("the git configuration is in the rendered text")
	}
}
