package recall

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// span is a stretch of days, both ends included, as days since 1970-01-01 (UTC).
type span struct{ from, to int32 }

func (s span) overlaps(o span) bool { return s.from <= o.to && o.from <= s.to }

func dayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

func dateOf(day int32) time.Time { return time.Unix(int64(day)*86400, 0).UTC() }

func daySpan(y int, m time.Month, d int) span {
	day := dayOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
	return span{day, day}
}

func monthSpan(y int, m time.Month) span {
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return span{dayOf(first), dayOf(first.AddDate(0, 1, -1))}
}

func yearSpan(y int) span {
	return span{dayOf(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)), dayOf(time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC))}
}

// period is the time a query names: a span, or a month of any year (month set, s unset).
type period struct {
	s     span
	month time.Month // a month without a year ("in May")
}

func (p period) matches(s span) bool {
	if p.month == 0 {
		return p.s.overlaps(s)
	}
	if s.to-s.from > 330 {
		return true // a year or more covers every month
	}
	for d := s.from; d <= s.to; d += 28 {
		if dateOf(d).Month() == p.month {
			return true
		}
	}
	return dateOf(s.to).Month() == p.month
}

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

// monthRE matches month names as written capitalised; standaloneMonth decides when one
// without a day or year is a month.
const monthRE = `January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec`

var dateRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:` +
		// 8 May, 2023 / 8th May 2023 / 8 May
		`(\d{1,2})(?:st|nd|rd|th)?\s+(` + monthRE + `)\.?(?:,?\s+(\d{4}))?` +
		// May 8, 2023 / May 8th / May 2023 / May
		`|(` + monthRE + `)\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(\d{4}))?` +
		// 2023-05-08
		`|(\d{4})-(\d{2})-(\d{2})` +
		// a bare year
		`|((?:19|20)\d{2})` +
		`)\b`)
})

// date is one date found in a text, as precise as it was written.
type date struct {
	y     int // 0: no year
	m     time.Month
	d     int // 0: no day
	bare  bool
	start int // offset in the text
}

func (d date) span() (span, bool) {
	switch {
	case d.y == 0:
		return span{}, false
	case d.m == 0:
		return yearSpan(d.y), true
	case d.d == 0:
		return monthSpan(d.y, d.m), true
	}
	return daySpan(d.y, d.m, d.d), true
}

// findDates returns the dates written in text. A month name that is also a common word
// ("may", "march") counts only capitalised and, when alone, after a preposition.
func findDates(text string) []date {
	var out []date
	for _, m := range dateRE().FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		var d date
		d.start = m[0]
		switch {
		case g(2) != "":
			d.m, d.d, d.y = months[strings.ToLower(g(2))], atoi(g(1)), atoi(g(3))
		case g(4) != "":
			mon := g(4)
			d.m, d.d, d.y = months[strings.ToLower(mon)], atoi(g(5)), atoi(g(6))
			if d.d == 0 && d.y == 0 && !standaloneMonth(text[:m[0]], mon) {
				continue
			}
		case g(7) != "":
			d.y, d.m, d.d = atoi(g(7)), time.Month(atoi(g(8))), atoi(g(9))
			if d.m < 1 || d.m > 12 {
				continue
			}
		default:
			d.y, d.bare = atoi(g(10)), true
		}
		if d.d > 31 {
			d.d = 0
		}
		out = append(out, d)
	}
	return out
}

// standaloneMonth reports whether a month name written alone (no day, no year) after before
// is a month: capitalised, not a short form, and after a preposition when it is also a word.
func standaloneMonth(before, mon string) bool {
	if len(mon) <= 4 && mon != "May" && mon != "June" && mon != "July" {
		return false
	}
	if mon[0] < 'A' || mon[0] > 'Z' {
		return false
	}
	if mon != "May" && mon != "March" && mon != "August" {
		return true
	}
	f := strings.Fields(before)
	if len(f) == 0 {
		return false
	}
	switch strings.ToLower(f[len(f)-1]) {
	case "in", "of", "during", "since", "until", "till", "by", "early", "late", "mid", "last", "next", "this":
		return true
	}
	return false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// queryPeriod returns the time a query names: a date, a month (with or without its year) or a
// year.
func queryPeriod(text string) (period, bool) {
	for _, d := range findDates(text) {
		if s, ok := d.span(); ok {
			return period{s: s}, true
		}
		if d.m != 0 {
			return period{month: d.m}, true
		}
	}
	return period{}, false
}

var relativeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(yesterday|today|tonight|tomorrow)` +
		`|(last|next|this|past)\s+(week|weekend|month|year|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)` +
		`|(a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|\d+)\s+(days?|weeks?|weekends?|months?|years?)\s+(ago|before|earlier|later)` +
		`)\b`)
})

// maxAgo bounds "N units ago": a larger N is no date to match.
const maxAgo = 1000

var counts = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "a few": 3, "a couple of": 2,
}

// relativeSpans resolves the relative time expressions of text ("yesterday", "last week",
// "two weekends ago") against the day the text was written.
func relativeSpans(text string, own int32) []span {
	var out []span
	t := dateOf(own)
	for _, m := range relativeRE().FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			off := map[string]int32{"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[strings.ToLower(m[1])]
			out = append(out, span{own + off, own + off})
		case m[2] != "":
			dir := int32(-1)
			switch strings.ToLower(m[2]) {
			case "next":
				dir = 1
			case "this":
				dir = 0
			}
			switch unit := strings.ToLower(m[3]); unit {
			case "week", "weekend":
				out = append(out, around(own, dir*7, 7))
			case "month":
				n := t.AddDate(0, int(dir), 0)
				out = append(out, monthSpan(n.Year(), n.Month()))
			case "year":
				out = append(out, yearSpan(t.Year()+int(dir)))
			case "night":
				out = append(out, span{own - 1, own})
			default: // a weekday: within the week before (or after)
				out = append(out, around(own, dir*4, 4))
			}
		default:
			n, ok := counts[strings.ToLower(m[4])]
			if !ok {
				n = atoi(m[4])
			}
			if n <= 0 || n > maxAgo {
				continue
			}
			dir := -1
			if strings.EqualFold(m[6], "later") {
				dir = 1
			}
			switch unit := strings.TrimSuffix(strings.ToLower(m[5]), "s"); unit {
			case "day":
				out = append(out, around(own, int32(dir*n), 1))
			case "week", "weekend":
				out = append(out, around(own, int32(dir*n*7), 4))
			case "month":
				a := t.AddDate(0, dir*n, 0)
				out = append(out, monthSpan(a.Year(), a.Month()))
			case "year":
				out = append(out, yearSpan(t.Year()+dir*n))
			}
		}
	}
	return out
}

// around is the span of days off from own, give or take slack.
func around(own, off, slack int32) span {
	return span{own + off - slack, own + off + slack}
}

// memoryDates returns the spans of time a memory speaks of: its own date (frontmatter
// modified, else the first full date in its text), the dates written in it, and its relative
// expressions resolved against its own date.
func memoryDates(modified time.Time, text string) []span {
	var out []span
	own, haveOwn := int32(0), false
	if !modified.IsZero() {
		own, haveOwn = dayOf(modified), true
		out = append(out, span{own, own})
	}
	for _, d := range findDates(text) {
		s, ok := d.span()
		if !ok {
			continue
		}
		if !haveOwn && d.d != 0 {
			own, haveOwn = s.from, true
		}
		out = append(out, s)
	}
	if haveOwn {
		out = append(out, relativeSpans(text, own)...)
	}
	return out
}
