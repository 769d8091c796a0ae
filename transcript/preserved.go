package transcript

import (
	"bytes"
	"encoding/json"

	"github.com/strata-mem/strata/conversation"
)

// segment is what a Claude Code 2.1.3xx compaction kept verbatim: the messages from head to
// tail (from before the boundary) continue the conversation after anchor, the summary.
type segment struct{ head, anchor, tail string }

// field decodes the top-level key of the entry's line (or of Extra, for entries built in
// memory) into v; false when it is absent or does not decode.
func (e *Entry) field(key string, v any) bool {
	var raw json.RawMessage
	if e.Raw != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(e.Raw, &m) != nil {
			return false
		}
		raw = m[key]
	} else {
		raw = e.Extra[key]
	}
	return len(raw) > 0 && json.Unmarshal(raw, v) == nil
}

// preserved returns a compact boundary's preserved segment (compactMetadata.preservedSegment).
func (e *Entry) preserved() (segment, bool) {
	if !e.IsCompactBoundary() {
		return segment{}, false
	}
	var meta struct {
		Seg struct {
			Head   string `json:"headUuid"`
			Anchor string `json:"anchorUuid"`
			Tail   string `json:"tailUuid"`
		} `json:"preservedSegment"`
	}
	if !e.field("compactMetadata", &meta) || meta.Seg.Head == "" || meta.Seg.Anchor == "" || meta.Seg.Tail == "" {
		return segment{}, false
	}
	return segment{meta.Seg.Head, meta.Seg.Anchor, meta.Seg.Tail}, true
}

// relink applies each loaded boundary's preserved segment as Claude Code's loader does: head
// hangs under the anchor, the anchor's other children under the tail, and the boundary's
// logical parent becomes head's old parent, so the walk meets every entry once (the history
// before head, the boundary, the summary, the kept messages, what followed). A segment whose
// ends are not loaded, or whose tail does not lead back to its head, is left alone.
func (g *graph) relink() {
	for _, b := range g.entries {
		seg, ok := b.preserved()
		if !ok || g.byUUID[seg.head] == nil || g.byUUID[seg.anchor] == nil || g.byUUID[seg.tail] == nil || !g.reaches(seg.tail, seg.head) {
			continue
		}
		before := g.parent(g.byUUID[seg.head])
		for _, e := range g.entries {
			if messageTypes[e.Type] && e.UUID != seg.head && g.byUUID[e.UUID] == e && g.parent(e) == seg.anchor {
				g.over[e.UUID] = seg.tail
			}
		}
		g.over[seg.head] = seg.anchor
		g.logical[b.UUID] = before
	}
}

// reaches reports whether following parents from id arrives at want.
func (g *graph) reaches(id, want string) bool {
	for range len(g.byUUID) + 1 {
		if id == want {
			return true
		}
		e := g.byUUID[id]
		if e == nil {
			return false
		}
		id = g.parent(e)
	}
	return false
}

// logicalParent is where the walk continues from a boundary (parentUuid null).
func (g *graph) logicalParent(e *Entry) string {
	if p, ok := g.logical[e.UUID]; ok {
		return p
	}
	return g.resolve(e.LogicalParentUUID)
}

// spokenAttachments are the attachment types whose text is part of the conversation, not
// Claude Code's account of its own harness (tool and skill listings, environment, its own
// loading of instruction files, which strata gives in its own way): files read or re-attached
// after a compaction, edits made outside, messages queued during a turn, hook context.
var spokenAttachments = map[string]bool{
	"file": true, "compact_file_reference": true, "edited_text_file": true, "pdf_reference": true,
	"plan_file_reference": true, "selected_lines_in_ide": true, "queued_command": true,
	"hook_additional_context": true,
}

// attachmentMessage is the user message Claude Code 2.1.3xx sends for an attachment entry: the
// text it wrote under "rendered". Older versions wrote no rendering; strata does not invent one.
func (e *Entry) attachmentMessage() (conversation.Message, bool) {
	if e.Type != TypeAttachment {
		return conversation.Message{}, false
	}
	var a struct {
		Attachment struct {
			Type string `json:"type"`
		} `json:"attachment"`
		Rendered []struct {
			Content json.RawMessage `json:"content"`
		} `json:"rendered"`
		Role string `json:"renderedRole"`
	}
	if e.Raw != nil {
		if !bytes.Contains(e.Raw, []byte(`"rendered"`)) || json.Unmarshal(e.Raw, &a) != nil {
			return conversation.Message{}, false
		}
	} else {
		e.field("attachment", &a.Attachment)
		e.field("rendered", &a.Rendered)
		e.field("renderedRole", &a.Role)
	}
	if !spokenAttachments[a.Attachment.Type] || (a.Role != "" && a.Role != "user") {
		return conversation.Message{}, false
	}
	m := conversation.Message{Role: conversation.User}
	for _, r := range a.Rendered {
		var s string
		var bs []conversation.Block
		switch {
		case json.Unmarshal(r.Content, &s) == nil && s != "":
			m.Content = append(m.Content, conversation.Block{Type: conversation.Text, Text: s})
		case json.Unmarshal(r.Content, &bs) == nil:
			m.Content = append(m.Content, bs...)
		}
	}
	return m, len(m.Content) > 0
}
