package transcript

import (
	"bytes"
	"github.com/strata-mem/strata/internal/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir returns ../shared/corpus/transcripts relative to the repository root, or skips.
func corpusDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Dir(t, "corpus", "transcripts")
}

// TestCorpus runs the reader over real Claude Code transcripts: none fails, and every line is
// either parsed or skipped with a reason.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s (%v)", dir, err)
	}
	var total, parsed, skipped int
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantLines := bytes.Count(data, []byte{'\n'})
			if len(data) > 0 && data[len(data)-1] != '\n' {
				wantLines++
			}
			f, err := ReadFile(t.Context(), path, ReadOptions{Full: true})
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if f.Lines != wantLines {
				t.Errorf("Lines = %d, want %d", f.Lines, wantLines)
			}
			if got := len(f.Entries) + f.Skipped(); got != f.Lines {
				t.Errorf("parsed %d + skipped %d = %d, want %d lines", len(f.Entries), f.Skipped(), got, f.Lines)
			}
			for _, p := range f.Problems {
				if p.Reason == "" || p.Line < 1 || p.Line > f.Lines {
					t.Errorf("problem without reason or line: %+v", p)
				}
			}
			total += f.Lines
			parsed += len(f.Entries)
			skipped += f.Skipped()
			s := FromFile(f)
			if strings.Contains(path, "NOT_JSON") {
				if len(f.Entries) > 0 && len(s.Chain) > 0 {
					t.Errorf("a debug log produced a conversation of %d entries", len(s.Chain))
				}
				return
			}
			if len(data) > 0 && f.Skipped() > 0 {
				t.Errorf("a real transcript had %d skipped lines: %v", f.Skipped(), f.Problems[0])
			}
			if _, err := Messages(s.Chain); err != nil {
				t.Errorf("Messages: %v", err)
			}
			t.Logf("%d lines, chain %d, boundary %d, title %q, problems %d", f.Lines, len(s.Chain), s.Boundary, s.Meta.Title(), len(s.Problems))
		})
	}
	t.Logf("corpus: %d files, %d lines: %d parsed, %d skipped", len(files), total, parsed, skipped)
	if parsed+skipped != total {
		t.Fatalf("parsed %d + skipped %d != %d lines", parsed, skipped, total)
	}
}
