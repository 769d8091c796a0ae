package tool

import (
	"bufio"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNumberLines: Read's rendering shows each requested line once, numbered, valid UTF-8.
func FuzzNumberLines(f *testing.F) {
	f.Add("a\nb\nc\n", 0, 0)
	f.Add("中文\r\n第二行", 2, 1)
	f.Add(strings.Repeat("x", 3000)+"\n", 1, 1)
	f.Fuzz(func(t *testing.T, text string, offset, limit int) {
		if offset < 0 || limit < 0 || offset > 1<<20 || limit > 1<<20 {
			return
		}
		v, err := numberLines(t.Context(), bufio.NewReaderSize(strings.NewReader(text), 16), offset, limit, true)
		if err != nil {
			t.Fatal(err)
		}
		out, shown := v.text, v.count
		// Streaming without counting shows the same lines.
		w, err := numberLines(t.Context(), bufio.NewReaderSize(strings.NewReader(text), 16), offset, limit, false)
		if err != nil || !strings.HasPrefix(out, w.text) || w.count != shown {
			t.Fatalf("streamed view %q (%d lines, %v) differs from the counted one %q (%d lines)", w.text, w.count, err, out, shown)
		}
		if limit > 0 && shown > limit {
			t.Fatalf("%d lines shown, limit %d", shown, limit)
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input")
		}
		if got := strings.Count(out, "\t"); shown > 0 && got < shown {
			t.Fatalf("%d tabs for %d lines", got, shown)
		}
	})
}
