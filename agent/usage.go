package agent

import (
	"sync"

	"github.com/strata-mem/strata/llm"
)

// UsageKind names what a model call of a session was for.
type UsageKind string

// The kinds of model call a session makes, in the order a UsageReport lists them.
const (
	UsageMain       UsageKind = "main"       // the conversation's own requests
	UsageRecall     UsageKind = "recall"     // recall's model selection of memories
	UsageExtraction UsageKind = "extraction" // background memory extraction
	UsageNotes      UsageKind = "notes"      // session-notes updates
	UsageCompaction UsageKind = "compaction" // summaries of /compact and automatic compaction
	UsageDream      UsageKind = "dream"      // auto-dream consolidation
)

// UsageKinds lists every kind in report order.
var UsageKinds = []UsageKind{UsageMain, UsageRecall, UsageExtraction, UsageNotes, UsageCompaction, UsageDream}

// UsageLine is the usage of one kind of model call (or of all of them, as a report's Total).
type UsageLine struct {
	Kind UsageKind `json:"kind"`
	// Calls counts the requests whose server reported usage.
	Calls int       `json:"calls"`
	Usage llm.Usage `json:"usage"`
	// Cost is in US dollars; Priced is false when a model of these calls has no known price
	// (llm.PriceOf), and Cost then counts only the priced ones.
	Cost   float64 `json:"cost_usd"`
	Priced bool    `json:"priced"`
}

// UsageReport is every model call of the session so far, by kind, and their total.
type UsageReport struct {
	// Lines has one line per kind that made a call, in UsageKinds order.
	Lines []UsageLine `json:"lines"`
	// Total sums every line (Kind "total"); a status line shows it.
	Total UsageLine `json:"total"`
}

// Line returns the line of kind k (zero with Kind k when it made no call).
func (r UsageReport) Line(k UsageKind) UsageLine {
	for _, l := range r.Lines {
		if l.Kind == k {
			return l
		}
	}
	return UsageLine{Kind: k, Priced: true}
}

// meter counts the session's model calls by kind; safe for concurrent use (the background
// workers record from their goroutines).
type meter struct {
	mu     sync.Mutex
	lines  map[UsageKind]*UsageLine
	models map[UsageKind]string // the model each kind's calls go to now (priced by it)
}

// provider returns p metered as calls of kind k on model (setModel changes it).
func (m *meter) provider(p llm.Provider, k UsageKind, model string) llm.Provider {
	m.mu.Lock()
	if m.models == nil {
		m.models = map[UsageKind]string{}
	}
	m.models[k] = model
	m.mu.Unlock()
	return llm.Metered(p, func(u llm.Usage) { m.record(k, u) })
}

// setModel prices the later calls of every kind but recall (the small model) at model.
func (m *meter) setModel(model string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.models {
		if k != UsageRecall {
			m.models[k] = model
		}
	}
}

func (m *meter) record(k UsageKind, u llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	model := m.models[k]
	if m.lines == nil {
		m.lines = map[UsageKind]*UsageLine{}
	}
	l := m.lines[k]
	if l == nil {
		l = &UsageLine{Kind: k, Priced: true}
		m.lines[k] = l
	}
	l.Calls++
	l.Usage = l.Usage.Add(u)
	if price, ok := llm.PriceOf(model); ok {
		l.Cost += price.Cost(u)
	} else {
		l.Priced = false
	}
}

func (m *meter) report() UsageReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := UsageReport{Total: UsageLine{Kind: "total", Priced: true}}
	for _, k := range UsageKinds {
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
