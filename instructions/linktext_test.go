package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
)

// A symlink checked out as a plain file (git with core.symlinks=false) leaves a CLAUDE.md whose
// whole text is "AGENTS.md". It still loads as written, with a warning that says what happened.
func TestSymlinkStoredAsTextWarns(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Agents\nUse tabs.\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("AGENTS.md"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("README"), 0o600) // names no file: no warning
	set, err := Load(t.Context(), dir, Options{Env: config.Env{}})
	if err != nil {
		t.Fatal(err)
	}
	var warned []Diagnostic
	for _, d := range set.Diagnostics() {
		if strings.Contains(d.Message, "symlink checked out as a plain file") {
			warned = append(warned, d)
		}
	}
	if len(warned) != 1 || filepath.Base(warned[0].Path) != "CLAUDE.md" || warned[0].Severity != SeverityWarning {
		t.Fatalf("warnings = %v, want one warning on CLAUDE.md", warned)
	}
	if got := linkText(filepath.Join(dir, "notes.md"), "README"); got != "" {
		t.Fatalf("linkText for a word naming no file = %q", got)
	}
	if got := linkText(filepath.Join(dir, "x.md"), "Use AGENTS.md"); got != "" {
		t.Fatalf("linkText for prose = %q", got)
	}
}
