package strata_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// initCompiles are calls that do real work when they run in a package initialiser: every
// process pays for them, including `strata --version`. Build them on first use instead
// (sync.OnceValue), or write the table as a literal.
var initCompiles = map[string]bool{
	"regexp.MustCompile": true, "regexp.Compile": true,
	"regexp.MustCompilePOSIX": true, "regexp.CompilePOSIX": true,
}

// TestNoCompileAtInit: no package-level variable of the module is initialised by compiling a
// regular expression (a call inside a function literal runs only when called, so it is fine).
func TestNoCompileAtInit(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, bad := range initTimeCalls(f) {
			t.Errorf("%s: package-level %s runs at start-up of every process; build it on first use", fset.Position(bad.Pos()), callName(bad))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// initTimeCalls returns the calls in f's package-level variable initialisers that are in
// initCompiles and not inside a function literal.
func initTimeCalls(f *ast.File) []*ast.CallExpr {
	var out []*ast.CallExpr
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		ast.Inspect(g, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if initCompiles[callName(n)] {
					out = append(out, n)
				}
			}
			return true
		})
	}
	return out
}

func callName(c *ast.CallExpr) string {
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			return id.Name + "." + sel.Sel.Name
		}
	}
	return ""
}

// TestInitTimeCalls: the check finds a compile in a package-level initialiser, also nested in a
// composite literal, and leaves one inside a function literal alone.
func TestInitTimeCalls(t *testing.T) {
	src := `package p
var a = regexp.MustCompile("a")
var (
	b = []pattern{{"b", regexp.MustCompile("b")}}
	c = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("c") })
)
func f() { _ = regexp.MustCompile("d") }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range initTimeCalls(f) {
		got = append(got, c.Args[0].(*ast.BasicLit).Value)
	}
	if strings.Join(got, " ") != `"a" "b"` {
		t.Errorf("initTimeCalls found %v, want the compiles of \"a\" and \"b\"", got)
	}
}
