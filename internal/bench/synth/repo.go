package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RepoLayout describes the repository Repo builds.
type RepoLayout struct {
	Root     string // repository root (holds .git)
	Cwd      string // the deepest directory of the chain: where the session starts
	DeepFile string // a file below Cwd whose directories hold no instruction file
	Levels   int    // directories in the chain, Root included, each with a CLAUDE.md
	Siblings int    // empty sibling directories next to the chain
}

// Repo builds, under dir, the repository used by "strata bench context" and the instruction
// loader's Go benchmarks: an 8-level directory chain with a CLAUDE.md at each level, each
// importing a 2 KB fragment next to it, plus 2,000 sibling directories with no instruction file
// (a loader that scans directories it does not need pays for them). The parents' fragments lie
// outside the working directory: a loader approves Root to read them (approvedExternalImports).
func Repo(dir string) (RepoLayout, error) {
	l := RepoLayout{Root: filepath.Join(dir, "repo"), Levels: 8, Siblings: 2000}
	if err := os.MkdirAll(filepath.Join(l.Root, ".git"), 0o700); err != nil {
		return l, fmt.Errorf("synth: repo: %w", err)
	}
	frag := strings.Repeat("Fragment text that the instruction file imports; it stands for a shared style guide.\n", 30)[:2048]
	d := l.Root
	for i := 0; i < l.Levels; i++ {
		if i > 0 {
			d = filepath.Join(d, fmt.Sprintf("level%d", i))
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return l, fmt.Errorf("synth: repo: %w", err)
		}
		md := fmt.Sprintf("# Level %d\n\nConventions for this part of the tree.\n\nSee @frag.md for the shared guide.\n", i)
		if err := os.WriteFile(filepath.Join(d, "CLAUDE.md"), []byte(md), 0o600); err != nil {
			return l, fmt.Errorf("synth: repo: %w", err)
		}
		if err := os.WriteFile(filepath.Join(d, "frag.md"), []byte(frag), 0o600); err != nil {
			return l, fmt.Errorf("synth: repo: %w", err)
		}
	}
	l.Cwd = d
	for i := 0; i < l.Siblings; i++ {
		if err := os.Mkdir(filepath.Join(l.Root, fmt.Sprintf("sibling%04d", i)), 0o700); err != nil {
			return l, fmt.Errorf("synth: repo: %w", err)
		}
	}
	deep := filepath.Join(l.Cwd, "src", "pkg", "deep")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		return l, fmt.Errorf("synth: repo: %w", err)
	}
	l.DeepFile = filepath.Join(deep, "file.go")
	if err := os.WriteFile(l.DeepFile, []byte("package deep\n"), 0o600); err != nil {
		return l, fmt.Errorf("synth: repo: %w", err)
	}
	return l, nil
}
