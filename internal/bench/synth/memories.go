package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/internal/fsutil"
)

// vocab builds a deterministic vocabulary: English-looking words made of syllables, and
// common-range Han characters.
type vocab struct {
	words    []string
	hanWords []string
	rng      *rand.Rand
	zipfW    *rand.Zipf
	zipfH    *rand.Zipf
}

func newVocab(seed uint64) *vocab {
	// The vocabulary is the same for every seed, so queries drawn with one seed find the
	// words of a store written with another; only the draws depend on the seed.
	rng := rand.New(rand.NewPCG(42, 42))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "ve", "do", "pa", "ri", "zu", "ber", "con", "dex", "fil", "gor", "han", "lit", "mon", "port", "quen", "sto", "tra", "vin", "wel"}
	seen := map[string]bool{}
	v := &vocab{rng: rng}
	for len(v.words) < 6000 {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		suffix := []string{"", "", "", "s", "ing", "ed", "er", "ation"}[rng.IntN(8)]
		w := b.String() + suffix
		if !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	var chars []rune
	for r := rune(0x4E00); len(chars) < 3500; r += 1 + rune(rng.IntN(5)) {
		chars = append(chars, r)
	}
	// Chinese text is made of words, mostly of two characters: draw 6,000 of them.
	seenHan := map[string]bool{}
	for len(v.hanWords) < 6000 {
		n := []int{1, 2, 2, 2, 2, 3, 3, 4}[rng.IntN(8)]
		var b strings.Builder
		for range n {
			b.WriteRune(chars[rng.IntN(len(chars))])
		}
		if w := b.String(); !seenHan[w] {
			seenHan[w] = true
			v.hanWords = append(v.hanWords, w)
		}
	}
	rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v.rng = rng
	v.zipfW = rand.NewZipf(rng, 1.1, 2, uint64(len(v.words)-1))
	v.zipfH = rand.NewZipf(rng, 1.1, 2, uint64(len(v.hanWords)-1))
	return v
}

func (v *vocab) english(words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.words[v.zipfW.Uint64()])
		if i%12 == 11 {
			b.WriteString(".\n")
		}
	}
	return b.String()
}

func (v *vocab) chinese(chars int) string {
	var b strings.Builder
	for n, i := 0, 0; n < chars; i++ {
		w := v.hanWords[v.zipfH.Uint64()]
		b.WriteString(w)
		n += utf8.RuneCountInString(w)
		if i%12 == 11 {
			b.WriteString("。\n")
		}
	}
	return b.String()
}

// Memories writes n memory files of about 1 KB each into dir, named MemoryFile(0) to
// MemoryFile(n-1): even-numbered ones in English, odd ones in Chinese, each with frontmatter
// (name, description, type project). The content is deterministic for a seed. It is the data
// of the recall and MCP speed benchmarks.
func Memories(dir string, n int, seed uint64) error {
	v := newVocab(seed)
	if err := os.MkdirAll(dir, fsutil.DirMode); err != nil {
		return fmt.Errorf("synth: memories: %w", err)
	}
	for i := range n {
		var name, desc, body string
		if i%2 == 0 {
			name = fmt.Sprintf("note-%05d-%s", i, v.words[v.rng.IntN(len(v.words))])
			desc = v.english(12)
			body = v.english(140)
		} else {
			name = fmt.Sprintf("笔记-%05d", i)
			desc = v.chinese(25)
			body = v.chinese(300)
		}
		text := fmt.Sprintf("---\nname: %s\ndescription: %q\ntype: project\n---\n\n%s\n", name, strings.TrimSpace(strings.ReplaceAll(desc, "\n", " ")), body)
		p := filepath.Join(dir, MemoryFile(i))
		if err := os.WriteFile(p, []byte(text), fsutil.FileMode); err != nil {
			return fmt.Errorf("synth: memories: %w", err)
		}
	}
	return nil
}

// Queries returns n queries drawn from the vocabulary of Memories (the same for every seed):
// half English (two to five words), half Chinese (four to ten characters). The draws are
// deterministic for a seed.
func Queries(n int, seed uint64) []string {
	v := newVocab(seed)
	out := make([]string, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = strings.TrimSuffix(v.english(2+v.rng.IntN(4)), ".\n")
		} else {
			out[i] = strings.TrimSuffix(v.chinese(4+v.rng.IntN(7)), "。\n")
		}
	}
	return out
}

// MemoryFile is the file name Memories gives the i-th memory.
func MemoryFile(i int) string { return fmt.Sprintf("m%05d.md", i) }
