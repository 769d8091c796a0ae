package compact

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/toolcall"
)

// scriptForker runs its calls through the policy, as the agent's fork would.
type scriptForker struct {
	mu       sync.Mutex
	calls    []toolcall.Call
	verdicts []toolcall.Verdict
	forks    int
	block    chan struct{} // when set, Fork waits for it (or ctx)
}

func (f *scriptForker) Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return toolcall.ForkResult{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forks++
	for _, c := range f.calls {
		f.verdicts = append(f.verdicts, policy(ctx, c))
	}
	return toolcall.ForkResult{Turns: 1}, nil
}

// The notes worker starts an update when NotesTracker says one is due, lets the fork read
// and edit its file only, and records what the notes cover.
func TestNotesWorker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1", "session-memory", "summary.md")
	other := filepath.Join(t.TempDir(), "other.md")
	desc := notesSections[0].desc
	f := &scriptForker{calls: []toolcall.Call{
		&toolcall.Read{FilePath: path},
		&toolcall.Read{FilePath: other},
		&toolcall.Edit{FilePath: path, OldString: desc, NewString: desc + "\n修复解析器"},
		&toolcall.Write{FilePath: other, Content: "x"},
		&toolcall.Bash{Command: "ls"},
	}}
	w := NewNotesWorker(path, NotesWorkerOptions{})
	defer w.Close(time.Second)
	if w.Turn(Snapshot{Forker: f, Messages: 2, LastUUID: "u1"}, NotesInitTokens-1, 0) {
		t.Fatal("an update started below NotesInitTokens")
	}
	if !w.Turn(Snapshot{Forker: f, Messages: 4, LastUUID: "u2"}, NotesInitTokens, 1) {
		t.Fatal("no update at NotesInitTokens")
	}
	w.Wait(t.Context(), 10*time.Second)
	if s := w.Stats(); s.Updates != 1 || s.Failed != 0 {
		t.Fatalf("stats %+v", s)
	}
	want := []toolcall.Verdict{{Run: true}, {Denied: true, IsError: true}, {}, {Denied: true, IsError: true}, {Denied: true, IsError: true}}
	for i, v := range f.verdicts {
		if v.Run != want[i].Run || v.Denied != want[i].Denied || v.IsError != want[i].IsError {
			t.Errorf("call %d (%s): verdict %+v", i, f.calls[i].Tool(), v)
		}
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "修复解析器") {
		t.Errorf("the edit did not land:\n%s", data)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the fork wrote another file: %v", err)
	}
	if cov, err := NotesCovered(path); err != nil || cov != "u2" {
		t.Errorf("covered %q %v, want u2", cov, err)
	}
}

// Close cuts an update that does not end within its time limit and waits for it; after
// Close no update starts.
func TestNotesWorkerClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s", "summary.md")
	f := &scriptForker{block: make(chan struct{})}
	w := NewNotesWorker(path, NotesWorkerOptions{})
	if !w.Turn(Snapshot{Forker: f, LastUUID: "u"}, NotesInitTokens, 0) || !w.Busy() {
		t.Fatal("no update running")
	}
	w.Close(20 * time.Millisecond)
	if w.Busy() {
		t.Error("busy after Close")
	}
	if s := w.Stats(); s.Failed != 1 || !strings.Contains(s.LastError, "context canceled") {
		t.Errorf("stats %+v: want the cut update counted as failed", s)
	}
	if w.Turn(Snapshot{Forker: f, LastUUID: "u"}, 10*NotesInitTokens, 10) {
		t.Error("an update started after Close")
	}
}
