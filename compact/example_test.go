package compact_test

import (
	"fmt"

	"github.com/strata-mem/strata/compact"
)

// The thresholds of a 200K-token window whose replies are capped at 32K tokens, and what a
// context of 170K tokens calls for.
func ExampleThresholdsFor() {
	th := compact.ThresholdsFor(200_000, 32_000)
	fmt.Println(th.Warn, th.Auto, th.Block)
	fmt.Println(th.Level(170_000))
	// Output:
	// 147000 167000 197000
	// auto
}

// The breaker an agent holds: three failed automatic compactions in a row stop them, and the
// third failure returns the message for the user.
func ExampleBreaker() {
	var b compact.Breaker
	for range compact.MaxFailures {
		if note := b.Record(fmt.Errorf("model overloaded")); note != "" {
			fmt.Println(b.AllowAuto(), note != "")
		}
	}
	b.Record(nil) // a manual compaction succeeded
	fmt.Println(b.AllowAuto())
	// Output:
	// false true
	// true
}
