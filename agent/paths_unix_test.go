//go:build unix

package agent

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// Devices and FIFOs are refused by Grep and Edit as by Read, at once and without reading
// them: a Grep or an Edit of /dev/zero ends quickly with a clear refusal instead of filling
// the memory, and a Grep of a FIFO, or of a directory holding one, does not hang.
func TestGrepAndEditRefuseDevices(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("notes.txt", "needle\n")
	fifo := filepath.Join(f.dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	const zero = "/dev/zero"
	if _, err := os.Stat(zero); err != nil {
		t.Skip("no /dev/zero")
	}
	f.srv.Script(llmtest.Blocks(
		use("g1", "Grep", map[string]any{"pattern": "x", "path": zero}),
		use("e1", "Edit", map[string]any{"file_path": zero, "old_string": "a", "new_string": "b"}),
		use("g2", "Grep", map[string]any{"pattern": "x", "path": "pipe"}),
		use("g3", "Grep", map[string]any{"pattern": "needle"}),
	), llmtest.Text("done"))
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := a.Run(ctx, "go", nil); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("the turn allocated %d MB", grew>>20)
	}
	got := toolResults(f.srv.Requests()[1])
	for i, want := range []string{
		"/dev/zero is a character device; the file tools use regular files only",
		"/dev/zero is a character device; the file tools use regular files only",
		"pipe is a FIFO; the file tools use regular files only",
		"notes.txt",
	} {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want it to contain %q", i+1, at(got, i), want)
		}
	}
}

// A fork's Grep of /dev/zero (the extractor's, say) is refused as the session's is, even
// where the fork may read (/dev added to the session).
func TestForkGrepRefusesDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{Open: workspace.Options{AddDirs: []string{"/dev"}}})
	done := make(chan string, 1)
	go func() {
		out, _, _ := forkCall(a, "Grep", `{"pattern":"x","path":"/dev/zero"}`)
		done <- out
	}()
	select {
	case out := <-done:
		if !strings.Contains(out, "is a character device") {
			t.Errorf("a fork's Grep of /dev/zero = %q", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a fork's Grep of /dev/zero did not end")
	}
}
