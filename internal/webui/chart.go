package webui

import (
	"fmt"
	"strings"
	"time"
)

// chartDays is how many days the chart of tokens and cost spans at most: the newest ones.
const chartDays = 60

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 900, 160
	chartTop       = 12 // room above the tallest bar
)

// chart is the session list's chart of tokens (bars) and cost (a line) per day, drawn by the
// server as inline SVG.
type chart struct {
	W, H        int
	Bars        []bar
	CostLine    string // the polyline's points
	First, Last string // the days at the ends
	MaxTokens   int
	MaxDollars  float64
	Tokens      int
	Dollars     float64
}

// bar is one day of the chart.
type bar struct {
	X, Y, W, H int
	Day        string
	Tokens     int
	Dollars    float64
}

// spendChart sums spends per day (UTC) over the newest chartDays days that have any, one bar
// a day, days without replies left empty; it is the zero chart when no reply has a day.
func spendChart(spends []sessionSpend) chart {
	days := map[string]spend{}
	var newest string
	for _, sp := range spends {
		for day, d := range sp.Days {
			t := days[day]
			t.Usage.InputTokens += d.Usage.InputTokens
			t.Usage.OutputTokens += d.Usage.OutputTokens
			t.Usage.CacheCreationInputTokens += d.Usage.CacheCreationInputTokens
			t.Usage.CacheReadInputTokens += d.Usage.CacheReadInputTokens
			t.Dollars += d.Dollars
			days[day] = t
			newest = max(newest, day)
		}
	}
	if newest == "" {
		return chart{}
	}
	end, err := time.Parse(time.DateOnly, newest)
	if err != nil {
		return chart{}
	}
	start := end.AddDate(0, 0, -(chartDays - 1))
	oldest := newest
	for day := range days {
		if day >= start.Format(time.DateOnly) {
			oldest = min(oldest, day)
		}
	}
	start, _ = time.Parse(time.DateOnly, oldest)
	n := int(end.Sub(start).Hours()/24) + 1
	c := chart{W: chartW, H: chartH, First: oldest, Last: newest}
	for i := range n {
		day := start.AddDate(0, 0, i).Format(time.DateOnly)
		d := days[day]
		c.Bars = append(c.Bars, bar{Day: day, Tokens: d.Tokens(), Dollars: d.Dollars})
		c.MaxTokens = max(c.MaxTokens, d.Tokens())
		c.MaxDollars = max(c.MaxDollars, d.Dollars)
		c.Tokens += d.Tokens()
		c.Dollars += d.Dollars
	}
	step := chartW / n
	var pts []string
	for i := range c.Bars {
		b := &c.Bars[i]
		b.X, b.W = i*step, max(step-2, 1)
		if c.MaxTokens > 0 {
			b.H = b.Tokens * (chartH - chartTop) / c.MaxTokens
		}
		b.Y = chartH - b.H
		y := chartH
		if c.MaxDollars > 0 {
			y = chartH - int(b.Dollars/c.MaxDollars*float64(chartH-chartTop))
		}
		pts = append(pts, fmt.Sprintf("%d,%d", b.X+step/2, y))
	}
	c.CostLine = strings.Join(pts, " ")
	return c
}
