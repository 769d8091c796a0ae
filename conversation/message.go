package conversation

import (
	"encoding/json"
	"strings"
)

// Role is who speaks a message.
type Role string

// Roles of the provider APIs.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockType names the kind of a content block; the values are the Anthropic Messages API's, which
// are also what Claude Code writes into transcripts.
type BlockType string

// Block types.
const (
	Text       BlockType = "text"
	Thinking   BlockType = "thinking"
	ToolUse    BlockType = "tool_use"
	ToolResult BlockType = "tool_result"
	Image      BlockType = "image"
	// RedactedThinking is thinking the provider encrypted; Data must be sent back unchanged.
	RedactedThinking BlockType = "redacted_thinking"
	// Document is a file given to the model whole (Claude Code writes a PDF the user attached
	// as one); Source is kept verbatim, like an image's.
	Document BlockType = "document"
)

// Sendable reports whether b is a block a request can carry back to a model: text, images,
// documents, tool calls and results, thinking with its signature, redacted thinking with its
// data. Thinking without a signature is refused by the API; a provider's server-side tool
// blocks (Claude Code transcripts hold web_search's server_tool_use and
// web_search_tool_result) and types strata does not know are not sent: the request declares
// no such tool. Repair leaves such blocks out, and the providers send what it keeps.
func Sendable(b Block) bool {
	switch b.Type {
	case Text, Image, Document, ToolUse, ToolResult:
		return true
	case Thinking:
		return b.Signature != ""
	case RedactedThinking:
		return b.Data != ""
	}
	return false
}

// Message is one turn of the conversation as a provider sees it: a role and typed blocks. It
// marshals to the Anthropic/Claude Code JSON shape ({"role":..,"content":[..]}); a message whose
// content is a plain JSON string unmarshals into one text block.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
	// Origin is where the message came from, for reports: a caller that built it from a
	// transcript sets the line of its first entry (0: unknown). No rule reads it, Merge keeps
	// the first message's, and it is never sent or marshalled.
	Origin int `json:"-"`
}

// Block is one content block. Only the fields of its Type are set.
type Block struct {
	Type BlockType `json:"type"`

	// Text is the text of a text block.
	Text string `json:"text,omitempty"`

	// Thinking and Signature carry a thinking block; the signature must be sent back unchanged.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Data is the opaque content of a redacted_thinking block.
	Data string `json:"data,omitempty"`

	// ID, Name and Input describe a tool call (tool_use).
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// ToolUseID, Content and IsError describe a tool result; Content holds text or nested blocks.
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`

	// Source is an image's or a document's source ({"type":"base64","media_type":..,"data":..}),
	// kept verbatim.
	Source json.RawMessage `json:"source,omitempty"`

	// Origin is where the block came from, for reports: a caller that built it from a
	// transcript sets the line of its entry (0: unknown). No rule reads it, and it is never
	// sent or marshalled; Repair names it in each Fix.
	Origin int `json:"-"`
}

// UnmarshalJSON accepts content as an array of blocks or as a plain string.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	m.Content = nil
	return decodeContent(raw.Content, &m.Content)
}

// UnmarshalJSON accepts a tool result's content as a string or as blocks.
func (b *Block) UnmarshalJSON(data []byte) error {
	type plain Block
	var raw struct {
		plain
		Content json.RawMessage `json:"content,omitempty"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = Block(raw.plain)
	b.Content = nil
	return decodeContent(raw.Content, &b.Content)
}

func decodeContent(raw json.RawMessage, dst *[]Block) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		*dst = []Block{{Type: Text, Text: s}}
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// TextOf returns the concatenated text blocks of the message (tool results' text included).
func (m Message) TextOf() string {
	var out []byte
	var walk func([]Block)
	walk = func(bs []Block) {
		for _, b := range bs {
			switch b.Type {
			case Text:
				if len(out) > 0 {
					out = append(out, '\n')
				}
				out = append(out, b.Text...)
			case ToolResult:
				walk(b.Content)
			}
		}
	}
	walk(m.Content)
	return string(out)
}

// NewText returns a message with one text block.
func NewText(role Role, text string) Message {
	return Message{Role: role, Content: []Block{{Type: Text, Text: text}}}
}

// Sources are the texts of msgs by where they came from: what the user typed (text blocks of
// user messages) and what tools returned (tool results), one block a line.
func Sources(msgs []Message) (user, tools string) {
	var u, t strings.Builder
	for _, m := range msgs {
		if m.Role != User {
			continue
		}
		for _, bl := range m.Content {
			switch bl.Type {
			case Text:
				u.WriteString(bl.Text)
				u.WriteByte('\n')
			case ToolResult:
				for _, c := range bl.Content {
					t.WriteString(c.Text)
					t.WriteByte('\n')
				}
			}
		}
	}
	return u.String(), t.String()
}
