// Package strata_test holds repository-wide tests. TestDeps keeps the import graph of
// docs/design.md true: every package of the module may import only the module packages its
// line in deps names, and every such edge points down the rungs of the picture.
package strata_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/strata-mem/strata"

// deps is the allow-list, in the style of the Go tree's go/build/deps_test.go: one line a
// package, naming (module-relative) every module package that its non-test files may import;
// after "<", what its tests may import besides. An import not on its package's line fails
// TestDeps, and so does a package without a line: a new package, or a new edge, is added here
// on purpose. Standard-library and third-party imports are not listed.
var deps = map[string]string{
	"config":               "internal/fsutil",
	"frontmatter":          "",
	"internal/fastio":      "",
	"internal/fsutil":      "",
	"internal/sharedtest":  "",
	"internal/sandbox":     "",
	"internal/shell":       "",
	"internal/termtext":    "",
	"tokens":               "",
	"conversation":         "tokens",
	"work":                 "< internal/sharedtest",
	"instructions":         "config frontmatter internal/fastio internal/fsutil tokens < internal/sharedtest",
	"memdir":               "config frontmatter internal/fastio internal/fsutil internal/termtext tokens < internal/sharedtest",
	"toolcall":             "work",
	"transcript":           "config conversation internal/fastio internal/fsutil internal/termtext < internal/sharedtest",
	"internal/bench/synth": "internal/fsutil transcript < config conversation instructions memdir",
	"recall":               "internal/fastio internal/fsutil internal/termtext memdir < internal/bench/synth internal/sharedtest",
	"memsync":              "frontmatter internal/fsutil memdir",
	"llm":                  "config conversation",
	"llm/anthropic":        "conversation llm llm/internal/wire < llm/llmtest",
	"llm/internal/wire":    "",
	"llm/llmtest":          "conversation llm llm/internal/wire",
	"llm/openai":           "conversation llm llm/internal/wire < config llm/llmtest",
	"compact":              "conversation instructions internal/fsutil llm tokens toolcall transcript work < internal/sharedtest llm/anthropic llm/llmtest",
	"extract":              "compact conversation frontmatter internal/fsutil internal/shell llm memdir recall tokens toolcall < internal/sharedtest llm/anthropic llm/llmtest llm/openai",
	"permission":           "internal/fsutil internal/shell toolcall",
	"usage":                "llm < conversation llm/anthropic llm/llmtest",
	"tool":                 "conversation internal/fsutil internal/sandbox internal/shell llm memdir permission recall toolcall work",
	"workspace":            "config extract instructions internal/fsutil internal/sandbox llm memdir permission recall tool transcript < internal/bench/synth",
	"prompt":               "compact conversation instructions internal/fsutil llm recall tool < config workspace",
	"agent":                "compact conversation extract instructions internal/sandbox llm memdir permission prompt recall tool toolcall transcript usage work workspace < config internal/bench/synth internal/sharedtest llm/anthropic llm/llmtest llm/openai memsync tokens",
	"internal/bench":       "config conversation instructions internal/bench/synth internal/fastio memdir memsync recall transcript workspace < internal/sharedtest",
	"mcpserver":            "config instructions internal/fsutil memdir recall transcript workspace < internal/bench internal/bench/synth",
	"mcpclient":            "config internal/fsutil",
	"internal/webui":       "config conversation extract instructions internal/fsutil llm memdir memsync recall transcript workspace < internal/bench/synth internal/sharedtest llm/anthropic llm/llmtest",
	"internal/chatui":      "agent conversation internal/fsutil internal/termtext llm permission tokens toolcall",
	"internal/cli":         "agent compact config conversation extract instructions internal/bench internal/bench/synth internal/chatui internal/fastio internal/fsutil internal/sandbox internal/shell internal/termtext internal/webui llm llm/anthropic llm/openai mcpclient mcpserver memdir memsync permission recall tokens tool transcript usage workspace < internal/sharedtest llm/llmtest",
	"cmd/strata":           "internal/cli internal/sandbox",
}

