package memdir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanWalksOnlyTheStore: the scan finds topic files at any depth and links to a file
// inside the store; it never walks a hidden directory, logs/, or a linked directory (inside or
// out), and says so for a link that leads outside.
func TestScanWalksOnlyTheStore(t *testing.T) {
	outside := t.TempDir()
	file := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+strings.TrimSuffix(filepath.Base(p), ".md")+"\ndescription: d\ntype: user\n---\n\n"+body+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	file(filepath.Join(outside, "secret.md"), "outside")
	s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{}) // files written by hand: no index
	if err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	file(filepath.Join(dir, "top.md"), "top")
	file(filepath.Join(dir, "team", "deep", "nested.md"), "nested")
	file(filepath.Join(dir, ".hidden", "h.md"), "hidden")
	file(filepath.Join(dir, "logs", "2026", "l.md"), "log")
	link("top.md", filepath.Join(dir, "alias.md"))
	link(outside, filepath.Join(dir, "outdir"))
	link("team", filepath.Join(dir, "teamlink"))
	link(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md"))

	mems, diags, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range mems {
		files = append(files, m.File)
	}
	slices.Sort(files)
	if want := []string{"alias.md", "team/deep/nested.md", "top.md"}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	var leak bool
	for _, d := range diags {
		leak = leak || strings.HasSuffix(d.Path, "leak.md") && strings.Contains(d.Message, "symlink not followed")
	}
	if !leak {
		t.Errorf("no diagnostic for the link leading outside: %+v", diags)
	}
}
