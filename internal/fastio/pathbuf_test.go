package fastio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathBuf: a path built piece by piece, long or short, reads back as its pieces joined.
func TestPathBuf(t *testing.T) {
	var p PathBuf
	if p.String() != "" {
		t.Errorf("zero PathBuf = %q", p.String())
	}
	p.Add("../")
	p.Add("CLAUDE.md")
	if p.String() != "../CLAUDE.md" {
		t.Errorf("PathBuf = %q, want ../CLAUDE.md", p.String())
	}
	long := strings.Repeat("d/", pathBufLen/2)
	p.Reset()
	p.Add("/")
	p.Add(long)
	p.Add("x.md")
	if want := "/" + long + "x.md"; p.String() != want {
		t.Errorf("long PathBuf = %.40q… (%d bytes), want %d bytes", p.String(), len(p.String()), len(want))
	}
	p.Reset()
	p.Add(strings.Repeat("é", pathBufLen/2-1)) // ends exactly at the room left for the NUL
	p.Add("x")
	if p.String() != strings.Repeat("é", pathBufLen/2-1)+"x" {
		t.Error("a path that fills the buffer lost a byte")
	}
}

// TestOpenAtTypeAt: OpenAt and TypeAt give the answers of Dir.Open and Dir.Type (Open and
// StatPath without a Dir) for short paths, paths too long for the buffer, and paths with a
// NUL byte, through an open Dir, a closed one, and none.
func TestOpenAtTypeAt(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A deep directory whose relative spelling is longer than the buffer.
	deep := strings.Repeat("d123456789/", pathBufLen/11+1)
	if err := os.MkdirAll(filepath.Join(dir, "sub", ".claude", deep), 0o700); err != nil {
		t.Skipf("cannot make a deep directory here: %v", err)
	}
	write(t, filepath.Join(dir, "sub", "CLAUDE.md"), "rules")
	write(t, filepath.Join(dir, "sub", ".claude", deep, "x.md"), "deep rules")
	symlink(t, "CLAUDE.md", filepath.Join(dir, "sub", "link.md"))
	build := func(pieces ...string) *PathBuf {
		p := new(PathBuf)
		for _, s := range pieces {
			p.Add(s)
		}
		return p
	}
	read := func(f File) string {
		defer f.Close()
		buf := make([]byte, 64)
		n, err := f.Pread(buf, 0)
		if err != nil {
			return err.Error()
		}
		return string(buf[:n])
	}
	d, _, err := ReadDir(dir, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	for _, closed := range []bool{false, true} {
		if closed {
			d.Close()
		}
		for _, at := range []*Dir{d, nil} {
			root := ""
			if at == nil {
				root = dir + "/"
			}
			what := func(s string) string { return s + map[bool]string{true: " (closed)"}[closed && at != nil] }
			f, err := OpenAt(at, build(root, "sub/", "CLAUDE.md"), true)
			if err != nil || read(f) != "rules" {
				t.Errorf("%s: OpenAt(sub/CLAUDE.md): %v", what("dir"), err)
			}
			f, err = OpenAt(at, build(root, "sub/.claude/", deep, "x.md"), true)
			if err != nil || read(f) != "deep rules" {
				t.Errorf("%s: OpenAt of a path longer than the buffer: %v", what("dir"), err)
			}
			if _, err := OpenAt(at, build(root, "sub/link.md"), true); !IsSymlinkErr(err) {
				t.Errorf("%s: OpenAt(link, noFollow) = %v, want the symlink error", what("dir"), err)
			}
			if f, err := OpenAt(at, build(root, "sub/link.md"), false); err != nil || read(f) != "rules" {
				t.Errorf("%s: OpenAt(link) = %v", what("dir"), err)
			}
			if _, err := OpenAt(at, build(root, "sub/none.md"), true); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: OpenAt of a missing name: %v, want fs.ErrNotExist", what("dir"), err)
			}
			if _, err := OpenAt(at, build(root, "sub/\x00CLAUDE.md"), true); err == nil {
				t.Errorf("%s: OpenAt of a name with a NUL byte succeeded", what("dir"))
			}
			for _, tt := range []struct {
				path     string
				noFollow bool
				want     fs.FileMode
				err      error
			}{
				{"sub/.claude", false, fs.ModeDir, nil},
				{"sub/.claude/" + deep + "x.md", true, 0, nil},
				{"sub/link.md", true, fs.ModeSymlink, nil},
				{"sub/link.md", false, 0, nil},
				{"sub/none", true, 0, fs.ErrNotExist},
			} {
				m, err := TypeAt(at, build(root, tt.path), tt.noFollow)
				if m.Type() != tt.want || (tt.err == nil) != (err == nil) || tt.err != nil && !errors.Is(err, tt.err) {
					t.Errorf("%s: TypeAt(%.30q, %v) = %v, %v; want %v, %v", what("dir"), tt.path, tt.noFollow, m, err, tt.want, tt.err)
				}
			}
		}
	}
}
