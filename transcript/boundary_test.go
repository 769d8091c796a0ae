package transcript

import (
	"fmt"
	"strings"
	"testing"
)

// TestLastBoundary: the last of several compact boundaries is found wherever the blocks of the
// backward search fall, and a line that holds the boundary's mark without being one is passed
// over.
func TestLastBoundary(t *testing.T) {
	boundary := func(n int) string {
		return fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","uuid":"b%d","content":"Conversation compacted"}`, n) + "\n"
	}
	notOne := `{"type":"user","uuid":"u1","toolUseResult":{"compact_boundary":true},"message":{"role":"user","content":"hi"}}` + "\n"
	head := strings.Repeat(`{"type":"user","uuid":"u0","message":{"role":"user","content":"x"}}`+"\n", 3) + boundary(1)
	want := int64(len(head))
	for _, pad := range []int{0, 1, 64, 1000, 128<<10 - 300, 128<<10 - 200, 128<<10 - 150, 128<<10 - 120, 128<<10 - 100, 128<<10 + 50, 300 << 10} {
		for _, tail := range []string{"", notOne} {
			filler := ""
			if pad > 0 {
				filler = `{"type":"user","uuid":"u2","message":{"role":"user","content":"` + strings.Repeat("y", pad) + `"}}` + "\n"
			}
			for shift := range 40 { // the mark at every place around a block's edge
				if pad < 128<<10-400 && shift > 0 {
					break
				}
				data := head + boundary(2) + tail + filler + strings.Repeat(" ", shift)
				got, err := LastBoundary(t.Context(), strings.NewReader(data), int64(len(data)))
				if err != nil || got != want {
					t.Fatalf("pad %d, tail %q, shift %d: LastBoundary = %d, %v; want %d", pad, tail, shift, got, err, want)
				}
			}
		}
	}
	data := head + notOne
	if got, err := LastBoundary(t.Context(), strings.NewReader(data), int64(len(data))); err != nil || got != int64(len(head)-len(boundary(1))) {
		t.Errorf("one boundary, then a line with its mark: %d, %v; want %d", got, err, len(head)-len(boundary(1)))
	}
	if got, err := LastBoundary(t.Context(), strings.NewReader(notOne), int64(len(notOne))); err != nil || got != 0 {
		t.Errorf("no boundary: %d, %v; want 0", got, err)
	}
}
