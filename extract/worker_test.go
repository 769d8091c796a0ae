package extract

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/toolcall"
)

// fakeForker records each fork's instruction and runs the scripted calls through the policy,
// as the agent would (a Run verdict counts as run).
type fakeForker struct {
	mu    sync.Mutex
	runs  []string
	calls []toolcall.Call
	ran   []string // tools whose verdict was Run
	outs  []toolcall.Verdict
}

func (f *fakeForker) Fork(ctx context.Context, instruction string, maxTurns int, policy toolcall.Policy) (toolcall.ForkResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, instruction)
	var res toolcall.ForkResult
	for _, c := range f.calls {
		v := policy(ctx, c)
		res.ToolCalls++
		if v.Run {
			f.ran = append(f.ran, c.Tool())
		}
		if v.Denied {
			res.Denied = append(res.Denied, c.Tool()+": "+v.Output)
		}
		f.outs = append(f.outs, v)
	}
	return res, nil
}

func (f *fakeForker) instructions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.runs...)
}

func newWorkerStore(t *testing.T) *memdir.Store {
	t.Helper()
	s, err := memdir.Open(filepath.Join(t.TempDir(), "memory"), memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The worker's cursor: each run is told how many messages are new; a run after the main agent
// wrote memory is skipped (and the cursor still advances); a compaction starts it over.
func TestWorkerCursor(t *testing.T) {
	st := newWorkerStore(t)
	w := NewWorker(WorkerOptions{Store: st, Extract: true, Mode: WriteAuto})
	defer w.Close(time.Second)
	f := &fakeForker{}
	turn := func(msgs, gen int) {
		t.Helper()
		w.Turn(compact.Snapshot{Forker: f, Messages: msgs, Generation: gen})
		for deadline := time.Now().Add(10 * time.Second); w.Busy(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the run does not end")
			}
		}
	}
	turn(2, 0)
	turn(4, 0)
	w.MemoryWritten()
	turn(6, 0) // skipped
	turn(9, 0)
	turn(3, 1) // after a compaction: all of it is new
	turn(3, 1) // nothing new: no run
	got := f.instructions()
	want := []string{"last 2 messages", "last 2 messages", "last 3 messages", "last 3 messages"}
	if len(got) != len(want) {
		t.Fatalf("%d runs, want %d", len(got), len(want))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("run %d: instruction does not say %q", i+1, want[i])
		}
	}
	if s := w.Stats(); s.Extractions != 4 || s.Skipped != 1 || s.Failed != 0 {
		t.Errorf("stats %+v", s)
	}
}

// The extractor's policy: reads and read-only shell run as usual, writes go through Confined,
// anything else is denied with a reason.
func TestPolicy(t *testing.T) {
	c, _, memDir, outside := newConfined(t, WriteAuto, memdir.Options{})
	p := Policy(c, time.Now)
	mem := memText("tabs", "The user wants tabs", "feedback", "Use tabs.")
	tests := []struct {
		call   toolcall.Call
		run    bool
		denied bool
		isErr  bool
	}{
		{&toolcall.Read{FilePath: "/etc/hostname"}, true, false, false},
		{&toolcall.Glob{Pattern: "*", Path: outside}, true, false, false},
		{&toolcall.Grep{Pattern: "x", Path: outside}, true, false, false},
		{&toolcall.MemorySearch{Query: "x"}, true, false, false},
		{&toolcall.Bash{Command: "ls -la"}, true, false, false},
		{&toolcall.Bash{Command: "rm -rf " + outside}, false, true, true},
		{&toolcall.Write{FilePath: filepath.Join(outside, "x.md"), Content: mem}, false, true, true},
		{&toolcall.Write{FilePath: filepath.Join(memDir, "tabs.md"), Content: mem}, false, false, false},
		{&toolcall.Edit{FilePath: filepath.Join(memDir, "tabs.md"), OldString: "Use tabs.", NewString: "Use tabs, width 4."}, false, false, false},
		{&toolcall.Edit{FilePath: filepath.Join(memDir, "tabs.md"), OldString: "nope", NewString: "x"}, false, false, true},
		{&toolcall.MemorySave{Name: "../escape", Description: "d", Type: "user", Body: "b"}, false, true, true},
		{&toolcall.MemorySave{Name: "deploys", Description: "Deploys on Friday", Type: "project", Body: "Friday."}, false, false, false},
		{&toolcall.TodoWrite{}, false, true, true},
		{&toolcall.MemoryForget{Name: "tabs"}, false, true, true},
	}
	for _, tt := range tests {
		v := p(t.Context(), tt.call)
		if v.Run != tt.run || v.Denied != tt.denied || v.IsError != tt.isErr {
			t.Errorf("%s %+v: verdict %+v; want run=%v denied=%v error=%v", tt.call.Tool(), tt.call, v, tt.run, tt.denied, tt.isErr)
		}
	}
	if got := c.Written(); len(got) != 2 {
		t.Errorf("written %v, want tabs.md and deploys.md", got)
	}
	if _, err := c.Edit(t.Context(), filepath.Join(memDir, "tabs.md"), "width 4", "width 4", false); !errors.Is(err, toolcall.ErrNoChange) {
		t.Errorf("Confined.Edit with new == old: %v, want toolcall.ErrNoChange", err)
	}
}
