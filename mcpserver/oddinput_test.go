package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMemorySaveOddInput: names that look like paths are refused with what is wrong; a body
// with a NUL byte is refused (the store would read it back as binary, and the memory saved
// would not be found); nothing is written outside the memory directory, and every memory
// saved is found again.
func TestMemorySaveOddInput(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	for name, want := range map[string]string{
		"":     "empty",
		"../x": "path separator",
		"a/b":  "path separator",
		`C:\x`: "path separator",
		"..":   `".."`,
		"x\ny": "control character",
	} {
		msg := call(t, cs, "memory_save", map[string]any{"name": name, "type": "project", "description": "d", "body": "b"}, nil)
		if !strings.Contains(msg, want) {
			t.Errorf("memory_save %q: %q, want an error saying %q", name, msg, want)
		}
	}
	msg := call(t, cs, "memory_save", map[string]any{"name": "bin", "type": "project", "description": "d", "body": "one\ntwo\x00three"}, nil)
	if !strings.Contains(msg, "NUL byte") || !strings.Contains(msg, "line ") {
		t.Errorf("memory_save with a NUL byte in its body: %q, want an error naming the NUL and its line", msg)
	}
	saved := []string{".hidden", "MEMORY", "MEMORY.md", "한국어 메모", "中文名字", "-rf", "~", "*", "a:b", "fm"}
	for _, name := range saved {
		body := "body of " + name
		if name == "fm" {
			body = "---\nname: other\ntype: user\n---\nx\n---\n"
		}
		mustCall(t, cs, "memory_save", map[string]any{"name": name, "type": "project", "description": "d " + name, "body": body}, nil)
	}
	var list ListOutput
	mustCall(t, cs, "memory_list", map[string]any{}, &list)
	if len(list.Diagnostics) > 0 {
		t.Errorf("diagnostics after the saves: %+v", list.Diagnostics)
	}
	var names []string
	for _, m := range list.Memories {
		names = append(names, m.Name)
	}
	for _, name := range saved {
		if !slices.Contains(names, name) {
			t.Errorf("memory %q saved but not listed (listed: %q)", name, names)
		}
		var g GetOutput
		mustCall(t, cs, "memory_get", map[string]any{"name": name}, &g)
		if g.Memory.Name != name {
			t.Errorf("memory_get %q found %q", name, g.Memory.Name)
		}
	}
	// Recall's saved index lives in the user's cache directory, by design outside the store.
	cache := filepath.Join(f.env.UserHome, ".cache", "strata", "recall")
	err := filepath.WalkDir(f.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(p) == cache {
			return err
		}
		if rel, _ := filepath.Rel(list.Dir, p); rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("a file outside the memory dir: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
