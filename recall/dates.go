package recall

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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

// mayHoldDate reports whether dateRE can match in text: each of its matches has an ASCII
// digit or a month name, which begins with one of these. (cjkDateRE's have 年, 년, 月 or 월.)
func mayHoldDate(text string) bool {
	if strings.ContainsAny(text, "0123456789") {
		return true
	}
	for _, m := range [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"} {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

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
	if !mayHoldDate(text) && !strings.ContainsAny(text, "年년月월") {
		return nil // most queries: the expressions are not even compiled
	}
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
			if rest := strings.TrimLeft(text[m[1]:], " "); strings.HasPrefix(rest, "年") || strings.HasPrefix(rest, "년") {
				continue // a CJK date: read below
			}
			d.y, d.bare = atoi(g(10)), true
		}
		if d.d > 31 {
			d.d = 0
		}
		out = append(out, d)
	}
	for _, m := range cjkDates(text) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		d := date{y: atoi(g(1)), m: time.Month(cjkNum(g(2) + g(4))), d: cjkNum(g(3) + g(5)), start: m[0]}
		if d.m > 12 {
			d.m, d.d = 0, 0
		}
		if d.d > 31 {
			d.d = 0
		}
		if d.y == 0 && d.m == 0 {
			continue
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b date) int { return a.start - b.start })
	return out
}

// cjkDates are cjkDateRE's matches in text, none when it holds no CJK character.
func cjkDates(text string) [][]int {
	if !hasCJK(text) {
		return nil
	}
	return cjkDateRE().FindAllStringSubmatchIndex(text, -1)
}

// cjkDateRE matches dates as Chinese, Japanese and Korean write them: 2023年5月8日, 2023년 5월
// 8일, 5月8号, 五月, 2023年5月, 2023年.
var cjkDateRE = sync.OnceValue(func() *regexp.Regexp {
	const n = `(\d{1,2}|[一二三四五六七八九十]{1,3})`
	return regexp.MustCompile(`(\d{4})\s*[年년](?:\s*` + n + `\s*[月월](?:\s*` + n + `\s*[日号號일])?)?` +
		`|` + n + `\s*[月월](?:\s*` + n + `\s*[日号號일])?`)
})

