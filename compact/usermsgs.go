package compact

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/tokens"
)

// DefaultUserBudget caps the tokens of the user's recent (not pinned) messages carried
// verbatim; a small window gets less (Budget.Recent).
const DefaultUserBudget = 12_000

// SummaryHeader starts every compaction summary message; it lets a later compaction recognise
// the summary (and the user messages carried inside it) in the history.
const SummaryHeader = "This session is being continued from an earlier conversation that ran out of context. The summary below covers the earlier part."

const (
	userOpen     = "<user-message"
	userClose    = "</user-message>"
	userEscClose = "<\\/user-message>"
	userSection  = "The user's own messages, verbatim, oldest first (carried by strata, not summarised):"
	pinnedLabel  = "Pinned — the session's first request and the user's standing instructions, kept whatever their age; follow them:"
	recentLabel  = "Recent messages:"
)

// UserMessages returns the text the user typed in entries, oldest first: text blocks of
// non-meta user messages (tool results and injected text are not the user's words). Messages
// carried inside an earlier compaction summary are recovered and come first.
func UserMessages(entries []conversation.Entry) []string {
	msgs, _ := userMessages(entries)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.text
	}
	return out
}

// userMessages is UserMessages with what an earlier summary recorded about each message (why it
// was pinned); fromStart reports that entries hold no earlier summary, so their first user
// message is the session's first request.
func userMessages(entries []conversation.Entry) (out []userMsg, fromStart bool) {
	fromStart = true
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
			fromStart = false
			continue
		}
		out = append(out, userMsg{text: t})
	}
	return out, fromStart
}

// carried extracts the user messages an earlier summary carried, with their pin.
func carried(summary string) []userMsg {
	var out []userMsg
	i := strings.Index(summary, userSection)
	if i < 0 {
		return nil
	}
	rest := summary[i+len(userSection):]
	for {
		i := strings.Index(rest, "\n"+userOpen)
		if i < 0 {
			return out
		}
		rest = rest[i+1+len(userOpen):]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 || !strings.HasSuffix(rest[:nl], ">") {
			continue
		}
		pin := pinOf(rest[:nl])
		rest = rest[nl+1:]
		j := strings.Index(rest, "\n"+userClose)
		if j < 0 {
			return out
		}
		out = append(out, userMsg{text: strings.ReplaceAll(rest[:j], userEscClose, userClose), pin: pin})
		rest = rest[j+1+len(userClose):]
	}
}

// pinOf reads the pin attribute of an opening tag's rest (` pinned="standing">`).
func pinOf(attrs string) string {
	for _, p := range []string{pinFirst, pinStanding, pinCondensed} {
		if strings.TrimSpace(attrs) == fmt.Sprintf("pinned=%q>", p) {
			return p
		}
	}
	return ""
}

// carriedMessages is what a compaction carries of the user's messages.
type carriedMessages struct {
	pinned, recent []userMsg
	omitted        int      // older recent messages left out for space
	condensed      []string // what the model condensed into pinned (condensedList)
	lost           []string // pinned messages the condensation left out that did not fit
	// latest says the last pinned message is the latest user message (a first request or a
	// standing instruction just typed): the request being worked on, never condensed.
	latest bool
}

// condensable splits the pinned messages into those a condensation may replace and those it
// keeps whole (the latest user message, when it is pinned).
func (c carriedMessages) condensable() (cond, whole []userMsg) {
	if c.latest && len(c.pinned) > 0 {
		return c.pinned[:len(c.pinned)-1], c.pinned[len(c.pinned)-1:]
	}
	return c.pinned, nil
}

// planUsers splits msgs (oldest first, pins marked) into the pinned ones, all kept, and the
// recent ones that fit budget tokens, most recent first (returned oldest first). The latest
// message is always kept whole: it is the request being worked on.
func planUsers(msgs []userMsg, budget int) carriedMessages {
	var c carriedMessages
	var rest []userMsg
	c.latest = len(msgs) > 0 && msgs[len(msgs)-1].pin != ""
	for _, m := range msgs {
		if m.pin != "" {
			c.pinned = append(c.pinned, m)
		} else {
			rest = append(rest, m)
		}
	}
	used := 0
	i := len(rest) - 1
	for ; i >= 0; i-- {
		t := tokens.Estimate(rest[i].text)
		if used+t > budget && len(c.recent) > 0 {
			break
		}
		used += t
		c.recent = append(c.recent, rest[i])
	}
	for l, r := 0, len(c.recent)-1; l < r; l, r = l+1, r-1 {
		c.recent[l], c.recent[r] = c.recent[r], c.recent[l]
	}
	c.omitted = i + 1
	return c
}

// texts returns the carried messages' texts, pinned first.
func (c carriedMessages) texts() []string {
	var out []string
	for _, m := range append(append([]userMsg(nil), c.pinned...), c.recent...) {
		out = append(out, m.text)
	}
	return out
}

// renderSummary builds the summary message text: header, summary, the pinned messages, then
// the recent ones.
func renderSummary(summary string, c carriedMessages) string {
	var b strings.Builder
	b.WriteString(SummaryHeader)
	b.WriteString("\n\n")
	// The summary must not contain the section line, which marks where carried messages begin.
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(summary), userSection, strings.TrimSuffix(userSection, ":")))
	if len(c.condensed) > 0 {
		fmt.Fprintf(&b, "\n\nCondensed by the model to fit the compacted context (every rule they set is kept in the condensed text below; the originals are in the transcript before this compaction): %d pinned messages —", len(c.condensed))
		for _, s := range c.condensed {
			b.WriteString("\n- " + strings.ReplaceAll(s, userSection, strings.TrimSuffix(userSection, ":")))
		}
	}
	if len(c.lost) > 0 {
		fmt.Fprintf(&b, "\n\nNot carried verbatim: the condensed text below lacks part of what %d pinned messages say (their numbers, paths, names or key words), and they did not fit (the user was told; ask them if these still apply) —", len(c.lost))
		for _, s := range c.lost {
			b.WriteString("\n- " + strings.ReplaceAll(s, userSection, strings.TrimSuffix(userSection, ":")))
		}
	}
	if len(c.pinned)+len(c.recent) == 0 {
		return b.String()
	}
	b.WriteString("\n\n")
	b.WriteString(userSection)
	write := func(m userMsg) {
		b.WriteString("\n" + userOpen)
		if m.pin != "" {
			fmt.Fprintf(&b, " pinned=%q", m.pin)
		}
		b.WriteString(">\n")
		b.WriteString(strings.ReplaceAll(m.text, userClose, userEscClose))
		b.WriteString("\n" + userClose)
	}
	if len(c.pinned) > 0 {
		b.WriteString("\n" + pinnedLabel)
		for _, m := range c.pinned {
			write(m)
		}
	}
	if len(c.recent) > 0 {
		if len(c.pinned) > 0 {
			b.WriteString("\n" + recentLabel)
		}
		if c.omitted > 0 {
			fmt.Fprintf(&b, "\n(%d earlier messages left out for space; the summary covers them.)", c.omitted)
		}
		for _, m := range c.recent {
			write(m)
		}
	}
	return b.String()
}
