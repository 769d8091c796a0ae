package memdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/sharedtest"
)

// corpusInstructionTexts returns the text of every Markdown file under the shared corpus's
// instruction repositories (real CLAUDE.md, AGENTS.md and rule files), or skips.
func corpusInstructionTexts(tb testing.TB) []string {
	tb.Helper()
	root := sharedtest.Dir(tb, "corpus", "instructions")
	var texts []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		texts = append(texts, string(data))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return texts
}

// BenchmarkScanSecretsInstructions scans every real instruction file of the corpus, as a session
// start scans each piece it loads the first time (without the cache).
func BenchmarkScanSecretsInstructions(b *testing.B) {
	texts := corpusInstructionTexts(b)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, t := range texts {
			scanSecrets(t)
		}
	}
}

// BenchmarkScanSecretsSynthetic scans the pieces of the synthetic repository of "strata bench
// context", a short CLAUDE.md and a 2 KB fragment of prose, without the cache: what a process's
// first load pays for each of its eight levels.
func BenchmarkScanSecretsSynthetic(b *testing.B) {
	md := "# Level 3\n\nConventions for this part of the tree.\n\nSee @frag.md for the shared guide.\n"
	frag := strings.Repeat("Fragment text that the instruction file imports; it stands for a shared style guide.\n", 30)[:2048]
	b.SetBytes(int64(len(md) + len(frag)))
	for b.Loop() {
		scanSecrets(md)
		scanSecrets(frag)
	}
}
