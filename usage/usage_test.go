package usage

import (
	"context"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	_ "github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
)

// Each kind's calls land on their own line, priced by the model they go to: Recall by the
// small model, the rest by the main one until SetModel switches it.
func TestMeter(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	p, err := llm.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	m := NewMeter(p, "claude-haiku-4-5", "no-such-small-model")
	u := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	call := func(k Kind) {
		srv.Script(llmtest.Text("ok").WithUsage(u))
		req := &llm.Request{Messages: []conversation.Message{conversation.NewText(conversation.User, "hi")}, MaxTokens: 10}
		if _, err := llm.Complete(context.Background(), m.Provider(k), req); err != nil {
			t.Fatal(err)
		}
	}
	call(Main)
	call(Main)
	call(Recall)
	m.SetModel("no-such-model")
	call(Compaction)
	r := m.Report()
	price, _ := llm.PriceOf("claude-haiku-4-5")
	main, recall, comp := r.Line(Main), r.Line(Recall), r.Line(Compaction)
	if main.Calls != 2 || main.Usage != u.Add(u) || !main.Priced || main.Cost != 2*price.Cost(u) {
		t.Errorf("main = %+v", main)
	}
	if recall.Calls != 1 || recall.Priced || comp.Calls != 1 || comp.Priced {
		t.Errorf("recall = %+v, compaction = %+v: want one unpriced call each", recall, comp)
	}
	if len(r.Lines) != 3 || r.Total.Calls != 4 || r.Total.Priced || r.Total.Cost != main.Cost {
		t.Errorf("report = %+v", r)
	}
	if l := r.Line(Dream); l.Calls != 0 || !l.Priced {
		t.Errorf("a kind without calls = %+v", l)
	}
}
