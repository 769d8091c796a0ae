package instructions

import (
	"context"
	"github.com/strata-mem/strata/internal/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
)

// corpusDir finds ../shared/corpus/instructions next to the repository root.
func corpusDir(t *testing.T) string {
	t.Helper()
	return sharedtest.Dir(t, "corpus", "instructions")
}

// TestCorpus loads every real-world hierarchy of the shared corpus, from its root and with
// everything below loaded, and checks that the diagnostics are ones a person would agree with:
// no npm scope, decorator or path alias is taken for a missing import; every missing import is
// written like a file path; and the known-broken imports of the corpus are found.
func TestCorpus(t *testing.T) {
	root := corpusDir(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	opts := Options{Env: config.Env{Home: filepath.Join(home, ".strata"), ManagedDir: filepath.Join(home, "managed"), UserHome: home}}
	var all []Diagnostic
	repos := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		repos++
		dir := filepath.Join(root, e.Name())
		o := opts
		o.ProjectRoot = dir
		s, err := Load(context.Background(), dir, o)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		s.LoadAll(context.Background(), 0)
		_ = s.Render()
		if len(s.Sources()) == 0 {
			t.Errorf("%s: nothing loaded", e.Name())
		}
		ds := s.Lint(context.Background())
		all = append(all, ds...)
		for _, d := range ds {
			if d.Path == "" || !strings.HasPrefix(d.Path, "/") {
				t.Errorf("%s: diagnostic without an absolute path: %s", e.Name(), d)
			}
			if i := strings.Index(d.Message, ": no such file"); i > 0 && strings.HasPrefix(d.Message, "@") {
				p := d.Message[1:i]
				if !fileLike(p) {
					t.Errorf("missing import that is not written like a file: %s", d)
				}
			}
			for _, bad := range []string{"@langfuse/", "@btc-connect/", "@claude-flow/", "@ai-sdk/", "@types/", "@prefect/", "@/mocks", "@sandbox", "@tools.", "@pytest", "@runner.", "@click", "@vite-pwa", "@nuxt"} {
				if strings.HasPrefix(d.Message, bad) {
					t.Errorf("not an import, yet reported: %s", d)
				}
			}
			if d.Severity == SeverityError && strings.Contains(d.Message, "/tmp/registry.json") {
				t.Errorf("an @ inside a code block or span was followed: %s", d)
			}
		}
	}
	if repos < 5 {
		t.Fatalf("only %d hierarchies in the corpus", repos)
	}
	// Known problems of the corpus, which must be found.
	for _, w := range []struct{ path, msg string }{
		{"xsynaptic__spectralcodex/.claude/CLAUDE.md", "write @conventions.md"},
		{"88lin__divinesense/.claude/rules/code-style.md", "write @file-editing.md"},
		{"import-references-used/tests/fail/.claude/rules/example.md", "@../nonexistent-file.md: no such file"},
		{"1mp3ctz__ruflo/CLAUDE.md", "characters, over the recommended"},
	} {
		if !hasDiag(all, SeverityError, w.path, w.msg) && !hasDiag(all, SeverityWarning, w.path, w.msg) {
			t.Errorf("expected a diagnostic on %s containing %q", w.path, w.msg)
		}
	}
	if testing.Verbose() {
		for _, d := range all {
			t.Log(strings.TrimPrefix(d.String(), root+"/"))
		}
	}
}

// TestCorpusLintErrors is issue 16's "done when": lint on every repository of the corpus
// reports no error that Claude Code would not also get wrong. Each error left is listed with
// why it is one; any other fails the test. (Before issue 16, the same run also missed an
// 81,373-character AGENTS.md under langfuse's hidden web/.agents/skills/, which strata loads
// on a touch.)
func TestCorpusLintErrors(t *testing.T) {
	root, err := filepath.EvalSymlinks(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	// path (relative to the corpus) and message start → why Claude Code gets it wrong too.
	known := map[string]string{
		// Written relative to the project root; imports are relative to the importing file, in
		// Claude Code as in strata, so these load nothing there either (the hint says the fix).
		"88lin__divinesense/.claude/rules/code-style.md:@.claude/rules/file-editing.md":  "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/conventions.md":             "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/context/architecture.md":    "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/context/commands.md":        "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/context/troubleshooting.md": "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/tasks/active.md":            "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/tasks/backlog.md":           "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/tasks/completed.md":         "root-relative import",
		"xsynaptic__spectralcodex/.claude/CLAUDE.md:@.claude/tasks/drafts.md":            "root-relative import",
		// A linter's test fixtures: upstream keeps docs/ beside .claude/, not beside the rule
		// file, and has no docs/style.md at all; the "fail" fixture is broken on purpose.
		"reporails__cli/framework/rules/core/import-targets-resolve/tests/pass/.claude/rules/example.md:@docs/style.md":          "missing upstream too",
		"reporails__cli/framework/rules/core/import-targets-resolve/tests/pass/.claude/rules/example.md:@docs/commit-skill.md":   "root-relative import",
		"reporails__cli/framework/rules/core/import-references-used/tests/fail/.claude/rules/example.md:@../nonexistent-file.md": "broken on purpose",
	}
	home := t.TempDir()
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		s, err := Load(context.Background(), dir, Options{ProjectRoot: dir,
			Env: config.Env{Home: filepath.Join(home, ".strata"), ManagedDir: filepath.Join(home, "managed"), UserHome: home}})
		if err != nil {
			t.Fatal(err)
		}
		s.LoadAll(context.Background(), 0)
		for _, d := range s.Lint(context.Background()) {
			if d.Severity != SeverityError {
				continue
			}
			tok, _, _ := strings.Cut(d.Message, ": ")
			key := strings.TrimPrefix(d.Path, root+"/") + ":" + tok
			if _, ok := known[key]; !ok {
				t.Errorf("lint error not known to be one Claude Code also gets wrong: %s", d)
			}
			seen[key] = true
		}
	}
	for k := range known {
		if !seen[k] {
			t.Errorf("known error no longer reported (update the list): %s", k)
		}
	}
}
