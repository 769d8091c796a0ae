package conversation

import "strings"

// Origin says where a part of a user message came from, recorded when the message arrived.
type Origin string

// Origins.
const (
	Typed    Origin = "typed"   // typed by the user
	Pasted   Origin = "pasted"  // pasted into the input (kept apart while typing)
	Attached Origin = "file"    // a file attached with @path
	Command  Origin = "command" // a command's output ("!" in the chat, stdin piped to run)
)

// Part is a piece of a user message with its origin.
type Part struct {
	Origin Origin
	Text   string
}

// Input is a user message as it arrived: its parts in order, and whether the user pinned it
// (/pin), so that compaction carries it whatever its age.
type Input struct {
	Parts  []Part
	Pinned bool
}

// TypedInput is text the user typed, in one part.
func TypedInput(text string) Input { return Input{Parts: []Part{{Typed, text}}} }

// Text is the message's text: the parts joined as they are.
func (in Input) Text() string {
	var b strings.Builder
	for _, p := range in.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Provenance is what a user entry records of its input: each part's origin and length in
// bytes, in order, and the pin. A transcript written before it, or by Claude Code, has none.
type Provenance struct {
	Parts  []Span `json:"parts,omitempty"`
	Pinned bool   `json:"pinned,omitempty"`
}

// Span is the origin of Bytes bytes of a message's text.
type Span struct {
	Origin Origin `json:"origin"`
	Bytes  int    `json:"bytes"`
}

// Provenance returns what an entry records of in.
func (in Input) Provenance() Provenance {
	p := Provenance{Pinned: in.Pinned}
	for _, part := range in.Parts {
		if part.Text == "" {
			continue
		}
		if n := len(p.Parts); n > 0 && p.Parts[n-1].Origin == part.Origin {
			p.Parts[n-1].Bytes += len(part.Text)
			continue
		}
		p.Parts = append(p.Parts, Span{part.Origin, len(part.Text)})
	}
	return p
}

// Split cuts text, the message p was recorded for, into its parts. It returns false when p
// records no parts or their lengths do not add up to text's.
func (p Provenance) Split(text string) ([]Part, bool) {
	if len(p.Parts) == 0 {
		return nil, false
	}
	var out []Part
	at := 0
	for _, s := range p.Parts {
		if s.Bytes < 0 || at+s.Bytes > len(text) {
			return nil, false
		}
		out = append(out, Part{s.Origin, text[at : at+s.Bytes]})
		at += s.Bytes
	}
	return out, at == len(text)
}

// IsZero reports that p records nothing.
func (p Provenance) IsZero() bool { return len(p.Parts) == 0 && !p.Pinned }
