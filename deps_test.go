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
	{"internal/fsutil", "tokens", "frontmatter", "config"},
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

func TestLayering(t *testing.T) {
	rung := map[string]int{}
	for i, pkgs := range rungs {
		for _, p := range pkgs {
			rung[p] = i
		}
	}
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
		if strings.HasPrefix(rel, "internal/deps") {
			return nil
		}
		seen++
		r, ok := rung[rel]
		if !ok {
			t.Errorf("package %s is not placed on a rung in deps_test.go", rel)
			return nil
		}
		imports := append([]string(nil), pkg.Imports...)
		sort.Strings(imports)
		for _, imp := range imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			dr, known := rung[dep]
			switch {
			case !known:
				t.Errorf("%s imports %s, which is not placed on a rung", rel, dep)
			case dr > r || dr == r && !sameRungAllowed[[2]string{rel, dep}]:
				t.Errorf("%s (rung %d) imports %s (rung %d): a lower package must not import a higher one", rel, r, dep, dr)
			}
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
