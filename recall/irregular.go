package recall

import "sync"

// irregular maps English irregular inflections to their base form, which Stem then reduces
// like any other word: "went" and "gone" match "go", "children" matches "child". Suffix
// stripping cannot see these; the list is general English morphology (the common irregular
// verbs and plurals), not tied to any data set.
var irregular = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for base, forms := range map[string][]string{
		"arise": {"arose", "arisen"}, "awake": {"awoke", "awoken"}, "be": {"was", "were", "been"},
		"bear": {"bore", "borne"}, "beat": {"beaten"}, "become": {"became"}, "begin": {"began", "begun"},
		"bend": {"bent"}, "bite": {"bitten"}, "bleed": {"bled"},
		"blow": {"blew", "blown"}, "break": {"broke", "broken"}, "breed": {"bred"},
		"bring": {"brought"}, "build": {"built"}, "burn": {"burnt"}, "buy": {"bought"},
		"catch": {"caught"}, "choose": {"chose", "chosen"}, "cling": {"clung"}, "come": {"came"},
		"creep": {"crept"}, "deal": {"dealt"}, "dig": {"dug"}, "do": {"did", "done"},
		"draw": {"drew", "drawn"}, "dream": {"dreamt"}, "drink": {"drank", "drunk"},
		"drive": {"drove", "driven"}, "eat": {"ate", "eaten"}, "fall": {"fell", "fallen"},
		"feed": {"fed"}, "feel": {"felt"}, "fight": {"fought"}, "find": {"found"}, "flee": {"fled"},
		"fly": {"flew", "flown"}, "forbid": {"forbade", "forbidden"}, "forget": {"forgot", "forgotten"},
		"forgive": {"forgave", "forgiven"}, "freeze": {"froze", "frozen"}, "get": {"got", "gotten"},
		"give": {"gave", "given"}, "go": {"went", "gone", "goes"},
		"grow": {"grew", "grown"}, "hang": {"hung"}, "have": {"had", "has"}, "hear": {"heard"},
		"hide": {"hid", "hidden"}, "hold": {"held"}, "keep": {"kept"}, "kneel": {"knelt"},
		"know": {"knew", "known"}, "lay": {"laid"}, "lead": {"led"}, "lean": {"leant"},
		"leap": {"leapt"}, "learn": {"learnt"}, "leave": {}, "lend": {"lent"},
		"lie": {"lain"}, "light": {"lit"}, "lose": {"lost"}, "make": {"made"},
		"mean": {"meant"}, "meet": {"met"}, "pay": {"paid"}, "prove": {"proven"},
		"ride": {"rode", "ridden"}, "ring": {"rang", "rung"}, "rise": {"risen"},
		"run": {"ran"}, "say": {"said"}, "see": {"saw", "seen"}, "seek": {"sought"},
		"sell": {"sold"}, "send": {"sent"}, "sew": {"sewn"}, "shake": {"shook", "shaken"},
		"shine": {"shone"}, "shoot": {"shot"}, "show": {"shown"}, "shrink": {"shrank", "shrunk"},
		"sing": {"sang", "sung"}, "sink": {"sank", "sunk"}, "sit": {"sat"}, "sleep": {"slept"},
		"slide": {"slid"}, "speak": {"spoke", "spoken"}, "speed": {"sped"}, "spend": {"spent"},
		"spin": {"spun"}, "spring": {"sprang", "sprung"}, "stand": {"stood"}, "steal": {"stole", "stolen"},
		"stick": {"stuck"}, "sting": {"stung"}, "stink": {"stank", "stunk"}, "strike": {"struck"},
		"strive": {"strove", "striven"}, "swear": {"swore", "sworn"}, "sweep": {"swept"},
		"swim": {"swam", "swum"}, "swing": {"swung"}, "take": {"took", "taken"},
		"teach": {"taught"}, "tear": {"tore", "torn"}, "tell": {"told"}, "think": {"thought"},
		"throw": {"threw", "thrown"}, "understand": {"understood"}, "wake": {"woke", "woken"},
		"wear": {"wore", "worn"}, "weave": {"wove", "woven"}, "weep": {"wept"}, "win": {"won"},
		"withdraw": {"withdrew", "withdrawn"}, "write": {"wrote", "written"},
		// Irregular plurals.
		"child": {"children"}, "man": {"men"}, "woman": {"women"}, "foot": {"feet"},
		"tooth": {"teeth"}, "mouse": {"mice"}, "goose": {"geese"}, "person": {"people"},
		"wife": {"wives"}, "knife": {"knives"}, "leaf": {},
		"wolf": {"wolves"}, "half": {"halves"}, "shelf": {"shelves"}, "thief": {"thieves"},
	} {
		for _, f := range forms {
			m[f] = base
		}
	}
	return m
})
