package recall

import (
	"context"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// Candidate is a memory on the shortlist a Selector chooses from, best lexical match first.
type Candidate struct {
	// File names the memory across stores (Ref): the file for the project's own, "store:file"
	// for a mounted store's. A Selector returns these.
	File string
	// Store is the mounted store's name; "" for the project's own.
	Store       string
	Name        string
	Description string
	Type        memdir.Type
	ModTime     time.Time
	// Score is the lexical ranker's score (higher is better).
	Score float64
}

// Selector picks the memories worth showing for a query from a shortlist. It returns file
// names, best first, at most max. Names that are not on the shortlist and repeats are dropped
// by the caller, so a model-based selector cannot invent files.
type Selector interface {
	Select(ctx context.Context, query string, shortlist []Candidate, max int) ([]string, error)
}

// Lexical is the default Selector: it trusts the lexical ranker and keeps its order.
type Lexical struct{}

// Select implements Selector.
func (Lexical) Select(_ context.Context, _ string, shortlist []Candidate, max int) ([]string, error) {
	out := make([]string, 0, min(max, len(shortlist)))
	for _, c := range shortlist {
		if len(out) == max {
			break
		}
		out = append(out, c.File)
	}
	return out, nil
}

// ManifestOf renders a shortlist the way Manifest renders memories, for a model-based
// selector's prompt.
func ManifestOf(shortlist []Candidate) string {
	mems := make([]memdir.Memory, len(shortlist))
	for i, c := range shortlist {
		mems[i] = memdir.Memory{File: c.File, Name: c.Name, Description: c.Description, Type: c.Type, ModTime: c.ModTime}
	}
	return Manifest(mems, len(mems))
}
