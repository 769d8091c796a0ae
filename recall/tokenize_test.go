package recall

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"The cats are organizing the party", []string{"cat", "organ", "parti"}},
		{"Caroline's necklace", []string{"carolin", "necklac"}},
		{"Don't use tabs; I'm sure", []string{"us", "tab", "sure"}},
		{"ＦＵＬＬ－ｗｉｄｔｈ １２３", []string{"full", "width", "123"}},
		{"STRASSE Straße", []string{"strass", "strass"}},
		{"go_test x86 3.5", []string{"go", "test", "x86", "3", "5"}},
		{"a b c 7", []string{"7"}},
		{"", nil},
		{"   ...!!  ", nil},
		{"我喜欢猫", []string{"我", "我喜", "喜", "喜欢", "欢", "欢猫", "猫"}},
		{"用Go写代码", []string{"用", "go", "写", "写代", "代", "代码", "码"}},
		{"カタカナ テスト", []string{"カ", "カタ", "タ", "タカ", "カ", "カナ", "ナ", "テ", "テス", "ス", "スト", "ト"}},
		{"café résumé", []string{"café", "résumé"}},
		{"\xff\xfe broken", []string{"break"}},
		{"rock'n'roll it's", []string{"rocknrol"}},
	}
	for _, c := range cases {
		got := Terms(c.in)
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Terms(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestTokenizeUnigramFlag(t *testing.T) {
	toks := Tokenize("数据库 index", nil)
	var uni []string
	for _, tk := range toks {
		if tk.Unigram {
			uni = append(uni, tk.Term)
		}
	}
	if diff := cmp.Diff([]string{"数", "据", "库"}, uni); diff != "" {
		t.Errorf("unigrams (-want +got):\n%s", diff)
	}
	if toks[len(toks)-1].Surface != "index" {
		t.Errorf("surface of last token = %q, want index", toks[len(toks)-1].Surface)
	}
}

func TestTokenizeLongWordIsBounded(t *testing.T) {
	got := Terms(strings.Repeat("é", 1000))
	if len(got) != 1 || len(got[0]) > maxWordLen || !utf8.ValidString(got[0]) {
		t.Fatalf("got %d terms, first %d bytes", len(got), len(got[0]))
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hello, World!", "我喜欢猫", "Caroline's", "ＦＵＬＬ", "rock'n'roll", "\xff", "a'", "'s", "x's'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s, nil)
		for _, tk := range toks {
			if tk.Term == "" {
				t.Fatalf("empty term from %q", s)
			}
			if !utf8.ValidString(tk.Term) {
				t.Fatalf("invalid UTF-8 term %q from %q", tk.Term, s)
			}
			if strings.ContainsAny(tk.Term, " \t\n\x00") {
				t.Fatalf("term %q with a separator from %q", tk.Term, s)
			}
			if tk.Unigram && utf8.RuneCountInString(tk.Term) != 1 {
				t.Fatalf("unigram %q is not one rune", tk.Term)
			}
			if len(tk.Term) > maxWordLen+utf8.UTFMax {
				t.Fatalf("term of %d bytes", len(tk.Term))
			}
		}
		// Tokenizing is deterministic.
		again := Tokenize(s, nil)
		if diff := cmp.Diff(toks, again); diff != "" {
			t.Fatalf("second run differs:\n%s", diff)
		}
	})
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"organizing", "happy", "sses", "ies", "eed", "ing", "yyy", "bled"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Stem(s)
		if len(got) > len(s) && irregular()[s] == "" {
			t.Fatalf("Stem(%q) = %q grew", s, got)
		}
	})
}

// TestPlainHanIsNFKC checks the premise of Tokenize's shortcut: NFKC leaves every character
// plainHan accepts, alone and next to ASCII, as it is.
func TestPlainHanIsNFKC(t *testing.T) {
	var rs []rune
	for r := rune(0); r < 0x80; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x4E00); r <= 0x9FFF; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x3001, 0x3002)
	for i, r := range rs {
		s := "a" + string(r) + string(rs[(i*7919)%len(rs)]) + "Z"
		if !plainHan(s) {
			t.Fatalf("plainHan(%q) = false", s)
		}
		if got := norm.NFKC.String(s); got != s {
			t.Errorf("NFKC(%q) = %q", s, got)
		}
	}
	for _, s := range []string{"ＴＡＢＳ", "数据，库", "\u3000", "e\u0301", "\uF900", "デプロイ", "\xff"} {
		if plainHan(s) {
			t.Errorf("plainHan(%q) = true", s)
		}
	}
}
