package agent

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
)

// fakeSync records what the agent asks of its store sync.
type fakeSync struct {
	mu     sync.Mutex
	calls  []string
	report func(string)
}

func (f *fakeSync) Start(report func(string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls, f.report = append(f.calls, "start"), report
}

func (f *fakeSync) Nudge() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "nudge")
}

func (f *fakeSync) Close(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "close")
	return nil
}

func (f *fakeSync) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func TestStoreSyncStartedNudgedClosed(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	fs := &fakeSync{}
	a := f.agent(Options{Sync: fs})
	if got := fs.got(); !slices.Equal(got, []string{"start"}) {
		t.Fatalf("after New: %v, want [start]", got)
	}
	fs.report("memory sync team: origin/main could not be reached")
	f.srv.Script(llmtest.Text("one"), llmtest.Text("two"))
	for _, prompt := range []string{"hi", "again"} {
		if _, err := a.Run(context.Background(), prompt, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fs.got(); !slices.Equal(got, []string{"start", "nudge", "nudge", "close"}) {
		t.Fatalf("calls = %v, want start, a nudge per turn, close", got)
	}
	if w := a.Warnings(); !slices.Contains(w, "memory sync team: origin/main could not be reached") {
		t.Fatalf("the sync's failure line is not a warning: %q", w)
	}
}
