package cli

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/workspace"
)

type memorySearchOptions struct {
	mem  memoryFlags
	k    int
	json bool
}

func newMemorySearchCmd(app *App) *cobra.Command {
	var o memorySearchOptions
	c := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find the memories recall would pick for a query",
		Long: `Run the recall pipeline with the offline lexical ranker over this project's memories and
print the best matches: file, name, score and description. The words of QUERY may be given as
one quoted argument or as several. English word forms match ("deploying" finds "deploy"),
misspellings are corrected against the memories' words, and Chinese or Japanese text is matched
by character pairs. Nothing is written: unlike recall in a session, a search records no
statistics. With memory stores mounted, every store is searched and ranked as one list, as
recall does, with a STORE column; --store searches one.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("search needs a QUERY\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if o.k < 1 {
				return usagef("-k must be at least 1")
			}
			stores, err := readStores(app, o.mem)
			if err != nil {
				return err
			}
			return memorySearch(c.Context(), app, stores, strings.Join(args, " "), o)
		},
	}
	o.mem.register(c)
	c.Flags().IntVarP(&o.k, "k", "k", 5, "how many memories to show at most")
	c.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return c
}

// searchHitJSON is one result of `strata memory search --json`.
type searchHitJSON struct {
	File        string    `json:"file"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Score       float64   `json:"score"`
	Description string    `json:"description"`
	Path        string    `json:"path"`
	Modified    time.Time `json:"modified"`
	Store       string    `json:"store,omitempty"` // a mounted store's name; absent for the project's
}

func memorySearch(ctx context.Context, app *App, stores []workspace.NamedStore, query string, o memorySearchOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	s := stores[0].Store
	var mounts []recall.Mount
	for _, st := range stores[1:] {
		mounts = append(mounts, recall.Mount{Name: st.Name, Dir: st.Dir, Ranker: recall.NewStoreRanker(st.Store, recall.RankerOptions{})})
	}
	first := storeLabel(stores[0]) // --store names a mounted store: it is the only one searched
	r := recall.NewRecaller(recall.NewStoreRanker(s, recall.RankerOptions{}), s.Dir(), recall.Options{
		Budget:    recall.Budget{Files: o.k, SessionBytes: math.MaxInt},
		Shortlist: max(o.k, 20),
		Now:       app.Now,
		Mounts:    mounts,
	})
	res, err := r.Recall(ctx, recall.NewSession(), recall.Turn{Query: query})
	if err != nil {
		return err
	}
	for _, sk := range res.Skipped {
		fmt.Fprintf(app.Err, "strata: warning: %s: %s\n", sk.File, sk.Reason)
	}
	hits := make([]searchHitJSON, 0, len(res.Memories))
	for _, m := range res.Memories {
		hits = append(hits, searchHitJSON{File: m.File, Name: m.Name, Type: string(m.Type), Score: math.Round(m.Score*1000) / 1000,
			Description: m.Description, Path: m.Path, Modified: m.ModTime.UTC().Truncate(time.Second), Store: cmp.Or(m.Store, first)})
	}
	if o.json {
		return writeJSON(app.Out, struct {
			Dir   string          `json:"dir"`
			Query string          `json:"query"`
			Hits  []searchHitJSON `json:"hits"`
		}{s.Dir(), query, hits})
	}
	if len(hits) == 0 {
		fmt.Fprintf(app.Err, "no memory in %s matches %q\n", s.Dir(), query)
		return nil
	}
	rows := [][]string{{"FILE", "NAME", "SCORE", "DESCRIPTION"}}
	if len(stores) > 1 {
		rows[0] = append([]string{"STORE"}, rows[0]...)
	}
	for _, h := range hits {
		row := []string{h.File, h.Name, fmt.Sprintf("%.3f", h.Score), h.Description}
		if len(stores) > 1 {
			row = append([]string{cmp.Or(h.Store, config.ProjectStore)}, row...)
		}
		rows = append(rows, row)
	}
	return writeMemoryTable(app.Out, rows)
}
