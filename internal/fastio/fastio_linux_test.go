package fastio

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStatxFallback: with statx refused (some seccomp filters do), lookups use fstatat and
// give the same answers.
func TestStatxFallback(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), "entry\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.jsonl", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	d, _, err := ReadDir(dir, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	type answer struct {
		info  Info
		types [3]string
	}
	ask := func() answer {
		var a answer
		if a.info, err = d.Lstat("a.jsonl"); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"sub", "link", "none"} {
			m, err := d.Type(name, i == 1)
			a.types[i] = m.String()
			if err != nil {
				a.types[i] = err.Error()
			}
		}
		return a
	}
	with := ask()
	if with.info.CTime == 0 || with.info.Ino == 0 {
		t.Errorf("statx gave no ctime or inode: %+v", with.info)
	}
	restore := DisableStatx()
	without := ask()
	if !noStatx.Load() {
		t.Error("DisableStatx did not turn statx off")
	}
	restore()
	if with != without {
		t.Errorf("with statx %+v, with fstatat %+v", with, without)
	}
}

// TestPathCallsDoNotAllocate: Open and StatPath hand the path to the kernel through a pooled
// buffer, so a probe of a missing name and an open of a present one allocate nothing (the
// x/sys wrappers copy every path to the heap; an instruction load makes ~150 such calls).
func TestPathCallsDoNotAllocate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "CLAUDE.md")
	write(t, file, "# rules\n")
	missing := filepath.Join(dir, "CLAUDE.local.md")
	stat := testing.AllocsPerRun(50, func() {
		if _, err := StatPath(missing, false); err == nil {
			t.Fatal("stat of a missing file succeeded")
		}
		if _, err := StatPath(file, true); err != nil {
			t.Fatal(err)
		}
	})
	open := testing.AllocsPerRun(50, func() {
		f, err := Open(file, true)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	})
	if (stat != 0 || open != 0) && !raceEnabled {
		t.Errorf("allocations per call: StatPath %v, Open %v; want 0", stat, open)
	}
	restore := DisableStatx()
	defer restore()
	info, err := StatPath(file, false)
	if err != nil || info.Size != int64(len("# rules\n")) || !info.Mode.IsRegular() {
		t.Errorf("StatPath with fstatat: %+v, %v", info, err)
	}
}

// TestReadDirNames: the names ReadDir returns are copied out of the pooled getdents buffer
// (a later read that reuses the buffer leaves them intact), and a directory of 1,000 names
// costs a fixed handful of allocations (the Dir, the entries, one string for the names), not
// one per name or a growing slice.
func TestReadDirNames(t *testing.T) {
	big, other := t.TempDir(), t.TempDir()
	var want []string
	for i := range 1000 {
		n := fmt.Sprintf("%036d.jsonl", i)
		write(t, filepath.Join(big, n), "")
		want = append(want, n)
		write(t, filepath.Join(other, fmt.Sprintf("%036d.other", i)), "")
	}
	write(t, filepath.Join(big, "skipped.txt"), "")
	jsonl := func(name string) bool { return strings.HasSuffix(name, ".jsonl") }
	d, ents, err := ReadDir(big, jsonl)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d2, _, err := ReadDir(other, func(string) bool { return true }) // reuses the buffer
	if err != nil {
		t.Fatal(err)
	}
	d2.Close()
	var got []string
	for _, e := range ents {
		got = append(got, e.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("names after another read: %d, first %q; want %d, first %q", len(got), got[:min(1, len(got))], len(want), want[0])
	}
	allocs := testing.AllocsPerRun(20, func() {
		d, _, err := ReadDir(big, jsonl)
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
	})
	if allocs > 4 && !raceEnabled {
		t.Errorf("ReadDir of 1,000 names: %v allocations, want at most 4", allocs)
	}
}
