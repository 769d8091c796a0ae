package cli

// The chat's commands as functions that both the line mode (chat.go) and a terminal UI call:
// each takes what it needs and returns text or a result; none reads the terminal.

import (
	"fmt"
	"github.com/strata-mem/strata/usage"
	"strings"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/permission"
)

// CostLines renders a session's usage for /cost: a heading, one line per kind of model call
// (the conversation, recall selection, extraction, notes, compaction, dream) and the total.
func CostLines(r usage.Report) []string {
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
func CostText(l usage.Line) string {
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
func UsageStatus(r usage.Report) string {
	s := kTokens(r.Total.Usage.Total()) + " tokens used"
	if r.Total.Priced && r.Total.Calls > 0 {
		s += fmt.Sprintf(" · $%.4f", r.Total.Cost)
	}
	return s
}

// ExitSummary is the line said when a chat ends: the session, every token its model calls used
// (background work included, counted after Close drained it) with their cost when known, and
// how to resume it — or that it was not saved.
func ExitSummary(a *agent.Agent) string {
	r := a.Usage()
	s := fmt.Sprintf("Session %s · %s tokens", a.SessionID(), kTokens(r.Total.Usage.Total()))
	if r.Total.Calls > 0 && (r.Total.Priced || r.Total.Cost > 0) {
		s += " · " + CostText(r.Total)
	}
	if a.TranscriptPath() == "" || a.Unsaved() {
		return s + " · not saved"
	}
	if len(a.History()) == 0 {
		return s + " · nothing to resume"
	}
	return s + " · resume with: strata chat --resume " + a.SessionID()
}

// PermissionChoices is the line mode's list of answers to r: "[y]es  [n]o" and, when r
// offers a rule, "[a]lways: don't ask again for RULE (…)" naming the rule before it is chosen.
func PermissionChoices(r permission.Request) string {
	s := "[y]es"
	if r.Always != "" {
		s += "  [a] yes, and " + AlwaysText(r)
	}
	return s + "  [n]o (n TEXT: no, and tell the model TEXT)"
}

// AlwaysText says what "don't ask again" for r does: the rule and where it holds.
func AlwaysText(r permission.Request) string {
	if r.AlwaysSaved {
		return "don't ask again for " + r.Always + " in this project (saved in .claude/settings.local.json)"
	}
	if r.Always == "Edit" {
		return "allow all edits for the rest of this session"
	}
	return "don't ask again for " + r.Always + " in this session"
}

// ParsePermissionAnswer reads a typed answer to r: y/yes, n/no, "n TEXT" (no, with TEXT for
// the model), and a/always when r offers a rule. ok is false for anything else.
func ParsePermissionAnswer(r permission.Request, line string) (permission.Answer, bool) {
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return permission.Answer{Allow: true}, rest == ""
	case "n", "no":
		return permission.Answer{Feedback: strings.TrimSpace(rest)}, true
	case "a", "always":
		return permission.Answer{Allow: true, Always: true}, r.Always != "" && rest == ""
	}
	return permission.Answer{}, false
}
