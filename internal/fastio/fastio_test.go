package fastio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// symlink makes a symlink or skips the test where the platform refuses (Windows without the
// privilege).
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

func TestOpenStatRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	write(t, p, "hello, 世界")
	f, err := Open(p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if !info.Mode.IsRegular() || info.Size != fi.Size() || info.MTime != fi.ModTime().UnixNano() {
		t.Errorf("Stat = %+v, want a regular file of %d bytes, mtime %v", info, fi.Size(), fi.ModTime())
	}
	buf := make([]byte, 64)
	n, err := f.Pread(buf, 7)
	if err != nil || string(buf[:n]) != "世界" {
		t.Errorf("Pread at 7 = %q, %v; want the rest of the file", buf[:n], err)
	}
	n, err = f.ReadAt(buf[:5], 0)
	if err != nil || string(buf[:n]) != "hello" {
		t.Errorf("ReadAt 5 = %q, %v", buf[:n], err)
	}
	if n, err = f.ReadAt(buf, 0); err != io.EOF || n != int(fi.Size()) {
		t.Errorf("ReadAt past the end = %d, %v; want %d, io.EOF", n, err, fi.Size())
	}
	if f.Name() != p {
		t.Errorf("Name = %q, want %q", f.Name(), p)
	}
	if _, err := Open(filepath.Join(dir, "gone.md"), false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.md")
	write(t, target, "x")
	link := filepath.Join(dir, "link.md")
	symlink(t, target, link)
	if _, err := Open(link, true); !IsSymlinkErr(err) {
		t.Errorf("Open(link, noFollow) = %v, want the symlink error", err)
	}
	f, err := Open(link, false)
	if err != nil {
		t.Fatalf("Open(link) = %v", err)
	}
	f.Close()
	if IsSymlinkErr(fs.ErrNotExist) {
		t.Error("IsSymlinkErr(fs.ErrNotExist) = true")
	}
	l, err := StatPath(link, true)
	if err != nil || l.Mode&fs.ModeSymlink == 0 {
		t.Errorf("StatPath(link, noFollow) = %v, %v; want a symlink", l.Mode, err)
	}
	a, err := StatPath(link, false)
	if err != nil || !a.Mode.IsRegular() {
		t.Errorf("StatPath(link) = %v, %v; want the regular target", a.Mode, err)
	}
	b, _ := StatPath(target, false)
	other := filepath.Join(dir, "other.md")
	write(t, other, "x")
	c, _ := StatPath(other, false)
	if runtime.GOOS != "windows" && a.ID != b.ID { // without inodes, a file is known by its path
		t.Error("a symlink and its target have different IDs")
	}
	if b.ID == c.ID {
		t.Error("two files have the same ID")
	}
	d, err := StatPath(dir, false)
	if err != nil || !d.Mode.IsDir() {
		t.Errorf("StatPath(dir) = %v, %v; want a directory", d.Mode, err)
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.jsonl", "b.jsonl", "c.txt", "d.jsonl"} {
		write(t, filepath.Join(dir, n), n)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	jsonl := func(name string) bool { return strings.HasSuffix(name, ".jsonl") }
	d, ents, err := ReadDir(dir, jsonl)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var names []string
	for _, e := range ents {
		info, err := d.Lstat(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if e.Regular && !info.Mode.IsRegular() {
			t.Errorf("%s: said regular, stat says %v", e.Name, info.Mode)
		}
		if info.Mode.IsRegular() {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"a.jsonl", "b.jsonl", "d.jsonl"}; !slices.Equal(names, want) {
		t.Errorf("regular entries = %v, want %v", names, want)
	}
	if d.Path() != dir {
		t.Errorf("Path = %q, want %q", d.Path(), dir)
	}
	if _, _, err := ReadDir(filepath.Join(dir, "gone"), jsonl); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of a missing dir: %v, want fs.ErrNotExist", err)
	}
}

// TestReadDirAll: every entry that passes keep, with the type the directory gives (or none),
// never . or ..; with noFollow a symlink to a directory is refused, without it followed.
func TestReadDirAll(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a")
	write(t, filepath.Join(dir, "skip.md"), "s")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.md", filepath.Join(dir, "link.md"))
	d, ents, err := ReadDirAll(dir, false, func(name string) bool { return name != "skip.md" })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got := map[string]string{}
	for _, e := range ents {
		info, err := d.Lstat(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Regular && !info.Mode.IsRegular(), e.Dir && !info.Mode.IsDir(), e.Symlink && info.Mode&fs.ModeSymlink == 0:
			t.Errorf("%s: the directory said %+v, stat says %v", e.Name, e, info.Mode)
		}
		got[e.Name] = info.Mode.Type().String()
	}
	want := map[string]string{"a.md": "----------", "sub": "d---------", "link.md": "L---------"}
	if len(got) != len(want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	for n, m := range want {
		if got[n] != m {
			t.Errorf("%s: %q, want %q (all: %v)", n, got[n], m, got)
		}
	}
	symlink(t, "sub", filepath.Join(dir, "sublink"))
	if _, _, err := ReadDirAll(filepath.Join(dir, "sublink"), true, func(string) bool { return true }); err == nil {
		t.Error("ReadDirAll with noFollow opened a symlink")
	}
	if d, _, err := ReadDirAll(filepath.Join(dir, "sublink"), false, func(string) bool { return true }); err != nil {
		t.Errorf("ReadDirAll without noFollow: %v", err)
	} else {
		d.Close()
	}
}

// TestDirLookups: Lstat, Type and Open relative to a Dir agree with the path-based calls, while
// the Dir is open and after it is closed.
func TestDirLookups(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub", ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sub", "CLAUDE.md")
	write(t, p, "rules")
	d, _, err := ReadDir(dir, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	for _, closed := range []bool{false, true} {
		if closed {
			d.Close()
		}
		info, err := d.Lstat("sub/CLAUDE.md")
		want, _ := StatPath(p, true)
		if err != nil || info.Size != want.Size || info.MTime != want.MTime || info.Mode != want.Mode {
			t.Errorf("closed=%v: Lstat = %+v, %v; want %+v", closed, info, err, want)
		}
		if m, err := d.Type("sub/.claude", false); err != nil || !m.IsDir() {
			t.Errorf("closed=%v: Type(sub/.claude) = %v, %v", closed, m, err)
		}
		if _, err := d.Type("sub/none", true); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("closed=%v: Type of a missing name: %v", closed, err)
		}
		var pe *fs.PathError
		if _, err := d.Lstat("gone"); !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "gone") {
			t.Errorf("closed=%v: Lstat of a missing name: %v, want a PathError with the full path", closed, err)
		}
		f, err := d.Open("sub/CLAUDE.md", true)
		if err != nil {
			t.Fatalf("closed=%v: Open = %v", closed, err)
		}
		buf := make([]byte, 16)
		n, err := f.Pread(buf, 0)
		f.Close()
		if err != nil || string(buf[:n]) != "rules" {
			t.Errorf("closed=%v: read %q, %v", closed, buf[:n], err)
		}
	}
}

func TestReadHeadAndPrefix(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.md")
	write(t, p, "0123456789")
	var buf []byte
	data, info, err := ReadHead(p, &buf, 4)
	if err != nil || string(data) != "0123" || info.Size != 10 || !info.Mode.IsRegular() {
		t.Errorf("ReadHead(limit 4) = %q, %+v, %v", data, info, err)
	}
	if cap(buf) < 4 {
		t.Errorf("the buffer was not kept: cap %d", cap(buf))
	}
	if data, _, err = ReadHead(p, &buf, 100); err != nil || string(data) != "0123456789" {
		t.Errorf("ReadHead(limit 100) = %q, %v", data, err)
	}
	if _, _, err := ReadHead(dir, &buf, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadHead(dir): %v, want ErrNotRegular", err)
	}
	if _, _, err := ReadHead(filepath.Join(dir, "gone"), &buf, 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadHead(missing): %v, want fs.ErrNotExist", err)
	}
	b := make([]byte, 6)
	if n, err := ReadPrefix(p, b); err != nil || string(b[:n]) != "012345" {
		t.Errorf("ReadPrefix = %q, %v", b[:n], err)
	}
	if n, err := ReadPrefix(p, make([]byte, 0)); err != nil || n != 0 {
		t.Errorf("ReadPrefix(empty buffer) = %d, %v", n, err)
	}
	if _, err := ReadPrefix(filepath.Join(dir, "gone"), b); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadPrefix(missing): %v, want fs.ErrNotExist", err)
	}
}

func TestResolveDir(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(real, "x.md"), "x")
	r, d, err := ResolveDir(real + string(filepath.Separator))
	if err != nil || r != real {
		t.Fatalf("ResolveDir(real/) = %q, %v; want %q", r, err, real)
	}
	if d != nil {
		if m, err := d.Type("x.md", true); err != nil || !m.IsRegular() {
			t.Errorf("Type through the resolved Dir = %v, %v", m, err)
		}
		d.Close()
	}
	if _, _, err := ResolveDir(filepath.Join(dir, "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ResolveDir(missing): %v, want fs.ErrNotExist", err)
	}
	if _, _, err := ResolveDir(filepath.Join(real, "x.md")); err == nil {
		t.Error("ResolveDir of a file did not fail")
	}
	link := filepath.Join(dir, "link")
	symlink(t, real, link)
	r, d, err = ResolveDir(link)
	if err != nil || r != real {
		t.Errorf("ResolveDir(link) = %q, %v; want %q", r, err, real)
	}
	if d != nil {
		d.Close()
	}
}

