package transcript

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

// TestProvenanceRoundTrip: a user entry's provenance is written as an optional key and read
// back; an entry without one (Claude Code's, or written before it) or with one that does not
// parse reads as none, and the line keeps its bytes.
func TestProvenanceRoundTrip(t *testing.T) {
	in := conversation.Input{Pinned: true, Parts: []conversation.Part{
		{Origin: conversation.Typed, Text: "Here is the log:\n"},
		{Origin: conversation.Pasted, Text: "a\nb\n"},
	}}
	msg, _ := EncodeMessage(conversation.NewText(conversation.User, in.Text()), nil)
	prov, _ := json.Marshal(in.Provenance())
	line, err := json.Marshal(&Entry{Type: TypeUser, UUID: "u1", Message: msg, Provenance: prov})
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseEntry(line)
	if err != nil {
		t.Fatal(err)
	}
	p := e.InputProvenance()
	parts, ok := p.Split(in.Text())
	if !ok || !p.Pinned || !cmp.Equal(in.Parts, parts) {
		t.Errorf("read back %+v (split %v): %+v", p, ok, parts)
	}
	for _, l := range []string{
		`{"type":"user","uuid":"u2","message":{"role":"user","content":"hi"}}`,
		`{"type":"user","uuid":"u3","provenance":"typed","message":{"role":"user","content":"hi"}}`,
	} {
		e, err := ParseEntry([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if p := e.InputProvenance(); !p.IsZero() {
			t.Errorf("%s: provenance %+v", l, p)
		}
		if out, _ := json.Marshal(e); string(out) != l {
			t.Errorf("rewritten as %s", out)
		}
	}
}
