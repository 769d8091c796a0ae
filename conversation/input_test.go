package conversation

import "testing"

// TestProvenanceSplit: parts of one origin merge; a text whose length no longer matches the
// record is not split (it was edited, or the record is another message's).
func TestProvenanceSplit(t *testing.T) {
	in := Input{Parts: []Part{{Typed, "fix "}, {Typed, "this:\n"}, {Pasted, "x\ny"}, {Typed, ""}}}
	p := in.Provenance()
	if len(p.Parts) != 2 || p.Parts[0] != (Span{Typed, 10}) || p.Parts[1] != (Span{Pasted, 3}) {
		t.Fatalf("provenance %+v", p)
	}
	if parts, ok := p.Split(in.Text()); !ok || len(parts) != 2 || parts[1].Text != "x\ny" {
		t.Errorf("split %+v, %v", parts, ok)
	}
	for _, text := range []string{in.Text() + "!", "fix this:\n", ""} {
		if _, ok := p.Split(text); ok {
			t.Errorf("split %q", text)
		}
	}
	if _, ok := (Provenance{}).Split("hi"); ok {
		t.Error("split with nothing recorded")
	}
}
