package llm

import (
	"context"
	"io"
	"testing"

	"github.com/strata-mem/strata/conversation"
)

// fakeProvider serves each Stream call from the next source.
type fakeProvider struct{ srcs []*fakeSource }

func (p *fakeProvider) Stream(ctx context.Context, req *Request) (*Stream, error) {
	src := p.srcs[0]
	p.srcs = p.srcs[1:]
	open, _ := attempts(src)
	return NewStream(ctx, open, fastPolicy()), nil
}

// TestMeteredRecordsEachStream: Complete and a drained Stream are recorded once each with the
// final usage; a cancelled stream records what its attempt reported, a stream with none nothing.
func TestMeteredRecordsEachStream(t *testing.T) {
	noUsage := []Event{
		{Type: EventStart, ID: "m3"},
		{Type: EventBlockStart, Index: 0, Block: &conversation.Block{Type: conversation.Text}},
		{Type: EventText, Index: 0, Text: "x"},
		{Type: EventBlockStop, Index: 0},
		{Type: EventStop, StopReason: StopEndTurn},
	}
	fp := &fakeProvider{srcs: []*fakeSource{
		{evs: textReply("one"), end: io.EOF},
		{evs: textReply("two"), end: io.EOF},
		{evs: noUsage, end: io.EOF},
	}}
	var got []Usage
	p := Metered(Metered(fp, func(u Usage) { got = append(got, u) }), func(u Usage) { got = append(got, u) })
	req := &Request{Messages: []conversation.Message{conversation.NewText(conversation.User, "hi")}}
	if _, err := Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	s, err := p.Stream(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	drain(s)
	if _, err := Complete(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	want := Usage{InputTokens: 5, OutputTokens: 3}
	if len(got) != 4 {
		t.Fatalf("recorded %d usages (%+v), want 4 (two streams, two meters each)", len(got), got)
	}
	for _, u := range got {
		if u != want {
			t.Errorf("recorded %+v, want %+v", u, want)
		}
	}
}

func TestPriceOf(t *testing.T) {
	p, ok := PriceOf("claude-sonnet-4-5-20250929")
	if !ok || p.Input != 3 || p.Output != 15 {
		t.Fatalf("PriceOf(sonnet 4.5) = %+v, %v", p, ok)
	}
	if mini, _ := PriceOf("openai/gpt-4o-mini"); mini.Input != 0.15 {
		t.Errorf("gpt-4o-mini input price %v, want 0.15 (the longer prefix wins)", mini.Input)
	}
	if _, ok := PriceOf("llama3.1:8b"); ok {
		t.Error("a local model has a price")
	}
	if cost := p.Cost(Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadInputTokens: 1_000_000}); cost != 3+1.5+0.3 {
		t.Errorf("cost = %v, want 4.8", cost)
	}
}
