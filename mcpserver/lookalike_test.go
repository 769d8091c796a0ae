package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveLookAlikeName: memory_save of a name that differs from a saved memory's only in
// case or width updates that memory (its file and name kept, the new text in it) and says so;
// no look-alike file is added.
func TestSaveLookAlikeName(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	var first, second SaveOutput
	mustCall(t, cs, "memory_save", SaveInput{Name: "db port", Type: "project", Description: "the port", Body: "5432\n"}, &first)
	mustCall(t, cs, "memory_save", SaveInput{Name: "ＤＢ ＰＯＲＴ", Type: "project", Description: "the port", Body: "5433\n"}, &second)
	if !first.Created || second.Created || second.File != first.File || second.Name != "db port" {
		t.Errorf("saves = %+v then %+v; want the second to update %s under the name %q", first, second, first.File, "db port")
	}
	st := s.MemoryDir()
	mds, _ := filepath.Glob(filepath.Join(st, "*.md"))
	if len(mds) != 2 { // MEMORY.md and db-port.md
		t.Errorf("memory dir holds %v, want MEMORY.md and one topic file", mds)
	}
	data, _ := os.ReadFile(filepath.Join(st, first.File))
	if got := string(data); !strings.Contains(got, "5433") || !strings.Contains(got, "name: db port") {
		t.Errorf("%s = %q; want the new body under the old name", first.File, got)
	}
}
