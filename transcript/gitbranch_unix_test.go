//go:build unix

package transcript

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGitBranchFIFO: a HEAD that is a FIFO (a hostile checkout) reads as no branch at once,
// never hangs the journal.
func TestGitBranchFIFO(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "HEAD"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := GitBranch(dir); got != "" {
		t.Errorf("GitBranch = %q", got)
	}
}
