package compact

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/tokens"
)

// DefaultUserBudget is how many tokens of the user's own messages are carried verbatim.
const DefaultUserBudget = 12_000

// SummaryHeader starts every compaction summary message; it lets a later compaction recognise
// the summary (and the user messages carried inside it) in the history.
const SummaryHeader = "This session is being continued from an earlier conversation that ran out of context. The summary below covers the earlier part."

const (
	userOpen     = "<user-message>"
	userClose    = "</user-message>"
	userEscClose = "<\\/user-message>"
	userSection  = "The user's own messages, verbatim, oldest first (carried by strata, not summarised):"
)

// UserMessages returns the text the user typed in entries, oldest first: text blocks of
// non-meta user messages (tool results and injected text are not the user's words). Messages
// carried inside an earlier compaction summary are recovered and come first.
func UserMessages(entries []conversation.Entry) []string {
	var out []string
	for _, e := range entries {
		if e.IsMeta || e.Message.Role != conversation.User {
			continue
		}
		var texts []string
		for _, b := range e.Message.Content {
			if b.Type == conversation.Text && strings.TrimSpace(b.Text) != "" {
				texts = append(texts, b.Text)
			}
		}
		if len(texts) == 0 {
			continue
		}
		t := strings.Join(texts, "\n")
		if strings.HasPrefix(t, SummaryHeader) {
			out = append(out, carried(t)...)
			continue
		}
		out = append(out, t)
	}
	return out
}

// carried extracts the user messages an earlier summary carried.
func carried(summary string) []string {
	var out []string
	i := strings.Index(summary, userSection)
	if i < 0 {
		return nil
	}
	rest := summary[i+len(userSection):]
	for {
		i := strings.Index(rest, userOpen+"\n")
		if i < 0 {
			return out
		}
		rest = rest[i+len(userOpen)+1:]
		j := strings.Index(rest, "\n"+userClose)
		if j < 0 {
			return out
		}
		out = append(out, strings.ReplaceAll(rest[:j], userEscClose, userClose))
		rest = rest[j+len(userClose)+1:]
	}
}

// keepUserMessages picks the most recent messages that fit budget tokens and returns them
// oldest first with the number left out. The most recent message is always kept, clipped if
// it alone is over the budget.
func keepUserMessages(msgs []string, budget int) (kept []string, omitted int) {
	used := 0
	i := len(msgs) - 1
	for ; i >= 0; i-- {
		t := tokens.Estimate(msgs[i])
		if used+t > budget {
			if len(kept) == 0 {
				kept = append(kept, clip(msgs[i], budget))
				i--
			}
			break
		}
		used += t
		kept = append(kept, msgs[i])
	}
	for l, r := 0, len(kept)-1; l < r; l, r = l+1, r-1 {
		kept[l], kept[r] = kept[r], kept[l]
	}
	return kept, i + 1
}

// renderSummary builds the summary message text: header, summary, and the user's messages.
func renderSummary(summary string, users []string, omitted int) string {
	var b strings.Builder
	b.WriteString(SummaryHeader)
	b.WriteString("\n\n")
	// The summary must not contain the section line, which marks where carried messages begin.
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(summary), userSection, strings.TrimSuffix(userSection, ":")))
	if len(users) > 0 {
		b.WriteString("\n\n")
		b.WriteString(userSection)
		if omitted > 0 {
			fmt.Fprintf(&b, "\n(%d earlier messages left out for space; the summary covers them.)", omitted)
		}
		for _, u := range users {
			b.WriteString("\n" + userOpen + "\n")
			b.WriteString(strings.ReplaceAll(u, userClose, userEscClose))
			b.WriteString("\n" + userClose)
		}
	}
	return b.String()
}
