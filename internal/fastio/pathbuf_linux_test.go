package fastio

import (
	"path/filepath"
	"testing"
)

// TestPathBufCallsDoNotAllocate: OpenAt and TypeAt hand a PathBuf to the kernel from its own
// buffer, so probing a missing name and opening a present one relative to a Dir allocate
// nothing (an instruction load makes about 60 such calls).
func TestPathBufCallsDoNotAllocate(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "CLAUDE.md"), "# rules\n")
	d, _, err := ReadDir(dir, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	allocs := testing.AllocsPerRun(50, func() {
		var p PathBuf
		p.Add("CLAUDE.local.md")
		if _, err := TypeAt(d, &p, false); err == nil {
			t.Fatal("TypeAt of a missing name succeeded")
		}
		p.Reset()
		p.Add("../")
		p.Add(filepath.Base(dir))
		p.Add("/CLAUDE.md")
		f, err := OpenAt(d, &p, true)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	})
	if allocs != 0 {
		t.Errorf("allocations per OpenAt and TypeAt: %v; want 0", allocs)
	}
	// Where statx is refused, TypeAt still answers (through fstatat).
	restore := DisableStatx()
	defer restore()
	var p PathBuf
	p.Add("CLAUDE.md")
	if m, err := TypeAt(d, &p, true); err != nil || !m.IsRegular() {
		t.Errorf("TypeAt with fstatat = %v, %v", m, err)
	}
}
