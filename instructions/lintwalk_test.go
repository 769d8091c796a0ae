package instructions

import (
	"context"
	"strings"
	"testing"
)

// Issue 16's lint cases, on fixtures shaped like the real ones: prose naming a directory is
// info; a glob import is a warning; hidden directories strata would load from are checked, and
// .git, node_modules and gitignored directories are not; case variants of instruction file names
// are warned; a missing "@./x" that exists at the root gets the fix-it hint; a missing import of
// a gitignored (generated) file is a warning naming the .gitignore line.
func TestLintCases(t *testing.T) {
	big := strings.Repeat("a line of a long skill file\n", 2500) // over 40,000 characters
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md": "Scaffold with @packages/create-opensaas-app.\nFollow @.cursor/rules/**/*.md\n" +
			"@docs/api.generated.md\n@build/out/schema.md\n",
		"repo/packages/create-opensaas-app/index.js": "x",
		"repo/.gitignore":                     "# generated\n*.generated.md\n/build/\ndist/\n",
		"repo/docs/.gitkeep":                  "",
		"repo/docs/CLAUDE.md":                 "See @./style.md\n",
		"repo/style.md":                       "style\n",
		"repo/.github/workflows/CLAUDE.md":    "@missing-ci.md\n",
		"repo/.claude/skills/react/AGENTS.md": big,
		"repo/.claude/CLAUDE.md":              "dot claude\n",
		"repo/web/Claude.md":                  "mixed case\n",
		"repo/web/.claude/claude.md":          "mixed case inside .claude\n",
		"repo/node_modules/pkg/CLAUDE.md":     "@nope.md\n",
		"repo/dist/CLAUDE.md":                 "@nope.md\n",
		"repo/.git/CLAUDE.md":                 "@nope.md\n",
	})
	s := f.load("repo")
	s.LoadAll(context.Background(), 0)
	ds := s.Lint(context.Background())
	for _, w := range []struct {
		sev       Severity
		path, msg string
	}{
		{SeverityInfo, "repo/CLAUDE.md", "@packages/create-opensaas-app: "},
		{SeverityWarning, "repo/CLAUDE.md", "@.cursor/rules/**/*.md: a glob"},
		{SeverityWarning, "repo/CLAUDE.md", `@docs/api.generated.md: no such file`},
		{SeverityWarning, "repo/CLAUDE.md", `.gitignore:2 leaves it out of the repository ("*.generated.md")`},
		{SeverityWarning, "repo/CLAUDE.md", `.gitignore:3 leaves it out of the repository ("/build/")`},
		{SeverityError, "repo/docs/CLAUDE.md", "write @../style.md"},
		{SeverityError, "repo/.github/workflows/CLAUDE.md", "@missing-ci.md: no such file"},
		{SeverityWarning, "repo/.claude/skills/react/AGENTS.md", "over the recommended 40000"},
		{SeverityWarning, "repo/web/Claude.md", "rename it to CLAUDE.md"},
		{SeverityWarning, "repo/web/.claude/claude.md", "rename it to CLAUDE.md"},
	} {
		if !hasDiag(ds, w.sev, w.path, w.msg) {
			t.Errorf("missing %s on %s containing %q; got\n%s", w.sev, w.path, w.msg, strings.Join(f.diags(ds), "\n"))
		}
	}
	for _, d := range ds {
		switch {
		case strings.Contains(d.Path, "node_modules") || strings.Contains(d.Path, "/dist/") || strings.Contains(d.Path, "/.git/"):
			t.Errorf("searched a directory lint skips: %s", d)
		case d.Severity == SeverityError && strings.HasSuffix(d.Path, "repo/CLAUDE.md"):
			t.Errorf("an error where Claude Code would load the same: %s", d)
		case strings.HasSuffix(d.Path, "repo/.claude/CLAUDE.md"):
			t.Errorf("the .claude directory's own CLAUDE.md, found again, reported: %s", d)
		}
	}
}