// rungs is the picture of docs/design.md, lowest first. Every edge that deps allows must point
// to a lower rung (within a rung, only the pairs in sameRung), so the allow-list cannot grow an
// upward edge either.
var rungs = [][]string{
	{"internal/fsutil", "internal/fastio", "internal/sandbox", "internal/sharedtest", "internal/shell", "internal/termtext", "llm/internal/wire", "tokens", "frontmatter", "config"},
	{"conversation", "work"},
	{"transcript", "memdir", "instructions", "toolcall", "mcpclient"},
	{"recall", "internal/bench/synth", "memsync", "permission"},
	{"llm", "llm/anthropic", "llm/openai", "llm/llmtest"},
	{"compact", "extract", "tool", "usage"},
	{"workspace"},
	{"prompt"},
	{"agent", "internal/bench", "internal/webui"},
	{"mcpserver", "internal/cli", "internal/chatui"},
	{"cmd/strata"},
}

// sameRung lists the edges allowed within one rung: the providers and the fake servers sit on
// the llm interface, extraction's worker uses compact's forker, the CLI serves MCP; and tests
// may use a neighbour (the fake servers, the benchmarks' synthetic data).
var sameRung = map[[2]string]bool{
	{"llm/anthropic", "llm"}:                 true,
	{"llm/openai", "llm"}:                    true,
	{"llm/llmtest", "llm"}:                   true,
	{"llm/anthropic", "llm/llmtest"}:         true,
	{"llm/openai", "llm/llmtest"}:            true,
	{"extract", "compact"}:                   true,
	{"config", "internal/fsutil"}:            true, // settings are read as regular files only
	{"internal/cli", "mcpserver"}:            true,
	{"internal/cli", "internal/chatui"}:      true, // chat's terminal UI
	{"recall", "internal/bench/synth"}:       true,
	{"internal/bench/synth", "instructions"}: true,
	{"internal/bench/synth", "memdir"}:       true,
	{"internal/bench/synth", "transcript"}:   true,
}

// allowed parses deps: for each package, its allowed imports and its tests' extra ones.
func allowed() (code, tests map[string][]string) {
	code, tests = map[string][]string{}, map[string][]string{}
	for pkg, line := range deps {
		c, t, _ := strings.Cut(line, "<")
		code[pkg] = strings.Fields(c)
		tests[pkg] = strings.Fields(t)
	}
	return code, tests
}

// checkImports returns one message per module import of pkg (module-relative) that its line in
// deps does not allow; test says whether imports come from test files (which may also use
// what the line allows after "<").
func checkImports(pkg string, imports []string, test bool) []string {
	code, tests := allowed()
	ok, known := code[pkg]
	if !known {
		return []string{pkg + " has no line in deps (deps_test.go): add one, naming what it may import"}
	}
	if test {
		ok = append(slices.Clone(ok), tests[pkg]...)
	}
	var msgs []string
	imports = slices.Clone(imports)
	sort.Strings(imports)
	for _, imp := range imports {
		dep, mod := strings.CutPrefix(imp, module+"/")
		if !mod || dep == pkg {
			continue
		}
		if !slices.Contains(ok, dep) {
			kind := "imports"
			if test {
				kind = "tests import"
			}
			msgs = append(msgs, pkg+" "+kind+" "+dep+", which its line in deps (deps_test.go) does not allow")
		}
	}
	return msgs
}

// checkPicture returns one message per edge of deps that does not point down the rungs, and
// per package of deps that has no rung.
func checkPicture() []string {
	rung := map[string]int{}
	for i, pkgs := range rungs {
		for _, p := range pkgs {
			rung[p] = i
		}
	}
	var msgs []string
	code, tests := allowed()
	for pkg := range deps {
		r, ok := rung[pkg]
		if !ok {
			msgs = append(msgs, pkg+" is on no rung of deps_test.go")
			continue
		}
		for _, dep := range append(slices.Clone(code[pkg]), tests[pkg]...) {
			dr, ok := rung[dep]
			switch {
			case !ok:
				msgs = append(msgs, pkg+" may import "+dep+", which is on no rung")
			case dr > r || dr == r && !sameRung[[2]string{pkg, dep}]:
				msgs = append(msgs, pkg+" may import "+dep+", which is not below it")
			}
		}
	}
	sort.Strings(msgs)
	return msgs
}

