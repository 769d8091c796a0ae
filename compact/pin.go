package compact

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tokens"
)

// Why a carried user message is pinned (kept before recent ones, whatever its age).
const (
	pinFirst     = "first"     // the session's first request
	pinStanding  = "standing"  // a message that sets a standing rule (IsStandingInstruction)
	pinCondensed = "condensed" // pinned messages the model condensed to fit their budget
)

// English cues: matched case-insensitively as whole words (so "always" does not match
// "hallways").
var standingWords = []string{
	"from now on", "from here on", "going forward", "in future", "in the future",
	"always", "never", "don't", "don’t", "do not", "dont", "remember", "every time", "make sure to",
}

// Chinese, Japanese and Korean cues: matched as substrings, as the scripts have no spaces
// between words.
var standingCJK = []string{
	// Chinese: from now on, from today, always, never, don't, must not, remember, be sure to, every time
	"以后", "今后", "从现在起", "从现在开始", "从今以后", "总是", "始终", "一直", "永远",
	"不要", "别再", "不许", "不准", "禁止", "记住", "务必", "每次",
	// Japanese: from now on, always, never, don't, remember
	"今後", "これから", "常に", "いつも", "決して", "しないで", "覚えて",
	// Korean: from now on, always, never, don't, remember
	"앞으로", "항상", "절대", "하지 마", "하지마", "기억해",
}

// standingSpan bounds what IsStandingInstruction reads of the user's own words in a long
// message (ownWords): the text before a pasted block and after it, or, when the structure
// shows no paste, the message's first and last standingSpan bytes. A cue inside a pasted log,
// file or document ("do not retry", "// never nil", "always retry" on its last line, "一直",
// "每次") does not make the paste a rule; pinned, it would crowd out (or be condensed together
// with) the user's real rules.
const standingSpan = 2048

// IsStandingInstruction reports whether a user message sets a standing rule — "from now on",
// "always", "never", "don't", "remember", "以后", "总是", "不要", "记住", … — and is therefore
// pinned by compaction: carried verbatim before the recent messages, condensed by the model
// when the pinned messages exceed their budget, never dropped. Only the user's own words
// count (ownWords): not a file attached with @path or a shell command's output, and in a
// message longer than twice standingSpan, not what they pasted — decided by the message's
// structure (fenced blocks, paragraphs of many lines, the shape of the lines at their edges).
// It is the one place that decides; a model summary adds its own judgement under its
// "Standing instructions" section.
func IsStandingInstruction(text string) bool {
	return hasStandingCue(ownWords(text))
}

// hasStandingCue reports whether text holds one of the cues of a standing rule.
func hasStandingCue(text string) bool {
	for _, c := range standingCJK {
		if strings.Contains(text, c) {
			return true
		}
	}
	lower := strings.ToLower(text)
	for _, w := range standingWords {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			j += i
			if wordEdge(lower, j, -1) && wordEdge(lower, j+len(w), 1) {
				return true
			}
			i = j + len(w)
		}
	}
	return false
}

// wordEdge reports whether position i of s is a word boundary looking in direction dir (-1:
// the rune before i, 1: the rune at i).
func wordEdge(s string, i, dir int) bool {
	var r rune
	if dir < 0 {
		if i == 0 {
			return true
		}
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	} else {
		if i >= len(s) {
			return true
		}
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
}

// userMsg is one user message as compaction carries it.
type userMsg struct {
	text string
	pin  string // "" (recent), pinFirst, pinStanding or pinCondensed
}

// pinned marks which of msgs (oldest first) are pinned: those an earlier compaction pinned, the
// session's first request (the oldest message when no earlier summary is in history, which
// means the history starts with the session), and every standing instruction.
func pinned(msgs []userMsg, fromStart bool) []userMsg {
	out := make([]userMsg, len(msgs))
	for i, m := range msgs {
		switch {
		case m.pin != "":
		case i == 0 && fromStart:
			m.pin = pinFirst
		case IsStandingInstruction(m.text):
			m.pin = pinStanding
		}
		out[i] = m
	}
	return out
}

func msgTokens(ms []userMsg) int {
	n := 0
	for _, m := range ms {
		n += tokens.Estimate(m.text)
	}
	return n
}

const condenseSystem = `You condense a user's standing instructions for a coding assistant so that none of them is lost when the conversation is compacted. Keep every rule, constraint, preference and the original request; keep names, numbers, values, paths, commands, quoted text, URLs and the wording of short rules exactly as written; when a later rule replaces an earlier one, keep the later one. Drop only explanation, examples and repetition. Never invent a rule.`

const condensePrompt = "The messages above are the user's first request and every message in which they set a rule meant to keep applying, oldest first. Rewrite them as one numbered list that keeps every rule and the request, in the user's language. Reply with the list only."

// condense asks the model to condense the pinned messages into one, within budget tokens.
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

// condensedList says, for the summary, which pinned messages were condensed: their kind and
// first words.
func condensedList(pins []userMsg) []string {
	var out []string
	for _, m := range pins {
		kind := map[string]string{pinFirst: "first request", pinStanding: "standing instruction", pinCondensed: "condensed earlier"}[m.pin]
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

// condensation is a condensed text checked against the pinned messages it replaces.
type condensation struct {
	held     []userMsg // the messages whose rules the text holds
	verbatim []userMsg // those it does not hold, carried verbatim (they fit the room)
	lost     []userMsg // those it does not hold that did not fit
	why      []string  // for each message not held: its first words and what is missing
}

// checkCondensed checks text, the model's condensation of cond (oldest first), against each
// of them (missingFrom). The messages it does not hold are kept verbatim while room tokens
// last, the newest first (a later rule wins over an earlier one); the rest are lost. Every
// list keeps cond's order.
func checkCondensed(text string, cond []userMsg, room int) condensation {
	var v condensation
	keep := make([]int, len(cond)) // 0 held, 1 verbatim, 2 lost
	for i := len(cond) - 1; i >= 0; i-- {
		missing := missingFrom(cond[i].text, text)
		if len(missing) == 0 {
			continue
		}
		v.why = append([]string{fmt.Sprintf("%q lacks %s", firstWords(cond[i].text, 40), strings.Join(quoteAll(missing, 3), ", "))}, v.why...)
		keep[i] = 2
		if t := tokens.Estimate(cond[i].text); t <= room {
			room -= t
			keep[i] = 1
		}
	}
	for i, m := range cond {
		switch keep[i] {
		case 0:
			v.held = append(v.held, m)
		case 1:
			v.verbatim = append(v.verbatim, m)
		default:
			v.lost = append(v.lost, m)
		}
	}
	return v
}

// quoteAll quotes the first n of ss, with how many more.
func quoteAll(ss []string, n int) []string {
	var out []string
	for i, s := range ss {
		if i == n {
			out = append(out, fmt.Sprintf("%d more", len(ss)-n))
			break
		}
		if s == "key terms" {
			out = append(out, "most of its words")
			continue
		}
		out = append(out, fmt.Sprintf("%q", firstWords(s, 40)))
	}
	return out
}

// lostNote tells the user which pinned messages a condensation lost.
func lostNote(lost, why []string) string {
	return fmt.Sprintf("The model's condensation of your pinned messages left out part of what %d of them say (%s), and they do not fit the pinned budget verbatim, so only the condensed text stands for them now: %s. They are in the transcript before this compaction; repeat what still applies.",
		len(lost), strings.Join(why, "; "), strings.Join(lost, "; "))
}
