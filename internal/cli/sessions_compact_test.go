package cli

import (
	"strings"
	"testing"

	"github.com/strata-mem/strata/compact"
)

// A refusal says whether the compacted conversation would be no smaller or only a little.
func TestNotCompacted(t *testing.T) {
	if got := notCompacted(&compact.NotSmallerError{Pre: 1000, Post: 1200}); !strings.Contains(got, "would be at least 1200") {
		t.Errorf("not smaller: %q", got)
	}
	got := notCompacted(&compact.NotSmallerError{Pre: 1000, Post: 980})
	if !strings.Contains(got, "would be about 980, less than 5% smaller") {
		t.Errorf("tiny gain: %q", got)
	}
}
