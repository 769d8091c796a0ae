package transcript

import (
	"strings"

	"github.com/strata-mem/strata/conversation"
)

// UserEntries returns the messages the user wrote in entries, oldest first, as conversation
// entries holding their text only: what compaction reads as the user's messages. Left out are
// meta and sidechain entries, tool results, compaction summaries (Claude Code's
// isCompactSummary), and text blocks that Claude Code or strata wrote (<system-reminder>,
// command output …), by the same rules as a session's title. A slash command with arguments
// is kept as "/name args"; one without is left out.
func UserEntries(entries []*Entry) []conversation.Entry {
	var out []conversation.Entry
	for _, e := range entries {
		if e.Type != TypeUser || e.IsMeta || e.IsCompactSummary || e.IsSidechain || len(e.Message) == 0 {
			continue
		}
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			continue
		}
		var texts []string
		for _, b := range m.Content {
			if b.Type == conversation.ToolResult {
				texts = nil
				break
			}
			if b.Type == conversation.Text {
				if t, ok := typedText(b.Text); ok {
					texts = append(texts, t)
				}
			}
		}
		if len(texts) == 0 {
			continue
		}
		out = append(out, conversation.Entry{UUID: e.UUID, Timestamp: e.Timestamp,
			Message: conversation.NewText(conversation.User, strings.Join(texts, "\n")), Provenance: e.InputProvenance()})
	}
	return out
}

// typedText returns a user text block's words when the user wrote them.
func typedText(t string) (string, bool) {
	s := strings.TrimSpace(t)
	if name, ok := tagText(s, "command-name"); ok {
		args, _ := tagText(s, "command-args")
		if args = strings.TrimSpace(args); args == "" {
			return "", false
		}
		return name + " " + args, true
	}
	if s == "" || opensWithTag(s) || strings.HasPrefix(s, "[Request interrupted by user") || strings.HasPrefix(s, "Caveat:") {
		return "", false
	}
	return t, true
}
