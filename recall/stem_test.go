package recall

import "testing"

func TestStem(t *testing.T) {
	// Expected outputs of the Porter algorithm (from its published vocabulary) plus the
	// irregular forms strata adds.
	cases := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bleed", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil",
		"organizing": "organ", "organized": "organ", "organizes": "organ",
		"a": "a", "is": "is", "go": "go", "naïve": "naïve", "x86": "x86",
		"went": "go", "children": "child", "bought": "bui", "ran": "run", "written": "write",
	}
	for in, want := range cases {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemIdempotentOnCommonForms(t *testing.T) {
	// Forms of one word must meet at one stem; that is what the ranker relies on.
	groups := [][]string{
		{"connect", "connected", "connecting", "connection", "connections"},
		{"paint", "painted", "painting", "paints"},
		{"hike", "hiked", "hiking", "hikes"},
		{"adopt", "adopted", "adopting", "adoption"},
	}
	for _, g := range groups {
		want := Stem(g[0])
		for _, w := range g[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q like %q", w, got, want, g[0])
			}
		}
	}
}
