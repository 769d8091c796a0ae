package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// usageOpts is a 32K window with 4K replies: automatic compaction starts at 16,384 tokens.
var usageOpts = Options{ContextWindow: 32_768, MaxTokens: 4000}

func autoCompactions(rec *recorder) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, e := range rec.events {
		if e.Kind == EventCompact && strings.HasPrefix(e.Text, "conversation compacted automatically") {
			n++
		}
	}
	return n
}

// TestReportedUsageCompacts: the provider reports a context past the automatic threshold
// while the estimate is far below it; the next request compacts first. Both wire formats.
func TestReportedUsageCompacts(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			u := llm.Usage{InputTokens: 120, CacheReadInputTokens: 17_000, OutputTokens: 30}
			f.srv.Script(llmtest.Text("ok").WithUsage(u), llmtest.Text("the summary"), llmtest.Text("answer"))
			a := f.agent(usageOpts)
			var rec recorder
			ctx := context.Background()
			if _, err := a.Run(ctx, "hello", rec.sink); err != nil {
				t.Fatal(err)
			}
			th := compact.ThresholdsFor(usageOpts.ContextWindow, usageOpts.MaxTokens)
			if est := a.Context().Total(); est >= th.Auto {
				t.Fatalf("the estimate %d already crosses %d: the test proves nothing", est, th.Auto)
			}
			level, n, _ := a.ContextLevel()
			if n != u.Total() || level != compact.LevelAuto {
				t.Fatalf("ContextLevel = %s, %d; want auto, %d (the reported usage)", level, n, u.Total())
			}
			// The usage is on the assistant entry and in the transcript's message.usage.
			h := a.History()
			if last := h[len(h)-1]; last.Usage == nil || last.Usage.Total() != u.Total() {
				t.Errorf("assistant entry usage = %+v, want a total of %d", last.Usage, u.Total())
			}
			var inTranscript *conversation.Usage
			for _, e := range loadTranscript(t, a).Chain {
				if e.Usage() != nil {
					inTranscript = e.Usage()
				}
			}
			if inTranscript == nil || inTranscript.Total() != u.Total() {
				t.Errorf("transcript message.usage = %+v, want a total of %d", inTranscript, u.Total())
			}

			before := len(f.srv.Requests())
			if _, err := a.Run(ctx, "next", rec.sink); err != nil {
				t.Fatal(err)
			}
			if got := autoCompactions(&rec); got != 1 {
				t.Errorf("%d automatic compactions, want 1", got)
			}
			if got := len(f.srv.Requests()) - before; got != 2 {
				t.Errorf("%d requests for the second turn, want 2 (summary, answer)", got)
			}
			// After compaction the count is estimated again, far below the threshold.
			if level, n, _ := a.ContextLevel(); level >= compact.LevelWarn {
				t.Errorf("after compaction: %s at %d tokens", level, n)
			}
		})
	}
}

// TestReportedUsageHoldsOffCompaction: the estimate crosses the automatic threshold but the
// provider reports a small context (its tokenizer counts fewer tokens), so nothing compacts.
// Both wire formats.
func TestReportedUsageHoldsOffCompaction(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			long := strings.Repeat("the reply explains the change at length. ", 1000) // ~10K tokens by estimate
			u := llm.Usage{InputTokens: 3000, CacheReadInputTokens: 2000, OutputTokens: 2500}
			f.srv.Script(llmtest.Text(long).WithUsage(u), llmtest.Text("answer"))
			a := f.agent(usageOpts)
			var rec recorder
			ctx := context.Background()
			prompt := strings.Repeat("keep this in mind. ", 1200) // ~5.7K tokens by estimate
			if _, err := a.Run(ctx, prompt, rec.sink); err != nil {
				t.Fatal(err)
			}
			th := compact.ThresholdsFor(usageOpts.ContextWindow, usageOpts.MaxTokens)
			if est := a.Context().Total(); est <= th.Auto {
				t.Fatalf("the estimate %d does not cross %d: the test proves nothing", est, th.Auto)
			}
			if _, err := a.Run(ctx, "next", rec.sink); err != nil {
				t.Fatal(err)
			}
			if got := autoCompactions(&rec); got != 0 {
				t.Errorf("%d automatic compactions, want none: the reported usage is %d", got, u.Total())
			}
			_, n, _ := a.ContextLevel()
			// The second reply reported no usage: it and the message before it are estimated.
			after := conversation.EstimateMessages(conversation.NewText(conversation.User, "next"), conversation.NewText(conversation.Assistant, "answer"))
			if want := u.Total() + after; n != want {
				t.Errorf("ContextLevel tokens = %d, want usage %d + the estimate of what came after, %d", n, u.Total(), want)
			}
		})
	}
}

// TestResumeReadsUsage: a resumed session counts from the usage its transcript recorded; a
// transcript without usage (a provider that reports none) is estimated.
func TestResumeReadsUsage(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	u := llm.Usage{InputTokens: 50, CacheCreationInputTokens: 6_000, CacheReadInputTokens: 7_000, OutputTokens: 40} // past the warning
	f.srv.Script(llmtest.Text("ok").WithUsage(u), llmtest.Text("fine"))
	a := f.agent(usageOpts)
	ctx := context.Background()
	if _, err := a.Run(ctx, "hello", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, "and now?", nil); err != nil { // this reply reports no usage
		t.Fatal(err)
	}
	_, want, _ := a.ContextLevel()
	id, hist := a.SessionID(), a.History()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b := f.agent(Options{Resume: id, ContextWindow: usageOpts.ContextWindow, MaxTokens: usageOpts.MaxTokens})
	level, n, _ := b.ContextLevel()
	if n != want || n <= u.Total() || level != compact.LevelWarn {
		t.Errorf("after resume: %s at %d tokens, want warn at %d", level, n, want)
	}
	noTime := cmpopts.IgnoreFields(conversation.Entry{}, "Timestamp") // the transcript keeps milliseconds
	if diff := cmp.Diff(hist, b.History(), noTime); diff != "" {
		t.Errorf("history after resume, usage included (-want +got):\n%s", diff)
	}

	// Without any usage the resumed count is the estimate of prefix and history.
	f.srv.Script(llmtest.Text("ok"))
	c := f.agent(usageOpts)
	if _, err := c.Run(ctx, "hello", nil); err != nil {
		t.Fatal(err)
	}
	id = c.SessionID()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	d := f.agent(Options{Resume: id, ContextWindow: usageOpts.ContextWindow, MaxTokens: usageOpts.MaxTokens})
	if _, n, _ := d.ContextLevel(); n != d.Context().Total() {
		t.Errorf("resumed without usage: %d tokens, want the estimate %d", n, d.Context().Total())
	}
}
