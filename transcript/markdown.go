package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/termtext"
)

// WriteMarkdown renders the session's chain as a markdown document: a heading with the title (Title),
// then each user and assistant message, tool calls and results as fenced blocks, and compact
// boundaries as rules. Meta messages are marked as such.
func WriteMarkdown(w io.Writer, s *Session) error {
	var b strings.Builder
	title := s.Title()
	if title == "" {
		title = "Session " + s.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", termtext.OneLine(title))
	fmt.Fprintf(&b, "- session: `%s`\n", s.ID)
	if len(s.Chain) > 0 {
		first := s.Chain[0]
		if first.CWD != "" {
			fmt.Fprintf(&b, "- cwd: `%s`\n", first.CWD)
		}
		if !first.Timestamp.IsZero() {
			fmt.Fprintf(&b, "- started: %s\n", first.Timestamp.UTC().Format(TimeFormat))
		}
	}
	b.WriteString("\n")
	for _, e := range s.Chain {
		switch {
		case e.IsCompactBoundary():
			fmt.Fprintf(&b, "---\n\n*Conversation compacted (%s).*\n\n", stamp(e))
			continue
		case e.Type != TypeUser && e.Type != TypeAssistant:
			continue
		}
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			continue
		}
		role := "User"
		if e.Type == TypeAssistant {
			role = "Assistant"
		}
		switch {
		case e.IsCompactSummary:
			role = "Summary of the earlier conversation"
		case e.IsMeta:
			role += " (meta)"
		}
		fmt.Fprintf(&b, "## %s — %s\n\n", role, stamp(e))
		writeBlocks(&b, m.Content)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func stamp(e *Entry) string {
	if e.Timestamp.IsZero() {
		return "no time"
	}
	return e.Timestamp.UTC().Format("2006-01-02 15:04:05Z")
}

func writeBlocks(b *strings.Builder, blocks []conversation.Block) {
	for _, bl := range blocks {
		switch bl.Type {
		case conversation.Text:
			b.WriteString(strings.TrimSpace(bl.Text))
			b.WriteString("\n\n")
		case conversation.Thinking:
			if t := strings.TrimSpace(bl.Thinking); t != "" {
				b.WriteString("<details><summary>Thinking</summary>\n\n")
				b.WriteString(t)
				b.WriteString("\n\n</details>\n\n")
			}
		case conversation.ToolUse:
			fmt.Fprintf(b, "**Tool call `%s`**\n\n", bl.Name)
			fence(b, "json", indentJSON(bl.Input))
		case conversation.ToolResult:
			label := "Tool result"
			if bl.IsError {
				label = "Tool error"
			}
			fmt.Fprintf(b, "**%s**\n\n", label)
			var text strings.Builder
			for _, c := range bl.Content {
				if c.Type == conversation.Text {
					text.WriteString(c.Text)
					text.WriteString("\n")
				} else if c.Type == conversation.Image {
					text.WriteString("[image]\n")
				}
			}
			fence(b, "", strings.TrimRight(text.String(), "\n"))
		case conversation.Image:
			b.WriteString("*[image]*\n\n")
		default:
			fmt.Fprintf(b, "*[%s block]*\n\n", bl.Type)
		}
	}
}

// fence writes s in a code fence longer than any backtick run inside it.
func fence(b *strings.Builder, lang, s string) {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", ticks, lang, s, ticks)
}

func indentJSON(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}
