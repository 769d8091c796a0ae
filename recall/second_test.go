package recall

import (
	"fmt"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

// TestSecondRound: when one memory matches the query far better than the rest, the rarest
// terms of that memory that the query lacks order the tail, so the memory it leads to (the
// second piece of the answer) comes second; with SecondRound off a memory that only shares
// the name with the query is second instead. Where two memories match the query alike, the
// second round does not run.
func TestSecondRound(t *testing.T) {
	mems := []memdir.Memory{
		{File: "store.md", Name: "store", Description: "Gina started her own clothing store after she lost her job at Door Dash"},
		{File: "job.md", Name: "job", Description: "Gina delivered food for Door Dash for two years"},
	}
	for i, what := range []string{"likes dancing with Jon", "visited Rome once", "has a cat", "reads novels at night",
		"plays the violin", "bakes bread on Sundays", "started running on weekends", "paints landscapes", "writes poems", "swims in the lake"} {
		mems = append(mems, memdir.Memory{File: fmt.Sprintf("other%02d.md", i), Name: fmt.Sprintf("other%02d", i), Description: "Gina " + what})
	}
	rank := func(p Params, q string) []string {
		ix := NewIndex(p)
		for _, m := range mems {
			ix.Put(m)
		}
		var out []string
		for _, h := range ix.Search(q, 3) {
			out = append(out, h.Memory.File)
		}
		return out
	}
	const q = "Why did Gina start her clothing store?"
	off := DefaultParams()
	off.SecondRound = 0
	if got := rank(off, q); got[0] != "store.md" || got[1] == "job.md" {
		t.Fatalf("without the second round %v, want store.md first and job.md not second (the test needs it)", got)
	}
	if got := rank(DefaultParams(), q); got[0] != "store.md" || got[1] != "job.md" {
		t.Errorf("%q: %v, want store.md then job.md", q, got)
	}
	// Two memories about Rome match "Gina Rome" alike: no second round, so the same order as
	// without it.
	mems = append(mems, memdir.Memory{File: "rome2.md", Name: "rome2", Description: "Gina loved Rome and its Door Dash couriers"})
	if a, b := rank(DefaultParams(), "Gina Rome"), rank(off, "Gina Rome"); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("Gina Rome: %v with the second round, %v without; want the same", a, b)
	}
}
