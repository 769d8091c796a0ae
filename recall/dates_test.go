package recall

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

func day(y int, m time.Month, d int) int32 { return daySpan(y, m, d).from }

func TestFindDates(t *testing.T) {
	for text, want := range map[string][]span{
		"Session 1, 1:56 pm on 8 May, 2023. About: Caroline.": {daySpan(2023, 5, 8)},
		"on June 3rd, 2021 and in March 2020":                 {daySpan(2021, 6, 3), monthSpan(2020, 3)},
		"released 2024-02-29":                                 {daySpan(2024, 2, 29)},
		"back in 2019 we may have":                            {yearSpan(2019)},
		"you may march in August":                             nil, // no year: no span
		"the Mayor of 1999th street":                          nil,
	} {
		var got []span
		for _, d := range findDates(text) {
			if s, ok := d.span(); ok {
				got = append(got, s)
			}
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(span{})); diff != "" {
			t.Errorf("findDates(%q) (-want +got):\n%s", text, diff)
		}
	}
}

func TestQueryPeriod(t *testing.T) {
	for q, want := range map[string]period{
		"Which outdoor spot did Joanna visit in May?": {month: time.May},
		"What movie did Joanna watch on 1 May, 2022?": {s: daySpan(2022, 5, 1)},
		"What did we ship in 2023?":                   {s: yearSpan(2023)},
		"When did Melanie go camping in July?":        {month: time.July},
		"What did Gina do in September 2023?":         {s: monthSpan(2023, 9)},
	} {
		got, ok := queryPeriod(q)
		if !ok || got != want {
			t.Errorf("queryPeriod(%q) = %v, %v; want %v", q, got, ok, want)
		}
	}
	for _, q := range []string{"May I deploy on Fridays?", "what may break the build", "how did the march go"} {
		if p, ok := queryPeriod(q); ok {
			t.Errorf("queryPeriod(%q) = %v, want none", q, p)
		}
	}
}

func TestRelativeDates(t *testing.T) {
	own := day(2023, 5, 8) // a Monday
	for text, want := range map[string]span{
		"went there yesterday":         {own - 1, own - 1},
		"ran a race last Saturday":     {own - 8, own},
		"camping two weekends ago":     {own - 18, own - 10},
		"moved here 4 years ago":       yearSpan(2019),
		"starts next month":            monthSpan(2023, 6),
		"a trip last year":             yearSpan(2022),
		"a workshop a few days before": {own - 4, own - 2},
	} {
		got := relativeSpans(text, own)
		if len(got) != 1 || got[0] != want {
			t.Errorf("relativeSpans(%q) = %v, want [%v]", text, got, want)
		}
	}
}

// TestTimeOfQuery: a query naming a time prefers the memory that speaks of it, by its own
// date (frontmatter modified, else the date written in it) or a relative date counted from
// it; with Params.Time off the other memory, which matches the words better, ranks first.
func TestTimeOfQuery(t *testing.T) {
	mems := []memdir.Memory{
		{File: "a.md", Name: "a", Description: "Went camping by the lake with the kids, camping is fun", Body: "Written on 20 June, 2023."},
		{File: "b.md", Name: "b", Description: "Went camping in the mountains", Body: "Written on 3 August, 2023: we went two weeks ago."},
		{File: "c.md", Name: "c", Description: "Went camping in the forest", Modified: time.Date(2022, 7, 30, 0, 0, 0, 0, time.UTC), Body: "Back home since yesterday."},
	}
	rank := func(p Params, q string) []string {
		ix := NewIndex(p)
		for i, topic := range []string{"deploy on Fridays", "tabs not spaces", "the CI cache", "release notes", "code review"} {
			ix.Put(memdir.Memory{File: fmt.Sprintf("other%d.md", i), Name: topic, Description: topic, Body: "Written on 1 July, 2023."})
		}
		for _, m := range mems {
			ix.Put(m)
		}
		var out []string
		for _, h := range ix.Search(q, 3) {
			out = append(out, h.Memory.File)
		}
		return out
	}
	off := DefaultParams()
	off.Time = 0
	if got := rank(off, "camping in July"); got[0] != "a.md" {
		t.Fatalf("without the time bonus %v, want a.md first (the test needs it)", got)
	}
	for q, want := range map[string]string{
		"camping in June":         "a.md", // its own date
		"camping in July 2023":    "b.md", // two weeks before 3 August
		"camping in July 2022":    "c.md", // its frontmatter date
		"camping on 29 July 2022": "c.md", // the day before it
		"camping in 2022":         "c.md",
	} {
		if got := rank(DefaultParams(), q); got[0] != want {
			t.Errorf("%q: %v, want %s first", q, got, want)
		}
	}
}

// FuzzMemoryDates: any text gives spans whose start is not after their end, and a query period
// that matches its own span.
func FuzzMemoryDates(f *testing.F) {
	for _, s := range []string{
		"Session 1, 1:56 pm on 8 May, 2023. About: Caroline.",
		"went there 99999999999999 years ago on 31 February 2023",
		"2023-13-45 and 0000-00-00 in May, last Friday, next year, a couple of weeks later",
		"June 31st, 9999; 1 Jan 1900; two weekends ago",
	} {
		f.Add(s, int64(1683504000))
	}
	f.Fuzz(func(t *testing.T, text string, modified int64) {
		m := time.Unix(modified%(1<<36), 0).UTC()
		for _, s := range memoryDates(m, text) {
			if s.from > s.to {
				t.Errorf("span %v: start after end", s)
			}
		}
		if p, ok := queryPeriod(text); ok && p.month == 0 && !p.matches(p.s) {
			t.Errorf("period %v does not match its own span", p)
		}
	})
}
