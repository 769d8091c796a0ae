package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEstimate(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"hello world, this is forty characters!!!", 10},
		{"你好世界", 4},
		{"记忆引擎 memory", 4 + 2}, // 4 CJK + " memory" (7 bytes) -> 2
		{"こんにちは", 5},
		{"안녕하세요", 5},
		{"é", 1},
	}
	for _, tt := range tests {
		if got := Estimate(tt.in); got != tt.want {
			t.Errorf("Estimate(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestChineseCostsMoreThanBytesOver4(t *testing.T) {
	// 100 Han characters are 300 bytes in UTF-8; byte/4 would say 75, the estimate must say 100.
	s := ""
	for range 100 {
		s += "字"
	}
	if got := Estimate(s); got != 100 {
		t.Fatalf("Estimate(100 Han) = %d, want 100", got)
	}
}

func FuzzEstimate(f *testing.F) {
	f.Add("hello 世界")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		n := Estimate(s)
		if n < 0 || (s != "" && n == 0) || n > len(s) {
			t.Fatalf("Estimate(%q) = %d out of range", s, n)
		}
	})
}

func TestChars(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"한국어", 3}, {"部署", 2}, {"😀", 2}, {"a😀b", 4}, {"\xff", 1},
	} {
		if got := Chars(tt.s); got != tt.want {
			t.Errorf("Chars(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	// A Korean index the size of the one in the issue: over 25,000 bytes, under 25,000 characters.
	ko := strings.Repeat("- [배포 절차](deploy.md) — 메인 브랜치에 병합하기 전에 승인을 받는다\n", 400)
	if len(ko) <= 25000 || Chars(ko) >= 25000 {
		t.Errorf("Korean index: %d bytes, %d characters", len(ko), Chars(ko))
	}
}

func TestCharsPrefix(t *testing.T) {
	for _, tt := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 2, "ab"}, {"한국어", 2, "한국"}, {"a😀b", 2, "a"}, {"a😀b", 3, "a😀"}, {"abc", 9, "abc"}, {"abc", 0, ""},
	} {
		if got := tt.s[:CharsPrefix(tt.s, tt.max)]; got != tt.want {
			t.Errorf("CharsPrefix(%q, %d) → %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

// TestEstimateAsReference: Estimate, with its eight-bytes-at-a-time path for ASCII, counts as
// the rune-by-rune rule does, wherever the non-ASCII characters fall (each offset mod 8).
func TestEstimateAsReference(t *testing.T) {
	ref := func(s string) int {
		if s == "" {
			return 0
		}
		cjk, other := 0, 0
		for _, r := range s {
			switch {
			case IsCJK(r):
				cjk++
			case r == utf8.RuneError:
				other++ // an invalid byte, or U+FFFD (3 bytes): fixed below
			default:
				other += utf8.RuneLen(r)
			}
		}
		other += strings.Count(s, "\uFFFD") * 2
		return max(1, cjk+(other+3)/4)
	}
	pieces := []string{"a", "abcdefgh", "字", "é", "안녕", "\xff", "\uFFFD", "🙂", " ", "。"}
	for _, p := range pieces {
		for pad := range 17 {
			for _, s := range []string{strings.Repeat("x", pad) + p, p + strings.Repeat("y", pad), strings.Repeat("z", pad) + p + strings.Repeat("w", 9)} {
				if got, want := Estimate(s), ref(s); got != want {
					t.Errorf("Estimate(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
}

func BenchmarkEstimateASCII(b *testing.B) {
	s := strings.Repeat("Fragment text that the instruction file imports; it stands for a shared style guide.\n", 30)[:2048]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Estimate(s)
	}
}
