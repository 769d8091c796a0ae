package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
)

// TestMemorySaveLookAlike: the agent's memory_save of a name that differs from a saved
// memory's only in case or width updates that memory and tells the model which it is; no
// look-alike file is added.
func TestMemorySaveLookAlike(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{})
	mustCall(t, a, "memory_save", `{"name":"부서 DB port","description":"the port","type":"project","body":"5432"}`)
	out := mustCall(t, a, "memory_save", `{"name":"부서 ＤＢ ＰＯＲＴ","description":"the port","type":"project","body":"5433"}`)
	if !strings.Contains(out, `Updated memory "부서 DB port"`) || !strings.Contains(out, "differs from it only in case") {
		t.Errorf("second save = %q; want it to name the memory it updated", out)
	}
	mds, _ := filepath.Glob(filepath.Join(a.MemoryDir(), "*.md"))
	if len(mds) != 2 { // MEMORY.md and the one topic file
		t.Errorf("memory dir holds %v, want MEMORY.md and one topic file", mds)
	}
	for _, p := range mds {
		if data, _ := os.ReadFile(p); filepath.Base(p) != "MEMORY.md" && !strings.Contains(string(data), "5433") {
			t.Errorf("%s = %q; want the new body", p, data)
		}
	}
}
