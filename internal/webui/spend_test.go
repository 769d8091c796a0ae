package webui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
)

// TestSessionListSpend: the list shows each session's tokens and cost (a reply counted once
// though Claude Code repeats its usage), a chart of them per day, and follows an appended reply.
func TestSessionListSpend(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	p, ok := llm.PriceOf("claude-sonnet-4-5")
	if !ok {
		t.Fatal("no price for claude-sonnet-4-5")
	}
	cost := p.Cost(conversation.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 1000}) + p.Cost(conversation.Usage{InputTokens: 50, OutputTokens: 30})
	_, body := f.get(t, "/sessions")
	for _, want := range []string{`<td class="num">1.2k</td>`, `<td class="num">` + dollars(cost) + `</td>`, `<svg id="chart"`, "2026-03-01: 1.2k tokens"} {
		if !strings.Contains(body, want) {
			t.Errorf("session list lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(body)
	}

	// A reply appended the next day, of a model without a known price: the list reads the
	// transcript again, the chart gets a second day.
	path := filepath.Join(f.ws.TranscriptDir(), sessionID+".jsonl")
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = fh.WriteString(`{"type":"assistant","uuid":"a3","parentUuid":"a2","sessionId":"` + sessionID + `","timestamp":"2026-03-02T09:00:00Z","message":{"role":"assistant","id":"msg_3","model":"local-llama","usage":{"input_tokens":2000,"output_tokens":800},"content":[{"type":"text","text":"Done."}]}}` + "\n")
	must(t, err)
	must(t, fh.Close())
	_, body = f.get(t, "/sessions")
	for _, want := range []string{`<td class="num">4.0k</td>`, "+?", "no list price for local-llama", "2026-03-02: 2.8k tokens", "2026-03-01 to 2026-03-02"} {
		if !strings.Contains(body, want) {
			t.Errorf("after an appended reply, the list lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(body)
	}

	// The spends were saved beside the session index: a new server reads them from there.
	x := &spendIndex{path: f.srv.spends.path}
	got := x.load()
	if e, ok := got[path]; !ok || e.Spend.Total.Tokens() != 4000 || len(e.Spend.Days) != 2 {
		t.Fatalf("saved spend index: %+v", got)
	}
}

func TestSpendChart(t *testing.T) {
	day := func(tokens int, dollars float64) spend {
		return spend{Usage: conversation.Usage{InputTokens: tokens}, Dollars: dollars, Replies: 1}
	}
	c := spendChart([]sessionSpend{
		{Days: map[string]spend{"2026-01-01": day(100, 1), "2026-01-03": day(300, 0.5)}},
		{Days: map[string]spend{"2026-01-03": day(100, 0.5)}},
		{}, // a session without replies
	})
	if len(c.Bars) != 3 || c.First != "2026-01-01" || c.Last != "2026-01-03" {
		t.Fatalf("bars %d, %s to %s; want 3, 2026-01-01 to 2026-01-03", len(c.Bars), c.First, c.Last)
	}
	if c.Tokens != 500 || c.Dollars != 2 || c.MaxTokens != 400 || c.MaxDollars != 1 {
		t.Fatalf("totals: %+v", c)
	}
	if b := c.Bars[2]; b.H != chartH-chartTop || b.Y != chartTop {
		t.Errorf("the tallest day: %+v, want the full height", b)
	}
	if b := c.Bars[1]; b.H != 0 || b.Tokens != 0 {
		t.Errorf("the empty day: %+v", b)
	}
	if b := c.Bars[0]; b.H != (chartH-chartTop)/4 {
		t.Errorf("a quarter day: %+v", b)
	}
	if pts := strings.Fields(c.CostLine); len(pts) != 3 || !strings.HasSuffix(pts[0], ","+strconv.Itoa(chartTop)) {
		t.Errorf("cost line %q: the first day has the highest cost", c.CostLine)
	}

	// Only the newest chartDays days are drawn.
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c = spendChart([]sessionSpend{{Days: map[string]spend{old.Format(time.DateOnly): day(1, 0), "2026-01-03": day(1, 0)}}})
	if len(c.Bars) != 1 || c.First != "2026-01-03" {
		t.Errorf("a day a year older: %d bars from %s, want only 2026-01-03", len(c.Bars), c.First)
	}
	if c := spendChart(nil); c.Bars != nil {
		t.Errorf("no sessions: %+v", c)
	}
}
