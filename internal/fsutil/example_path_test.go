package fsutil_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/strata-mem/strata/internal/fsutil"
)

// A Path is made inside a root or not at all: a .git component in any spelling and a name that
// leaves the root are refused before anything is opened.
func ExampleNewPath() {
	root, err := os.MkdirTemp("", "project")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for _, name := range []string{"notes//a/../b.md", ".git//config", ".GIT./hooks/pre-commit", "../elsewhere"} {
		p, err := fsutil.NewPath(root, name)
		switch {
		case errors.Is(err, fsutil.ErrGitComponent):
			fmt.Printf("%s: refused, a .git component\n", name)
		case errors.Is(err, fsutil.ErrOutsideRoot):
			fmt.Printf("%s: refused, outside the root\n", name)
		case err != nil:
			fmt.Printf("%s: %v\n", name, err)
		default:
			fmt.Printf("%s: %s\n", name, p.Rel())
		}
	}
	// Output:
	// notes//a/../b.md: notes/b.md
	// .git//config: refused, a .git component
	// .GIT./hooks/pre-commit: refused, a .git component
	// ../elsewhere: refused, outside the root
}
