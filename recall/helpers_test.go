package recall

import (
	"os"
	"path/filepath"
	"testing"
)

// writeMem writes a memory file with frontmatter.
func writeMem(t testing.TB, dir, file, name, typ, desc, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	text := "---\nname: " + name + "\ndescription: " + desc + "\ntype: " + typ + "\n---\n\n" + body + "\n"
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
