package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// IsTempName matches the temp files WriteFileFS and RootFS really create, and nothing a user
// would name.
func TestIsTempName(t *testing.T) {
	dir := t.TempDir()
	for _, fsys := range []FS{OS, nil} {
		if fsys == nil {
			r, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fsys = RootFS(r)
		}
		name := filepath.Join(dir, "记忆.md")
		if fsys != OS {
			name = "记忆.md"
		}
		f, err := fsys.CreateTemp(filepath.Dir(name), tempPattern(name))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if base := filepath.Base(f.Name()); !IsTempName(base) {
			t.Errorf("IsTempName(%q) = false for a temp file the writer made", base)
		}
	}
	for _, name := range []string{"MEMORY.md", ".notes.tmp", "draft.tmp1", ".tmp123", ".a.md.tmp", ".a.md.tmpX1", ".strata.lock", ".a.md.tmp12.bak"} {
		if IsTempName(name) {
			t.Errorf("IsTempName(%q) = true", name)
		}
	}
}