func TestCPUTime(t *testing.T) {
	c0 := CPUTime()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		if c0 != 0 {
			t.Errorf("CPUTime = %v where it is not measured", c0)
		}
		return
	}
	x := 0
	for start := time.Now(); time.Since(start) < 30*time.Millisecond; {
		x++
	}
	if c1 := CPUTime(); c1 <= c0 || c0 <= 0 {
		t.Errorf("CPUTime went from %v to %v after 30 ms of work (%d)", c0, c1, x)
	}
}

func TestMaxRSSKB(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	kb, ok := MaxRSSKB(cmd.ProcessState)
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		if ok {
			t.Errorf("MaxRSSKB = %v, true where it is not measured", kb)
		}
		return
	}
	if !ok || kb < 100 || kb > 10<<20 { // a Go test binary holds more than 100 KB and less than 10 GB
		t.Errorf("MaxRSSKB = %v, %v", kb, ok)
	}
}

// TestLstatMany checks that the split lookups give, name for name, what Lstat gives: sizes of
// files written with distinct lengths, and the missing names' errors in their places.
func TestLstatMany(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 1500 {
		name := fmt.Sprintf("f%04d.md", i)
		if i%7 != 3 {
			write(t, filepath.Join(dir, name), strings.Repeat("x", i))
		}
		names = append(names, name)
	}
	d, _, err := ReadDir(dir, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []int{0, 3, len(names)} {
		infos, errs := d.LstatMany(names[:n])
		if len(infos) != n || len(errs) != n {
			t.Fatalf("%d names: %d infos, %d errors", n, len(infos), len(errs))
		}
		for i := range n {
			if i%7 == 3 {
				if !errors.Is(errs[i], fs.ErrNotExist) {
					t.Errorf("%s: error %v, want not-exist", names[i], errs[i])
				}
			} else if errs[i] != nil || infos[i].Size != int64(i) {
				t.Errorf("%s: %+v, %v; want size %d", names[i], infos[i], errs[i], i)
			}
		}
	}
}
