package termtext

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":           "plain words",
		" two\nlines\r\n":       "two lines",
		"tab\tand  spaces":      "tab and spaces",
		"":                      "",
		"\n\n":                  "",
		"unicode\u00a0space ok": "unicode space ok",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
