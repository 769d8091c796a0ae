package termtext

import "testing"

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"数据库", 6},
		{"배포 규칙", 9},
		{"ｆｕｌｌ", 8},
		{"e\u0301", 1}, // combining acute
		{"a\u200bb", 2},
		{"日本語 and English", 18},
	} {
		if got := Width(c.s); got != c.want {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestPadAndTruncate(t *testing.T) {
	names := []string{"数据库迁移", "배포 규칙", "plain"}
	for _, n := range names {
		if got := Width(Pad(n, 12)); got != 12 {
			t.Errorf("Width(Pad(%q, 12)) = %d", n, got)
		}
	}
	if got := Pad("toolong", 3); got != "toolong" {
		t.Errorf("Pad cut %q", got)
	}
	for _, c := range []struct {
		s    string
		cols int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"数据库迁移", 6, "数据…"},
		{"数据库迁移", 5, "数据…"},
		{"배포 규칙 문서", 8, "배포 규…"},
		{"abc", 0, ""},
	} {
		got := Truncate(c.s, c.cols)
		if got != c.want || Width(got) > c.cols {
			t.Errorf("Truncate(%q, %d) = %q (width %d), want %q", c.s, c.cols, got, Width(got), c.want)
		}
	}
}
