package recall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/bench/synth"
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
		"我们在2023年5月8日上线，2024年3月又改了":                           {daySpan(2023, 5, 8), monthSpan(2024, 3)},
		"リリースは2022年十二月二十八日でした":                                {daySpan(2022, 12, 28)},
		"2021년 6월 3일에 배포했고 2020년에 시작":                         {daySpan(2021, 6, 3), yearSpan(2020)},
		"5月8号见面，三个月以后再说":                                      nil,              // no year: no span
		"2023年13月":                                            {yearSpan(2023)}, // no 13th month: the year alone
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
		"我们五月决定了什么？":                                  {month: time.May},
		"2023年9月にGinaは何をした？":                          {s: monthSpan(2023, 9)},
		"2022년 5월 1일에 본 영화는?":                         {s: daySpan(2022, 5, 1)},
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
		"我们昨天决定用 tabs":                 {own - 1, own - 1},
		"上周跑了一次比赛":                     {own - 14, own},
		"两个月前搬家了":                      monthSpan(2023, 3),
		"3天前天气很好":                      {own - 4, own - 2}, // not 前天 inside it
		"3天前开了会":                       {own - 4, own - 2},
		"先月引っ越した":                      monthSpan(2023, 4),
		"3ヶ月後に始まる":                     monthSpan(2023, 8),
		"작년에 여행을 갔다":                   yearSpan(2022),
		"지난 주에 캠핑":                     {own - 14, own},
		"2주 전에 캠핑":                     {own - 18, own - 10},
		"昨晚下了雨":                        {own - 1, own},
	} {
		got := relativeSpans(text, own)
		if len(got) != 1 || got[0] != want {
			t.Errorf("relativeSpans(%q) = %v, want [%v]", text, got, want)
		}
	}
	for _, text := range []string{"3月前に決めた", "每月一次", "今日は晴れ", "月曜日に会議"} {
		if text == "今日は晴れ" {
			if got := relativeSpans(text, own); len(got) != 1 || got[0] != (span{own, own}) {
				t.Errorf("relativeSpans(%q) = %v, want today", text, got)
			}
			continue
		}
		if got := relativeSpans(text, own); len(got) != 0 {
			t.Errorf("relativeSpans(%q) = %v, want none", text, got)
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
		"2023年十二月三十一日，两个月后；十十十月；2023年13月40日", "2021년 6월 3일, 2주 전, 지난 주", "3ヶ月前と先月",
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

// TestTimeOfQueryCJK: the same in Chinese, Japanese and Korean: dates written as those
// languages write them, in the query and in the memories, relative ones counted from the
// memory's own date.
func TestTimeOfQueryCJK(t *testing.T) {
	mems := []memdir.Memory{
		{File: "a.md", Name: "a", Description: "在湖边露营，露营很好玩", Body: "写于2023年6月20日。"},
		{File: "b.md", Name: "b", Description: "在山里露营", Body: "2023年8月3日记：两周前去的。"},
		{File: "c.md", Name: "c", Description: "湖でキャンプ、キャンプは楽しい", Body: "2023年6月20日に書いた。"},
		{File: "d.md", Name: "d", Description: "山でキャンプ", Body: "2023年8月3日：先月行った。"},
		{File: "e.md", Name: "e", Description: "호수에서 캠핑, 캠핑은 재미있다", Body: "2023년 6월 20일에 씀."},
		{File: "f.md", Name: "f", Description: "산에서 캠핑", Body: "2023년 8월 3일: 지난달에 갔다."},
	}
	rank := func(p Params, q string) string {
		ix := NewIndex(p)
		for _, m := range mems {
			ix.Put(m)
		}
		return ix.Search(q, 1)[0].Memory.File
	}
	off := DefaultParams()
	off.Time = 0
	for q, want := range map[string][2]string{ // without the time bonus, with it
		"2023年7月露营":    {"a.md", "b.md"},
		"2023年7月にキャンプ": {"c.md", "d.md"},
		"2023년 7월 캠핑":  {"e.md", "f.md"},
	} {
		if got := rank(off, q); got != want[0] {
			t.Fatalf("%q without the time bonus: %s first, want %s (the test needs it)", q, got, want[0])
		}
		if got := rank(DefaultParams(), q); got != want[1] {
			t.Errorf("%q: %s first, want %s", q, got, want[1])
		}
	}
}

// TestMayHoldDate checks the filters before findDates's expressions against the expressions
// themselves, on texts with and without dates.
func TestMayHoldDate(t *testing.T) {
	texts := append(synth.Queries(200, 5),
		"on 8 May, 2023", "May 8th", "in 2022", "2024-05-01", "Sept. 3", "in March we went",
		"what did she do last week", "no date here at all", "mayday", "JANUARY 5", "december",
		"部署到生产环境 2024年5月", "我们五月决定了什么？", "五月", "the 3rd of never")
	hits := 0
	for _, text := range texts {
		match := dateRE().MatchString(text)
		if match && !mayHoldDate(text) {
			t.Errorf("%q: dateRE matches but mayHoldDate says no", text)
		}
		if cjkDateRE().MatchString(text) && !strings.ContainsAny(text, "年년月월") {
			t.Errorf("%q: cjkDateRE matches without 年, 년, 月 or 월", text)
		}
		if match {
			hits++
		}
	}
	if hits < 6 || hits == len(texts) {
		t.Fatalf("%d of %d texts match dateRE; want some, not all", hits, len(texts))
	}
}
