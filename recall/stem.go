package recall

// Stem reduces an English word in lower case to its stem with the Porter (1980) algorithm, so
// that "organizing", "organized" and "organizes" all become "organ". Common irregular forms
// are first mapped to their base ("went" → "go", "children" → "child"). Words of one or two
// letters and words with a byte outside a–z are returned unchanged: the algorithm only knows
// English. The result is deterministic and never longer than the input.
func Stem(word string) string {
	if base, ok := irregular()[word]; ok {
		word = base
	}
	if len(word) <= 2 {
		return word
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; c < 'a' || c > 'z' {
			return word
		}
	}
	s := stemmer{b: []byte(word)}
	s.k = len(s.b) - 1
	s.step1ab()
	s.step1c()
	s.step2()
	s.step3()
	s.step4()
	s.step5()
	out := s.b[:s.k+1]
	if string(out) == word {
		return word
	}
	return string(out)
}

// stemmer holds the word being stemmed: b[0..k] is the current word, j marks the end of the
// stem while a suffix is being tested (the classic formulation).
type stemmer struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant. 'y' is a consonant at the start of the word or
// after a vowel.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// m measures the number of vowel-consonant sequences in b[0..j]: [C](VC)^m[V].
func (s *stemmer) m() int {
	n, i := 0, 0
	for {
		if i > s.j {
			return n
		}
		if !s.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > s.j {
				return n
			}
			if s.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > s.j {
				return n
			}
			if !s.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

// vowelInStem reports whether b[0..j] contains a vowel.
func (s *stemmer) vowelInStem() bool {
	for i := 0; i <= s.j; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doubleC reports whether b[j-1..j] is a double consonant.
func (s *stemmer) doubleC(j int) bool {
	return j >= 1 && s.b[j] == s.b[j-1] && s.cons(j)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant and the last is not w, x or y:
// the shape of short words like "hop" that get their e back ("hoping" → "hope").
func (s *stemmer) cvc(i int) bool {
	if i < 2 || !s.cons(i) || s.cons(i-1) || !s.cons(i-2) {
		return false
	}
	switch s.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with suf and, if so, sets j to the end of the stem.
func (s *stemmer) ends(suf string) bool {
	n := len(suf)
	if n > s.k+1 || string(s.b[s.k-n+1:s.k+1]) != suf {
		return false
	}
	s.j = s.k - n
	return true
}

// setTo replaces b[j+1..k] with r.
func (s *stemmer) setTo(r string) {
	s.b = append(s.b[:s.j+1], r...)
	s.k = s.j + len(r)
}

// r replaces the suffix with r when the stem's measure is positive.
func (s *stemmer) r(r string) {
	if s.m() > 0 {
		s.setTo(r)
	}
}

// step1ab removes plurals and -ed or -ing.
func (s *stemmer) step1ab() {
	if s.b[s.k] == 's' {
		switch {
		case s.ends("sses"):
			s.k -= 2
		case s.ends("ies"):
			s.setTo("i")
		case s.k >= 1 && s.b[s.k-1] != 's':
			s.k--
		}
	}
	if s.ends("eed") {
		if s.m() > 0 {
			s.k--
		}
		return
	}
	if (s.ends("ed") || s.ends("ing")) && s.vowelInStem() {
		s.k = s.j
		switch {
		case s.ends("at"):
			s.setTo("ate")
		case s.ends("bl"):
			s.setTo("ble")
		case s.ends("iz"):
			s.setTo("ize")
		case s.doubleC(s.k):
			switch s.b[s.k] {
			case 'l', 's', 'z':
			default:
				s.k--
			}
		default:
			s.j = s.k
			if s.m() == 1 && s.cvc(s.k) {
				s.setTo("e")
			}
		}
	}
}

// step1c turns a terminal y into i when there is another vowel in the stem.
func (s *stemmer) step1c() {
	if s.ends("y") && s.vowelInStem() {
		s.b[s.k] = 'i'
	}
}

// step2 maps double suffixes to single ones: -ization → -ize, -ational → -ate …
func (s *stemmer) step2() {
	if s.k < 1 {
		return
	}
	for _, p := range step2Rules[s.b[s.k-1]] {
		if s.ends(p[0]) {
			s.r(p[1])
			return
		}
	}
}

var step2Rules = [256][][2]string{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

// step3 handles -ic-, -full, -ness etc.
func (s *stemmer) step3() {
	for _, p := range step3Rules[s.b[s.k]] {
		if s.ends(p[0]) {
			s.r(p[1])
			return
		}
	}
}

var step3Rules = [256][][2]string{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

// step4 removes -ant, -ence etc. in context <c>vcvc<v>.
func (s *stemmer) step4() {
	if s.k < 1 {
		return
	}
	matched := false
	for _, suf := range step4Rules[s.b[s.k-1]] {
		if s.ends(suf) {
			matched = true
			break
		}
	}
	if !matched {
		return
	}
	if s.b[s.k-1] == 'o' && s.b[s.k] == 'n' && string(s.b[s.j+1:s.k+1]) == "ion" {
		if s.j < 0 || (s.b[s.j] != 's' && s.b[s.j] != 't') {
			return
		}
	}
	if s.m() > 1 {
		s.k = s.j
	}
}

var step4Rules = [256][]string{
	'a': {"al"},
	'c': {"ance", "ence"},
	'e': {"er"},
	'i': {"ic"},
	'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"},
	'o': {"ion", "ou"},
	's': {"ism"},
	't': {"ate", "iti"},
	'u': {"ous"},
	'v': {"ive"},
	'z': {"ize"},
}

// step5 removes a final -e when m > 1 (or m = 1 and not cvc) and turns -ll into -l when m > 1.
func (s *stemmer) step5() {
	s.j = s.k
	if s.b[s.k] == 'e' {
		a := s.m()
		if a > 1 || a == 1 && !s.cvc(s.k-1) {
			s.k--
		}
	}
	if s.b[s.k] == 'l' && s.doubleC(s.k) && s.m() > 1 {
		s.k--
	}
}
