package instructions_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
)

// exampleRepo builds a small repository in a temp dir and returns it with load options that
// keep the machine's own STRATA_HOME out of the way.
func exampleRepo(files map[string]string) (string, instructions.Options) {
	dir, _ := os.MkdirTemp("", "strata-example-")
	dir, _ = filepath.EvalSymlinks(dir)
	for rel, content := range files {
		p := filepath.Join(dir, "repo", rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(content), 0o600)
	}
	os.MkdirAll(filepath.Join(dir, "repo", ".git"), 0o700)
	return dir, instructions.Options{Env: config.Env{Home: filepath.Join(dir, "home"), ManagedDir: filepath.Join(dir, "managed"), UserHome: dir}}
}

func show(dir string, srcs []instructions.Source) {
	for _, s := range srcs {
		if rel, ok := strings.CutPrefix(s.Path, dir+"/"); ok {
			fmt.Printf("%-8s %-16s %s\n", s.Layer, s.Reason, rel)
		}
	}
}

func ExampleLoad() {
	dir, opts := exampleRepo(map[string]string{
		"CLAUDE.md":           "# Project\nRun `make test` before committing. Style: @docs/style.md\n",
		"docs/style.md":       "Tabs, not spaces.\n<!-- note for humans: the model never sees this -->\n",
		"CLAUDE.local.md":     "My sandbox URL is http://localhost:8080.\n",
		".claude/rules/go.md": "---\npaths: \"**/*.go\"\n---\nWrap errors with %w.\n",
	})
	defer os.RemoveAll(dir)
	set, err := instructions.Load(context.Background(), filepath.Join(dir, "repo"), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	show(dir, set.Sources())
	fmt.Println("waiting for a touch:", len(set.PendingRules()), "rule")
	// Output:
	// project  session_start    repo/CLAUDE.md
	// import   include          repo/docs/style.md
	// local    session_start    repo/CLAUDE.local.md
	// waiting for a touch: 1 rule
}

func ExampleSet_Touch() {
	dir, opts := exampleRepo(map[string]string{
		"CLAUDE.md":           "# Project\n",
		".claude/rules/go.md": "---\npaths: \"**/*.go\"\n---\nWrap errors with %w.\n",
		"web/CLAUDE.md":       "Use pnpm here.\n",
	})
	defer os.RemoveAll(dir)
	ctx := context.Background()
	set, _ := instructions.Load(ctx, filepath.Join(dir, "repo"), opts)
	show(dir, set.Touch(ctx, "web/src/app.go"))
	fmt.Println("again:", len(set.Touch(ctx, "web/src/app.go")))
	// Output:
	// nested   nested_traversal repo/web/CLAUDE.md
	// rule     path_glob_match  repo/.claude/rules/go.md
	// again: 0
}

func ExampleSet_Render() {
	dir, opts := exampleRepo(map[string]string{
		"CLAUDE.md": "Be brief.\n<!-- reviewers: keep this file short -->\n",
	})
	defer os.RemoveAll(dir)
	set, _ := instructions.Load(context.Background(), filepath.Join(dir, "repo"), opts)
	set.AddAutomem(filepath.Join(dir, "memory", "MEMORY.md"), "- [Tabs](tabs.md) — the user prefers tabs\n", false)
	fmt.Print(strings.ReplaceAll(set.Render(), dir, "$TMP"))
	// Output:
	// <instructions path="$TMP/repo/CLAUDE.md" layer="project" reason="session_start">
	// Be brief.
	// </instructions>
	//
	// <instructions path="$TMP/memory/MEMORY.md" layer="automem" reason="session_start">
	// - [Tabs](tabs.md) — the user prefers tabs
	// </instructions>
}

func ExampleStripComments() {
	fmt.Print(instructions.StripComments("Keep PRs small.\n<!-- TODO: reword -->\n```html\n<!-- kept: code -->\n```\n"))
	// Output:
	// Keep PRs small.
	// ```html
	// <!-- kept: code -->
	// ```
}