// cjkNum reads a number written in digits or Chinese numerals up to 99 (十二, 二十八, 两); 0
// when it is neither.
func cjkNum(s string) int {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return atoi(s)
	}
	const digits = "〇一二三四五六七八九"
	n, cur := 0, 0
	for _, r := range s {
		if r == '两' || r == '兩' {
			r = '二'
		}
		switch i := strings.IndexRune(digits, r); {
		case r == '十':
			n += max(cur, 1) * 10
			cur = 0
		case i >= 0:
			cur = i / len("一")
		default:
			return 0
		}
	}
	return n + cur
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
// "two weekends ago", 上周, 3天前, 지난달) against the day the text was written.
func relativeSpans(text string, own int32) []span {
	var out []span
	add := func(unit string, n int, counted bool) {
		if s, ok := relative(own, unit, n, counted); ok {
			out = append(out, s)
		}
	}
	for _, m := range relativeRE().FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			w := strings.ToLower(m[1])
			add("day", map[string]int{"yesterday": -1, "tomorrow": 1}[w], false)
		case m[2] != "":
			dir := map[string]int{"last": -1, "past": -1, "next": 1}[strings.ToLower(m[2])]
			add(strings.ToLower(m[3]), dir, false)
		default:
			n, ok := counts[strings.ToLower(m[4])]
			if !ok {
				n = atoi(m[4])
			}
			if strings.EqualFold(m[6], "later") {
				n = -n
			}
			add(strings.TrimSuffix(strings.ToLower(m[5]), "s"), -n, true)
		}
	}
	if !hasCJK(text) {
		return out
	}
	var counted [][]int // where the counted times are, in order, so that no word inside one counts
	for _, m := range cjkCountedRE().FindAllStringSubmatchIndex(text, -1) {
		counted = append(counted, m[:2])
		g := func(i int) string { return text[max(m[2*i], 0):max(m[2*i+1], 0)] }
		n := cjkNum(g(1))
		if strings.ContainsAny(g(1), "几幾数數") {
			n = counts["a few"]
		}
		if g(3) == "月" && g(2) == "" {
			continue // 3月前: before March, not three months ago
		}
		if strings.ContainsAny(g(4), "后後후") {
			n = -n
		}
		add(cjkUnits[g(3)], -n, true)
	}
	words := cjkWords()
	for i := 0; i < len(text); {
		if len(counted) > 0 && i >= counted[0][0] {
			i, counted = max(i, counted[0][1]), counted[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		for _, w := range words[r] {
			if strings.HasPrefix(text[i:], w) {
				rel := cjkRelative[strings.ReplaceAll(w, " ", "")]
				add(rel.unit, rel.n, false)
				size = len(w)
				break
			}
		}
		i += size
	}
	return out
}

// relative is the span n units from own (negative: before): a day named exactly, counted
// days give or take one, weeks and weekends give or take a few days, months and years whole.
// counted says the text counts them ("two weeks ago", 3天前) rather than naming one (last
// week, 上周).
func relative(own int32, unit string, n int, counted bool) (span, bool) {
	if n < -maxAgo || n > maxAgo {
		return span{}, false
	}
	t := dateOf(own)
	switch unit {
	case "day":
		if counted {
			return around(own, int32(n), 1), true
		}
		return span{own + int32(n), own + int32(n)}, true
	case "night": // the evening of one day and the small hours of the next
		return span{own + int32(n), own + int32(n) + 1}, true
	case "week", "weekend":
		if counted {
			return around(own, int32(n*7), 4), true
		}
		return around(own, int32(n*7), 7), true
	case "month":
		a := t.AddDate(0, n, 0)
		return monthSpan(a.Year(), a.Month()), true
	case "year":
		return yearSpan(t.Year() + n), true
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return around(own, int32(n*4), 4), true // within the week before (or after)
	}
	return span{}, false
}

// cjkRelative are the relative time words of Chinese, Japanese and Korean: a unit and how many
// of it from the day the text was written.
var cjkRelative = map[string]struct {
	unit string
	n    int
}{
	"前天": {"day", -2}, "昨天": {"day", -1}, "今天": {"day", 0}, "明天": {"day", 1}, "后天": {"day", 2}, "後天": {"day", 2},
	"一昨日": {"day", -2}, "昨日": {"day", -1}, "今日": {"day", 0}, "明日": {"day", 1}, "明後日": {"day", 2},
	"그저께": {"day", -2}, "그제": {"day", -2}, "어제": {"day", -1}, "오늘": {"day", 0}, "내일": {"day", 1}, "모레": {"day", 2},
	"昨晚": {"night", -1}, "今晚": {"night", 0}, "昨夜": {"night", -1}, "今夜": {"night", 0}, "어젯밤": {"night", -1}, "오늘밤": {"night", 0},
	"上周": {"week", -1}, "上週": {"week", -1}, "上星期": {"week", -1}, "上个星期": {"week", -1}, "上個星期": {"week", -1},
	"本周": {"week", 0}, "这周": {"week", 0}, "這週": {"week", 0}, "这个星期": {"week", 0}, "這個星期": {"week", 0},
	"下周": {"week", 1}, "下週": {"week", 1}, "下星期": {"week", 1}, "下个星期": {"week", 1}, "下個星期": {"week", 1},
	"先週": {"week", -1}, "今週": {"week", 0}, "来週": {"week", 1}, "來週": {"week", 1},
	"지난주": {"week", -1}, "이번주": {"week", 0}, "다음주": {"week", 1},
	"上个月": {"month", -1}, "上個月": {"month", -1}, "上月": {"month", -1}, "这个月": {"month", 0}, "這個月": {"month", 0},
	"本月": {"month", 0}, "下个月": {"month", 1}, "下個月": {"month", 1}, "下月": {"month", 1},
	"先月": {"month", -1}, "今月": {"month", 0}, "来月": {"month", 1}, "來月": {"month", 1},
	"지난달": {"month", -1}, "이번달": {"month", 0}, "다음달": {"month", 1},
	"前年": {"year", -2}, "去年": {"year", -1}, "昨年": {"year", -1}, "今年": {"year", 0}, "明年": {"year", 1}, "来年": {"year", 1}, "來年": {"year", 1},
	"재작년": {"year", -2}, "작년": {"year", -1}, "올해": {"year", 0}, "내년": {"year", 1},
}

// cjkUnits are the units a counted relative time ("3天前", "2주 전") is written in.
var cjkUnits = map[string]string{
	"天": "day", "日": "day", "일": "day",
	"周": "week", "週": "week", "週間": "week", "星期": "week", "礼拜": "week", "禮拜": "week", "주": "week", "주일": "week",
	"月": "month", "월": "month", "달": "month",
	"年": "year", "년": "year",
}

// hasCJK reports whether s holds a character of the Chinese, Japanese or Korean ranges
// (U+3000 to U+D7FF), by the lead bytes of their UTF-8 encoding.
func hasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 0xE3 && b <= 0xED {
			return true
		}
	}
	return false
}

// cjkWords are cjkRelative's words by their first character, the longest first; a Korean one
// of two syllables or more also with a space before its last (지난 주).
var cjkWords = sync.OnceValue(func() map[rune][]string {
	out := map[rune][]string{}
	for w := range cjkRelative {
		r, n := utf8.DecodeRuneInString(w)
		out[r] = append(out[r], w)
		if r >= 0xAC00 && r <= 0xD7A3 && n < len(w) {
			out[r] = append(out[r], w[:len(w)-len("주")]+" "+w[len(w)-len("주"):])
		}
	}
	for _, ws := range out {
		slices.SortFunc(ws, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	}
	return out
})

// cjkCountedRE matches counted times: a number, a counter, a unit of cjkUnits and before or
// after (3天前, 两个月后, 3ヶ月前, 2주 전).
var cjkCountedRE = sync.OnceValue(func() *regexp.Regexp {
	units := slices.Collect(maps.Keys(cjkUnits))
	slices.SortFunc(units, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`(\d{1,3}|[一二两兩三四五六七八九十几幾数數]{1,3})\s*(个|個|ヶ|か|カ|개)?\s*(` +
		strings.Join(units, "|") + `)\s*(以前|之前|前|以后|以後|之后|之後|后|後|전|후)`)
})

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
