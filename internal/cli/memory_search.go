package cli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

func init() { registerIn("memory", newMemorySearchCmd) }

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
statistics.`,
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
			s, err := openMemoryStore(app, o.mem)
			if err != nil {
				return err
			}
			return memorySearch(c.Context(), app, s, strings.Join(args, " "), o)
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
}

func memorySearch(ctx context.Context, app *App, s *memdir.Store, query string, o memorySearchOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	r := recall.NewRecaller(recall.NewStoreRanker(s, recall.RankerOptions{}), s.Dir(), recall.Options{
		Budget:    recall.Budget{Files: o.k, SessionBytes: math.MaxInt},
		Shortlist: max(o.k, 20),
		Now:       app.Now,
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
			Description: m.Description, Path: m.Path, Modified: m.ModTime.UTC().Truncate(time.Second)})
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
	for _, h := range hits {
		rows = append(rows, []string{h.File, h.Name, fmt.Sprintf("%.3f", h.Score), h.Description})
	}
	return writeMemoryTable(app.Out, rows)
}
