package recall

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadPrefix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := write("long.md", "---\nname: 长的\n---\nbody text")
	short := write("short.md", "ab")
	empty := write("empty.md", "")
	for _, c := range []struct {
		name string
		path string
		buf  int
		want string
	}{
		{"prefix of a longer file", long, 9, "---\nname:"},
		{"whole file, Chinese", long, 64, "---\nname: 长的\n---\nbody text"},
		{"file shorter than the buffer", short, 10, "ab"},
		{"empty file", empty, 10, ""},
		{"empty buffer", long, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := make([]byte, c.buf)
			n, err := readPrefix(c.path, buf)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(buf[:n]); got != c.want {
				t.Errorf("read %q, want %q", got, c.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := readPrefix(filepath.Join(dir, "gone.md"), make([]byte, 8))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want one wrapping fs.ErrNotExist", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if _, err := readPrefix(dir, make([]byte, 8)); err == nil {
			t.Error("reading a directory did not fail")
		}
	})
}
