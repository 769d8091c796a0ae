//go:build unix

package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/workspace"
)

// A model's Read of a 100 GB sparse file with limit 5 reads 5 lines: Read streams, so the
// agent neither loads the file nor reads it to the end; FIFOs and devices are refused with
// a message that says what they are, without blocking.
func TestReadStreams(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	var text strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&text, "line %d 第%d行\n", i, i)
	}
	huge := f.write("huge.log", text.String())
	if err := os.Truncate(huge, 100<<30); err != nil {
		t.Skipf("no sparse 100 GB file here: %v", err)
	}
	f.write("small.txt", "one\ntwo\nthree\n")
	fifo := filepath.Join(f.dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f.srv.Script(
		llmtest.Blocks(
			use("r1", "Read", map[string]any{"file_path": "huge.log", "limit": 5}),
			use("r2", "Read", map[string]any{"file_path": "huge.log", "offset": 998, "limit": 2}),
			use("r3", "Read", map[string]any{"file_path": "pipe"}),
			use("r4", "Read", map[string]any{"file_path": "/dev/zero"}),
			use("r5", "Read", map[string]any{"file_path": "small.txt", "offset": 2, "limit": 1}),
			use("r6", "Read", map[string]any{"file_path": "small.txt", "limit": 2}),
		),
		llmtest.Text("done"),
	)
	a := f.agent(Options{Open: workspace.Options{AddDirs: []string{"/dev"}}})
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := a.Run(context.Background(), "read them", nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the turn took %v", d)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("the turn allocated %d MB", grew>>20)
	}
	got := toolResults(f.srv.Requests()[1])
	for i, want := range []string{
		"     1\tline 1 第1行\n     2\tline 2 第2行\n     3\tline 3 第3行\n     4\tline 4 第4行\n     5\tline 5 第5行\n[strata: showed lines 1-5 of a file of 107374182400 bytes; pass offset and limit to read more]\n",
		"   998\tline 998 第998行\n   999\tline 999 第999行\n[strata: showed lines 998-999 of a file of 107374182400 bytes; pass offset and limit to read more]\n",
		"is a FIFO; the file tools use regular files only (reading it could block or never end)",
		"is a character device; the file tools use regular files only (reading it could block or never end)",
		"     2\ttwo\n[strata: showed lines 2-2 of 3; pass offset and limit to read more]\n",
		"     1\tone\n     2\ttwo\n[strata: showed lines 1-2 of 3; pass offset and limit to read more]\n",
	} {
		if i >= len(got) || !strings.HasSuffix(got[i], want) {
			t.Errorf("result %d = %q, want it to end with %q", i+1, at(got, i), want)
		}
	}
}
