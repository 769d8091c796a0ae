package agent

import (
	"github.com/strata-mem/strata/usage"
	"github.com/strata-mem/strata/workspace"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

// TestUsageCountsBackgroundWork: a 2-message chat whose every turn is followed by an
// extraction reports the extraction's tokens on their own line, the conversation's on theirs,
// and a total (with cost, the model's price being known) that counts both.
func TestUsageCountsBackgroundWork(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			f.background = true
			a := f.agent(Options{Model: "claude-haiku-4-5", Open: workspace.Options{Settings: extractSettings("")}})
			mainU := llm.Usage{InputTokens: 100, OutputTokens: 10}
			extractU := llm.Usage{InputTokens: 2000, CacheReadInputTokens: 3000, OutputTokens: 50}
			for i, msg := range []string{"hello", "and again"} {
				f.srv.Script(llmtest.Text("answer").WithUsage(mainU), llmtest.Text("Nothing worth saving.").WithUsage(extractU))
				if _, err := a.Run(t.Context(), msg, nil); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the extraction", func() bool { return a.Background().Extractions == i+1 && !a.BackgroundBusy() })
			}
			r := a.Usage()
			m, x := r.Line(usage.Main), r.Line(usage.Extraction)
			if m.Calls != 2 || m.Usage != mainU.Add(mainU) {
				t.Errorf("main line = %+v, want 2 calls of %+v", m, mainU)
			}
			if x.Calls != 2 || x.Usage != extractU.Add(extractU) {
				t.Errorf("extraction line = %+v, want 2 calls of %+v", x, extractU)
			}
			if len(r.Lines) != 2 {
				t.Errorf("report lines = %+v, want main and extraction only", r.Lines)
			}
			if want := mainU.Add(mainU).Add(extractU).Add(extractU); r.Total.Usage != want || r.Total.Calls != 4 {
				t.Errorf("total = %+v, want %+v over 4 calls", r.Total, want)
			}
			price, _ := llm.PriceOf("claude-haiku-4-5")
			if want := 2*price.Cost(mainU) + 2*price.Cost(extractU); !r.Total.Priced || r.Total.Cost < want*0.999 || r.Total.Cost > want*1.001 {
				t.Errorf("total cost = %v (priced %v), want %v", r.Total.Cost, r.Total.Priced, want)
			}
		})
	}
}

// TestUsageUnknownPrice: a model with no known price leaves the cost unpriced.
func TestUsageUnknownPrice(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	a := f.agent(Options{Model: "my-local-model"})
	f.srv.Script(llmtest.Text("hi").WithUsage(llm.Usage{InputTokens: 5, OutputTokens: 1}))
	if _, err := a.Run(t.Context(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	if r := a.Usage(); r.Total.Priced || r.Total.Cost != 0 || r.Total.Usage.Total() != 6 {
		t.Errorf("report = %+v, want 6 tokens, unpriced", r)
	}
}
