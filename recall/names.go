package recall

import (
	"path"
	"strings"

	"github.com/strata-mem/strata/memdir"
)

// fieldTexts returns the texts of a memory's scored fields, for both index builders. The name
// field holds the name and, when it says something the name does not, the file name: Claude
// Code names files for what they hold ("feedback_branch-policy-strict.md") while the name may
// be a title or in another script, and either should find the memory. Tokenize splits at "_",
// "-" and "."; camelCase is split here ("branchPolicy" → "branch Policy").
func fieldTexts(m memdir.Memory) [numFields]string {
	name := splitCamel(m.Name)
	if stem := strings.TrimSuffix(path.Base(m.File), ".md"); stem != "" && stem != "." && !sameWords(m.Name, stem) {
		name += "\n" + splitCamel(stem)
	}
	return [numFields]string{name, m.Description, m.Body}
}

// sameWords reports whether a and b differ only in ASCII case and in the ASCII characters
// that are not letters or digits — as a name and the file name strata derives from it do — so
// the file name would add nothing to the name's terms.
func sameWords(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && skippable(a[i]) {
			i++
		}
		for j < len(b) && skippable(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if lowerByte(a[i]) != lowerByte(b[j]) {
			return false
		}
		i++
		j++
	}
}

func skippable(c byte) bool { return c < 0x80 && !isWordByte(c) }

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// splitCamel puts a space where an ASCII camelCase word changes case — "branchPolicy" →
// "branch Policy", "HTTPServer" → "HTTP Server" — and returns s itself when there is none.
func splitCamel(s string) string {
	upper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	cut := func(i int) bool {
		return lower(s[i-1]) && upper(s[i]) || i+1 < len(s) && upper(s[i-1]) && upper(s[i]) && lower(s[i+1])
	}
	first := -1
	for i := 1; i < len(s); i++ {
		if cut(i) {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	b.WriteString(s[:first])
	for i := first; i < len(s); i++ {
		if cut(i) {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
