package tokens

import "testing"

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
