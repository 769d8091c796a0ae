// Package usage meters a session's model calls by what they were for.
//
//   - Every call through a Meter's provider of a Kind is counted, whether or not its server
//     reported usage; reported usage is summed, and priced where llm.PriceOf knows the model.
//   - A Meter is safe for concurrent use: background workers record from their goroutines.
package usage

import (
	"sync"

	"github.com/strata-mem/strata/llm"
)

// Kind names what a model call of a session was for.
type Kind string

// The kinds of model call a session makes, in the order a Report lists them.
const (
	Main       Kind = "main"       // the conversation's own requests
	Recall     Kind = "recall"     // recall's model selection of memories
	Extraction Kind = "extraction" // background memory extraction
	Notes      Kind = "notes"      // session-notes updates
	Compaction Kind = "compaction" // summaries of /compact and automatic compaction
	Dream      Kind = "dream"      // auto-dream consolidation
)

// Kinds lists every kind in report order.
var Kinds = []Kind{Main, Recall, Extraction, Notes, Compaction, Dream}

// Line is the usage of one kind of model call (or of all of them, as a report's Total).
type Line struct {
	Kind Kind `json:"kind"`
	// Calls counts the model requests, whether or not their server reported usage.
	Calls int       `json:"calls"`
	Usage llm.Usage `json:"usage"`
	// Cost is in US dollars; Priced is false when a model of these calls has no known price
	// (llm.PriceOf), and Cost then counts only the priced ones.
	Cost   float64 `json:"cost_usd"`
	Priced bool    `json:"priced"`
}

// Report is every model call of the session so far, by kind, and their total.
type Report struct {
	// Lines has one line per kind that made a call, in Kinds order.
	Lines []Line `json:"lines"`
	// Total sums every line (Kind "total"); a status line shows it.
	Total Line `json:"total"`
}

// Line returns the line of kind k (zero with Kind k when it made no call).
func (r Report) Line(k Kind) Line {
	for _, l := range r.Lines {
		if l.Kind == k {
			return l
		}
	}
	return Line{Kind: k, Priced: true}
}

// Meter counts a session's model calls by kind.
type Meter struct {
	providers map[Kind]llm.Provider

	mu     sync.Mutex
	lines  map[Kind]*Line
	models map[Kind]string // the model each kind's calls go to now (priced by it)
}

// NewMeter meters p: Recall's calls go to small, every other kind's to model.
func NewMeter(p llm.Provider, model, small string) *Meter {
	m := &Meter{providers: map[Kind]llm.Provider{}, lines: map[Kind]*Line{}, models: map[Kind]string{}}
	for _, k := range Kinds {
		m.models[k] = model
		if k == Recall {
			m.models[k] = small
		}
		m.providers[k] = llm.Metered(p, func(u llm.Usage) { m.record(k, u) })
	}
	return m
}

// Provider returns the provider whose calls count as kind k.
func (m *Meter) Provider(k Kind) llm.Provider { return m.providers[k] }

// SetModel prices the later calls of every kind but Recall (the small model) at model.
func (m *Meter) SetModel(model string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.models {
		if k != Recall {
			m.models[k] = model
		}
	}
}

func (m *Meter) record(k Kind, u llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.lines[k]
	if l == nil {
		l = &Line{Kind: k, Priced: true}
		m.lines[k] = l
	}
	l.Calls++
	l.Usage = l.Usage.Add(u)
	if price, ok := llm.PriceOf(m.models[k]); ok {
		l.Cost += price.Cost(u)
	} else {
		l.Priced = false
	}
}

// Report returns the calls so far.
func (m *Meter) Report() Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := Report{Total: Line{Kind: "total", Priced: true}}
	for _, k := range Kinds {
		l := m.lines[k]
		if l == nil {
			continue
		}
		r.Lines = append(r.Lines, *l)
		r.Total.Calls += l.Calls
		r.Total.Usage = r.Total.Usage.Add(l.Usage)
		r.Total.Cost += l.Cost
		r.Total.Priced = r.Total.Priced && l.Priced
	}
	return r
}
