package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestFaultsEndInACompletedTurnOrAClearError runs a turn under every fault the fake servers
// inject: once (the retry completes the turn) and on every attempt (a clear error). The
// transcript loads afterwards either way.
func TestFaultsEndInACompletedTurnOrAClearError(t *testing.T) {
	ok := llmtest.Text("all good")
	faults := []struct {
		name  string
		fault llmtest.Reply
		kind  error
	}{
		{"429", llmtest.RateLimited(time.Millisecond), llm.ErrRateLimited},
		{"500", llmtest.ServerError(), llm.ErrServer},
		{"529", llmtest.Overloaded(), llm.ErrOverloaded},
		{"stall", ok.StallAfter(1), llm.ErrStalled},
		{"truncate", ok.TruncateAfter(1), llm.ErrTruncated},
		{"malformed", ok.MalformedAfter(1), llm.ErrMalformed},
		{"error-event", ok.ErrorEventAfter(1), llm.ErrOverloaded},
	}
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		for _, fc := range faults {
			t.Run(string(format)+"/"+fc.name+"/once", func(t *testing.T) {
				f := newFixture(t, format)
				f.stall(300 * time.Millisecond)
				f.srv.Script(fc.fault, ok)
				a := f.agent(Options{})
				var rec recorder
				res, err := a.Run(context.Background(), "hello", rec.sink)
				if err != nil {
					t.Fatalf("turn failed: %v", err)
				}
				if res.Text != "all good" || !containsKind(rec.kinds(), EventRetry) {
					t.Errorf("text %q, events %v", res.Text, rec.kinds())
				}
				loadTranscript(t, a)
			})
			t.Run(string(format)+"/"+fc.name+"/always", func(t *testing.T) {
				f := newFixture(t, format)
				f.stall(300 * time.Millisecond)
				for range 4 { // llmtest's Config allows 4 attempts
					f.srv.Script(fc.fault)
				}
				a := f.agent(Options{})
				_, err := a.Run(context.Background(), "hello", nil)
				if err == nil {
					t.Fatal("no error after every attempt failed")
				}
				if format == llmtest.Anthropic && !errors.Is(err, fc.kind) {
					t.Errorf("error %v is not %v", err, fc.kind)
				}
				if !strings.Contains(err.Error(), f.srv.URL) {
					t.Errorf("error does not name the server: %v", err)
				}
				sess := loadTranscript(t, a)
				if len(sess.Chain) == 0 {
					t.Errorf("the user's message is not in the transcript")
				}
				// The session goes on after the failure.
				f.srv.Script(ok)
				if res, err := a.Run(context.Background(), "again", nil); err != nil || res.Text != "all good" {
					t.Errorf("next turn: %q, %v", res.Text, err)
				}
				loadTranscript(t, a)
			})
		}
	}
}

func TestFaultAfterContentKeepsWhatWasShown(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Text("partial answer that breaks").TruncateAfter(4))
	a := f.agent(Options{})
	var rec recorder
	_, err := a.Run(context.Background(), "hello", rec.sink)
	if !errors.Is(err, llm.ErrTruncated) {
		t.Fatalf("err = %v", err)
	}
	loadTranscript(t, a)
	f.srv.Script(llmtest.Text("fine"))
	if _, err := a.Run(context.Background(), "again", nil); err != nil {
		t.Fatal(err)
	}
}

func TestBadKeyIsAClearError(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Key = "another-key"
	a := f.agent(Options{})
	_, err := a.Run(context.Background(), "hello", nil)
	if !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	loadTranscript(t, a)
}
