package agent

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// understated runs a session whose replies report a tiny usage while its messages are long,
// without a context window (so nothing compacts), and returns its id and the body size of
// its last request. lastLong false makes the last reply short.
func understated(t *testing.T, f *fixture, turns int, lastLong bool) (string, int) {
	t.Helper()
	tiny := llm.Usage{InputTokens: 100, OutputTokens: 50}
	long := strings.Repeat("The build fails in the linker step; here is the trace again. ", 120)
	for i := 0; i < turns; i++ {
		reply := long
		if i == turns-1 && !lastLong {
			reply = "noted"
		}
		f.srv.Script(llmtest.Text(reply).WithUsage(tiny))
	}
	a := f.agent(Options{})
	for i := 0; i < turns; i++ {
		if _, err := a.Run(t.Context(), "Look at this log once more: "+strings.Repeat("ld: undefined reference. ", 150), nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.srv.Requests()
	id := a.SessionID()
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id, len(reqs[len(reqs)-1].Body)
}

// summarise answers every call the test did not script: a short summary or answer.
func summarise(llmtest.Request) llmtest.Reply {
	return llmtest.Text("Summary: the linker fails on an undefined reference.")
}

// A resumed session whose recorded usage understates its size (a few hundred tokens reported
// for a conversation past the whole window by strata's estimate) compacts before its first
// request, so the fake API, which refuses anything larger than the window, refuses nothing.
func TestResumeUnderstatedUsageCompactsFirst(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	id, _ := understated(t, f, 6, true)
	window := 12_000
	f.srv.MaxPromptBytes = window * 3 // the fake's window, in bytes; strata's estimate is about 4 bytes a token
	f.srv.Fallback = summarise
	b := f.agent(Options{Resume: id, ContextWindow: window, MaxTokens: 2000})
	if _, n, th := b.ContextLevel(); n <= th.Window {
		t.Fatalf("the resumed context counts %d tokens, within the window %d: the test proves nothing", n, th.Window)
	}
	before := len(f.srv.Requests())
	var rec recorder
	if _, err := b.Run(t.Context(), "go on", rec.sink); err != nil {
		t.Fatal(err)
	}
	if got := rec.autoCompactions(t, "failed", "skipped"); got != 1 {
		t.Errorf("%d automatic compactions, want 1 before the first request", got)
	}
	for i, r := range f.srv.Requests()[before:] {
		if len(r.Body) > f.srv.MaxPromptBytes {
			t.Errorf("request %d after resume: %d bytes, past the API's %d: the session did not compact first", i+1, len(r.Body), f.srv.MaxPromptBytes)
		}
	}
}

// When the API refuses a request as too large although the count said it fits, the session
// compacts and sends it once more; a second refusal is returned, not retried again.
func TestTooLargeCompactsAndRetriesOnce(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			id, last := understated(t, f, 4, false)
			f.srv.MaxPromptBytes = last // the next request, with the last reply and a new message, is past it
			f.srv.Fallback = summarise
			b := f.agent(Options{Resume: id, ContextWindow: 200_000, MaxTokens: 2000})
			var rec recorder
			before := len(f.srv.Requests())
			res, err := b.Run(t.Context(), "go on", rec.sink)
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.srv.Requests()[before:]
			if len(reqs) < 3 || len(reqs[0].Body) <= f.srv.MaxPromptBytes {
				t.Fatalf("%d requests after resume; want the refused one, the summary and the retry", len(reqs))
			}
			if got := rec.autoCompactions(t, "failed"); got != 1 {
				t.Errorf("%d automatic compactions, want 1", got)
			}
			if !strings.HasPrefix(res.Text, "Summary:") {
				t.Errorf("answer %q", res.Text)
			}
			if h := b.History(); len(h) > 6 {
				t.Errorf("history after the retry holds %d entries; want the compacted one", len(h))
			}

			// Nothing fits: the refusal is returned after one compaction, not retried forever.
			f.srv.MaxPromptBytes = 100
			before = len(f.srv.Requests())
			if _, err := b.Run(t.Context(), "and now?", nil); !llm.TooLarge(err) {
				t.Errorf("Run = %v; want the too-large refusal", err)
			}
			if n := len(f.srv.Requests()) - before; n > 3 {
				t.Errorf("%d requests for a turn that cannot fit; want the request, one compaction attempt and no more", n)
			}
		})
	}
}

// The user's prompt is in the transcript on disk before the request that carries it leaves:
// a crash while the model answers keeps what the user typed.
func TestPromptDurableBeforeRequest(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{})
	const typed = "Rename the billing job to nightly-billing, keep the schedule."
	var onDisk bool
	f.srv.Fallback = func(llmtest.Request) llmtest.Reply {
		data, err := os.ReadFile(a.TranscriptPath())
		onDisk = err == nil && strings.Contains(string(data), typed)
		return llmtest.Text("done")
	}
	if _, err := a.Run(t.Context(), typed, nil); err != nil {
		t.Fatal(err)
	}
	if !onDisk {
		t.Error("the prompt was not in the transcript file when the request arrived")
	}
}
