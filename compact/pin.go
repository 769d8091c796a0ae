package compact

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tokens"
)

// DefaultUserBudget caps the tokens of the user's recent (not pinned) messages carried
// verbatim; a small window gets less (Budget.Recent).
const DefaultUserBudget = 12_000

// SummaryHeader starts every compaction summary message; it lets a later compaction recognise
// the summary (and the user messages carried inside it) in the history.
const SummaryHeader = "This session is being continued from an earlier conversation that ran out of context. The summary below covers the earlier part."

// Why a carried user message is pinned (kept before recent ones, whatever its age).
const (
	pinFirst     = "first"     // the session's first request
	pinUser      = "user"      // a message the user pinned (conversation.Input.Pinned)
	pinCondensed = "condensed" // pinned messages the model condensed to fit their budget
)

const (
	userOpen     = "<user-message"
	userClose    = "</user-message>"
	userEscClose = "<\\/user-message>"
	userSection  = "The user's own messages, verbatim, oldest first (carried by strata, not summarised):"
	pinnedLabel  = "Pinned — the session's first request and the messages the user pinned, kept whatever their age; follow them:"
	recentLabel  = "Recent messages:"
)

// userMsg is one user message as compaction carries it.
type userMsg struct {
	text string
	pin  string // "" (recent), pinFirst, pinUser, pinCondensed (or a pin an earlier version wrote)
	// whole is the message with what the user did not type (whole == text when all is typed
	// or nothing is recorded).
	whole string
}

// UserMessages returns the user's messages in entries as compaction carries them, oldest
// first: the text blocks of non-meta user messages, with the parts that the recorded
// provenance says the user did not type (pastes, attached files, command output) replaced by
// a line saying what was left out. Messages carried inside an earlier summary come first.
func UserMessages(entries []conversation.Entry) []string {
	msgs, _ := userMessages(entries)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.text
	}
	return out
}

// userMessages is UserMessages with each message's pin; fromStart reports that entries hold no
// earlier summary, so their first user message is the session's first request.
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
		m := userMsg{text: t, whole: t}
		if e.Provenance.Pinned {
			m.pin = pinUser
		}
		if parts, ok := e.Provenance.Split(t); ok && len(texts) == 1 {
			m.text = typedWords(parts)
		}
		out = append(out, m)
	}
	return out, fromStart
}

// typedWords is a message's typed parts, each other part replaced by a line saying what it was.
func typedWords(parts []conversation.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Origin == conversation.Typed {
			b.WriteString(p.Text)
			continue
		}
		what := map[conversation.Origin]string{conversation.Pasted: "pasted text", conversation.Attached: "an attached file", conversation.Command: "command output"}[p.Origin]
		if what == "" {
			what = string(p.Origin)
		}
		fmt.Fprintf(&b, "\n[%s, %d lines, left out here: the summary and the transcript have it]\n", what, strings.Count(strings.TrimRight(p.Text, "\n"), "\n")+1)
	}
	return b.String()
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
		pin := ""
		if v, ok := strings.CutPrefix(strings.TrimSpace(rest[:nl]), "pinned="); ok {
			pin, _ = strconv.Unquote(strings.TrimSuffix(v, ">"))
		}
		rest = rest[nl+1:]
		j := strings.Index(rest, "\n"+userClose)
		if j < 0 {
			return out
		}
		text := strings.ReplaceAll(rest[:j], userEscClose, userClose)
		out = append(out, userMsg{text: text, whole: text, pin: pin})
		rest = rest[j+1+len(userClose):]
	}
}

