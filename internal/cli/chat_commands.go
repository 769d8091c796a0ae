package cli

// The chat's commands as functions that both the line mode (chat.go) and a terminal UI call:
// each takes what it needs and returns text or a result; none reads the terminal.

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/agent"
)

// CostLines renders a session's usage for /cost: a heading, one line per kind of model call
// (the conversation, recall selection, extraction, notes, compaction, dream) and the total.
func CostLines(r agent.UsageReport) []string {
	out := []string{"Tokens this session, every model call by kind:"}
	for _, l := range append(r.Lines, r.Total) {
		u := l.Usage
		out = append(out, fmt.Sprintf("  %-11s %d input (%d uncached, %d written to cache, %d read from cache), %d output · %d call(s) · %s",
			l.Kind, u.PromptTokens(), u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens, l.Calls, CostText(l)))
	}
	if len(r.Lines) == 0 {
		out = append(out[:1], "  no model call yet")
	}
	return out
}

// CostText is the cost of a usage line in US dollars: "$0.0123", "$0.0123 + unpriced calls"
// when some model had no known price, and "cost unknown" when none had.
func CostText(l agent.UsageLine) string {
	switch {
	case l.Priced:
		return fmt.Sprintf("$%.4f", l.Cost)
	case l.Cost > 0:
		return fmt.Sprintf("$%.4f + unpriced calls", l.Cost)
	}
	return "cost unknown (no price for the model)"
}

// UsageStatus is the status line's part about usage: every token the session's model calls
// used (background work included) and their cost when known.
func UsageStatus(r agent.UsageReport) string {
	s := kTokens(r.Total.Usage.Total()) + " tokens used"
	if r.Total.Priced && r.Total.Calls > 0 {
		s += fmt.Sprintf(" · $%.4f", r.Total.Cost)
	}
	return s
}

var _ = strings.TrimSpace