func TestCheckImportsCatchesViolations(t *testing.T) {
	tests := []struct {
		pkg     string
		imports []string
		test    bool
		bad     int
	}{
		{"memdir", []string{"fmt", module + "/config", module + "/internal/fsutil"}, false, 0},
		{"memdir", []string{module + "/recall"}, false, 1},                     // upward
		{"memdir", []string{module + "/instructions"}, false, 1},               // same rung, not listed
		{"mcpserver", []string{module + "/agent"}, false, 1},                   // lower, but not listed
		{"mcpserver", []string{module + "/internal/bench"}, false, 1},          // a test-only edge in code
		{"mcpserver", []string{module + "/internal/bench"}, true, 0},           // ... allowed in tests
		{"tokens", []string{module + "/agent", module + "/nope"}, false, 2},    // upward and unknown
		{"llm/openai", []string{module + "/llm"}, false, 0},                    // listed same-rung edge
		{"newpkg", []string{"fmt"}, false, 1},                                  // no line
		{"agent", []string{module + "/agent", module + "/workspace"}, true, 0}, // itself, listed
	}
	for _, tt := range tests {
		if got := checkImports(tt.pkg, tt.imports, tt.test); len(got) != tt.bad {
			t.Errorf("checkImports(%s, %v, test=%v) = %v, want %d violations", tt.pkg, tt.imports, tt.test, got, tt.bad)
		}
	}
}

func TestCheckPictureCatchesUpwardEdges(t *testing.T) {
	if msgs := checkPicture(); len(msgs) != 0 {
		t.Fatalf("deps disagrees with rungs:\n%s", strings.Join(msgs, "\n"))
	}
	deps["memdir"] += " recall" // an upward edge slipped into the allow-list
	defer func() { deps["memdir"] = strings.TrimSuffix(deps["memdir"], " recall") }()
	if msgs := checkPicture(); len(msgs) != 1 || !strings.Contains(msgs[0], "memdir may import recall") {
		t.Fatalf("checkPicture with memdir → recall = %v, want one message about it", msgs)
	}
}

func TestDeps(t *testing.T) {
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "docs" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if path == "." || pkg.Name == "main" && path != "cmd/strata" {
			return nil
		}
		rel := filepath.ToSlash(path)
		seen++
		for _, msg := range checkImports(rel, pkg.Imports, false) {
			t.Error(msg)
		}
		for _, msg := range checkImports(rel, append(slices.Clone(pkg.TestImports), pkg.XTestImports...), true) {
			t.Error(msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(deps) {
		t.Fatalf("checked %d packages, deps lists %d: is the walk broken, or a line stale?", seen, len(deps))
	}
	for _, msg := range checkPicture() {
		t.Error(msg)
	}
}

// TestDesignPicture keeps the picture in docs/design.md the same as rungs: its lines, read
// from the top, are the rungs from the highest; "dir/{a,b}" names dir/a and dir/b.
func TestDesignPicture(t *testing.T) {
	data, err := os.ReadFile("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## The picture")
	_, rest, ok2 := strings.Cut(rest, "```\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/design.md: no fenced block under \"## The picture\"")
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		var pkgs []string
		for _, f := range strings.Fields(line) {
			dir, set, brace := strings.Cut(f, "{")
			if !brace {
				pkgs = append(pkgs, f)
				continue
			}
			for _, name := range strings.Split(strings.TrimSuffix(set, "}"), ",") {
				pkgs = append(pkgs, dir+name)
			}
		}
		got = append([][]string{pkgs}, got...)
	}
	if len(got) != len(rungs) {
		t.Fatalf("docs/design.md's picture has %d lines, rungs has %d", len(got), len(rungs))
	}
	for i := range rungs {
		want := slices.Sorted(slices.Values(rungs[i]))
		if have := slices.Sorted(slices.Values(got[i])); !slices.Equal(have, want) {
			t.Errorf("docs/design.md's picture, rung %d (line %d from the bottom): %v, deps_test.go: %v", i, i+1, have, want)
		}
	}
}