// carriedMessages is what a compaction carries of the user's messages.
type carriedMessages struct {
	pinned, recent []userMsg
	omitted        int      // older recent messages left out for space
	condensed      []string // what the model condensed into pinned (describe)
	lost           []string // pinned messages the condensation left out that did not fit
	// latest says the last pinned message is the latest user message: the request being
	// worked on, never condensed.
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

// planUsers marks the session's first request (when fromStart) and splits msgs (oldest first)
// into the pinned ones, all kept, and the recent ones that fit budget tokens, most recent
// first (returned oldest first). The latest message is kept whole, parts the user did not type
// included: it is the request being worked on.
func planUsers(msgs []userMsg, fromStart bool, budget int) carriedMessages {
	var c carriedMessages
	var rest []userMsg
	for i, m := range msgs {
		if i == 0 && fromStart {
			m.pin = pinFirst
		}
		if i == len(msgs)-1 {
			m.text = m.whole
			c.latest = m.pin != ""
		}
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
		c.recent = append([]userMsg{rest[i]}, c.recent...)
	}
	c.omitted = i + 1
	return c
}

func msgTokens(ms []userMsg) int {
	n := 0
	for _, m := range ms {
		n += tokens.Estimate(m.text)
	}
	return n
}

// texts returns the carried messages' texts, pinned first.
func (c carriedMessages) texts() []string {
	var out []string
	for _, m := range append(append([]userMsg(nil), c.pinned...), c.recent...) {
		out = append(out, m.text)
	}
	return out
}

const condenseSystem = `You condense the messages a user pinned for a coding assistant so that none of them is lost when the conversation is compacted. Keep every rule, constraint, preference and the original request; keep names, numbers, values, paths, commands, quoted text, URLs and the wording of short rules exactly as written. Drop only explanation, examples and repetition. Never invent a rule.`

const condensePrompt = "The messages above are the user's first request and the messages they pinned, oldest first. Rewrite each as one numbered item with the message's own number (n), in the user's language, merging none; when a later message replaces a rule of an earlier one, say so in the later item. Reply with the list only."

// condense asks the model to condense the pinned messages, one numbered item each, within
// budget tokens.
func condense(ctx context.Context, p llm.Provider, model string, pins []userMsg, budget int) (string, error) {
	var b strings.Builder
	for i, m := range pins {
		fmt.Fprintf(&b, "<message n=%d kind=%q>\n%s\n</message>\n\n", i+1, m.pin, m.text)
	}
	b.WriteString(condensePrompt)
	req := &llm.Request{
		Model:     model,
		System:    []llm.SystemBlock{{Text: condenseSystem}},
		Messages:  []conversation.Message{conversation.NewText(conversation.User, b.String())},
		MaxTokens: max(budget, minSummaryTokens),
	}
	resp, err := llm.Complete(ctx, p, req)
	if err != nil {
		return "", fmt.Errorf("compact: condense pinned messages: %w", err)
	}
	text := strings.TrimSpace(resp.Message.TextOf())
	if text == "" {
		return "", fmt.Errorf("compact: condense pinned messages: empty reply (stop reason %q)", resp.StopReason)
	}
	return text, nil
}

// items returns the numbers of the items of a numbered list ("3. …", "3) …") that say something.
func items(text string) map[int]bool {
	out := map[int]bool{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		i := strings.IndexAny(l, ".)")
		if i <= 0 || strings.TrimSpace(l[i+1:]) == "" {
			continue
		}
		if n, err := strconv.Atoi(l[:i]); err == nil {
			out[n] = true
		}
	}
	return out
}

// condensation sorts the pinned messages cond (oldest first) by the model's condensation
// text: held are those it has an item for; of the others, verbatim are kept as written while
// room tokens last, the newest first (a later rule wins over an earlier one), and lost are
// those that do not fit. Every list keeps cond's order.
func condensation(text string, cond []userMsg, room int) (held, verbatim, lost []userMsg) {
	have := items(text)
	fits := make([]bool, len(cond))
	for i := len(cond) - 1; i >= 0; i-- {
		if t := tokens.Estimate(cond[i].text); !have[i+1] && t <= room {
			room -= t
			fits[i] = true
		}
	}
	for i, m := range cond {
		switch {
		case have[i+1]:
			held = append(held, m)
		case fits[i]:
			verbatim = append(verbatim, m)
		default:
			lost = append(lost, m)
		}
	}
	return held, verbatim, lost
}

// describe names pinned messages by kind and first words, for the summary and the user.
func describe(pins []userMsg) []string {
	var out []string
	for _, m := range pins {
		kind := map[string]string{pinFirst: "first request", pinCondensed: "condensed earlier"}[m.pin]
		if kind == "" {
			kind = "pinned message"
		}
		out = append(out, fmt.Sprintf("%s: %q", kind, firstWords(m.text, 80)))
	}
	return out
}

// firstWords is the first n runes of s's first line, with "…" when cut.
func firstWords(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// renderSummary builds the summary message text: header, summary, the pinned messages, then
// the recent ones.
func renderSummary(summary string, c carriedMessages) string {
	var b strings.Builder
	// Nothing but the carried messages may hold the section line, which marks where they begin.
	safe := func(s string) string { return strings.ReplaceAll(s, userSection, strings.TrimSuffix(userSection, ":")) }
	b.WriteString(SummaryHeader + "\n\n" + safe(strings.TrimSpace(summary)))
	if len(c.condensed) > 0 {
		fmt.Fprintf(&b, "\n\nCondensed by the model to fit the compacted context (the condensed text below has an item for each; the originals are in the transcript before this compaction): %d pinned messages —", len(c.condensed))
		for _, s := range c.condensed {
			b.WriteString("\n- " + safe(s))
		}
	}
	if len(c.lost) > 0 {
		fmt.Fprintf(&b, "\n\nNot carried verbatim: the condensed text below has no item for %d pinned messages, and they did not fit (the user was told; ask them if these still apply) —", len(c.lost))
		for _, s := range c.lost {
			b.WriteString("\n- " + safe(s))
		}
	}
	if len(c.pinned)+len(c.recent) == 0 {
		return b.String()
	}
	b.WriteString("\n\n" + userSection)
	write := func(m userMsg) {
		b.WriteString("\n" + userOpen)
		if m.pin != "" {
			fmt.Fprintf(&b, " pinned=%q", m.pin)
		}
		b.WriteString(">\n" + strings.ReplaceAll(m.text, userClose, userEscClose) + "\n" + userClose)
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

// Pinned returns what a compaction of entries carries whatever its age, verbatim, oldest
// first: the session's first request ("" when entries begin after an earlier summary that did
// not carry it) and the messages the user pinned, those carried inside an earlier summary
// included. Compaction and anything that must restore them after someone else's compaction
// (strata hook) read them here, so both keep the same messages.
func Pinned(entries []conversation.Entry) (first string, pinned []string) {
	msgs, fromStart := userMessages(entries)
	for i, m := range msgs {
		switch {
		case i == 0 && fromStart, m.pin == pinFirst && first == "":
			first = m.whole
		case m.pin != "":
			pinned = append(pinned, m.whole)
		}
	}
	return first, pinned
}
