package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want, line string }{
		{"plain text", "plain text", "plain text"},
		{"部署流程 메모리", "部署流程 메모리", "部署流程 메모리"},
		{"a\nb\tc", "a\nb\tc", "a b c"},
		{"\x1b[31mred\x1b[0m", "red", "red"},
		{"\x1b[2J\x1b[Hcleared", "cleared", "cleared"},
		{"\x1b]0;evil title\x07after", "after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link", "link"},
		{"bell\x07", `bell\x07`, `bell\x07`},
		{"over\rwrite", `over\rwrite`, "over write"},
		{"crlf\r\nline", "crlf\nline", "crlf  line"},
		{"\x1bcreset", "reset", "reset"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"rtl\u202egnp.exe", `rtl\u202egnp.exe`, `rtl\u202egnp.exe`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"trailing\x1b", "trailing", "trailing"},
		{"\x1b[", "", ""},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\x1b]0;t\x07", "中文\r\n", "\xff\x00", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Clean(s), Line(s)} {
			if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
				t.Fatalf("escape or bell left in %q -> %q", s, out)
			}
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
			}
			if Clean(out) != out {
				t.Fatalf("Clean is not idempotent on %q", out)
			}
		}
		if strings.ContainsAny(Line(s), "\n\r\t") {
			t.Fatalf("Line kept a line break: %q", Line(s))
		}
	})
}
