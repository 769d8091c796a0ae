// Package strata_test holds repository-wide tests. TestLayering keeps the import graph of
// docs/design.md true: a package may import only packages on a lower rung.
package strata_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/strata-mem/strata"

// rungs lists every package of the module, lowest first. A package may import packages on lower
// rungs only. A new package must be added here, on purpose.
var rungs = [][]string{
	{"internal/fsutil", "internal/fastio", "internal/sharedtest", "tokens", "frontmatter", "config"},
	{"conversation", "work"},
	{"transcript", "memdir", "instructions"},
	{"recall"},
	{"llm", "llm/anthropic", "llm/openai", "llm/llmtest"},
	{"compact", "extract"},
	{"agent"},
	{"mcpserver", "internal/cli"},
	{"cmd/strata"},
}

// Within the llm rung the implementations sit on top of the interface.
var sameRungAllowed = map[[2]string]bool{
	{"llm/anthropic", "llm"}:      true,
	{"llm/openai", "llm"}:         true,
	{"llm/llmtest", "llm"}:        true,
	{"compact", "extract"}:        false,
	{"extract", "compact"}:        true,
	{"internal/cli", "mcpserver"}: true,
}

func rungOf() map[string]int {
	rung := map[string]int{}
	for i, pkgs := range rungs {
		for _, p := range pkgs {
			rung[p] = i
		}
	}
	return rung
}

// checkImports returns one message per import of pkg (a module-relative path) that breaks the
// layering.
func checkImports(pkg string, imports []string, rung map[string]int) []string {
	var msgs []string
	r := rung[pkg]
	imports = append([]string(nil), imports...)
	sort.Strings(imports)
	for _, imp := range imports {
		dep, ok := strings.CutPrefix(imp, module+"/")
		if !ok {
			continue
		}
		dr, known := rung[dep]
		switch {
		case !known:
			msgs = append(msgs, pkg+" imports "+dep+", which is not placed on a rung")
		case dr > r || dr == r && !sameRungAllowed[[2]string{pkg, dep}]:
			msgs = append(msgs, pkg+" imports "+dep+": a lower package must not import a higher one")
		}
	}
	return msgs
}

func TestCheckImportsCatchesViolations(t *testing.T) {
	rung := rungOf()
	tests := []struct {
		pkg     string
		imports []string
		bad     int
	}{
		{"memdir", []string{"fmt", module + "/config", module + "/internal/fsutil"}, 0},
		{"memdir", []string{module + "/recall"}, 1},                  // upward
		{"memdir", []string{module + "/instructions"}, 1},            // same rung, not allowed
		{"tokens", []string{module + "/agent", module + "/nope"}, 2}, // upward and unknown
		{"llm/openai", []string{module + "/llm"}, 0},                 // allowed same-rung edge
	}
	for _, tt := range tests {
		if got := checkImports(tt.pkg, tt.imports, rung); len(got) != tt.bad {
			t.Errorf("checkImports(%s, %v) = %v, want %d violations", tt.pkg, tt.imports, got, tt.bad)
		}
	}
}

func TestLayering(t *testing.T) {
	rung := rungOf()
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
		_, ok := rung[rel]
		if !ok {
			t.Errorf("package %s is not placed on a rung in deps_test.go", rel)
			return nil
		}
		for _, msg := range checkImports(rel, pkg.Imports, rung) {
			t.Error(msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 4 {
		t.Fatalf("checked only %d packages; is the walk broken?", seen)
	}
}
