package cli

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
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
			defer oneShotGC()()
			ws, err := openMemoryWorkspace(app, o.mem)
			if err != nil {
				return err
			}
			return memorySearch(c.Context(), app, ws, strings.Join(args, " "), o)
		},
	}
	o.mem.register(c)
	c.Flags().IntVarP(&o.k, "k", "k", 5, "how many memories to show at most")
	c.Flags().BoolVar(&o.json, "json", false, "print as JSON")
	return c
}

// oneShotHeap is the heap up to which a one-shot command runs without collecting.
const oneShotHeap = 512 << 20

// oneShotGC turns the garbage collector off, but for a heap past oneShotHeap, for a command
// that does one piece of work and exits, unless GOGC or GOMEMLIMIT set the collector; it
// returns what puts the settings back.
func oneShotGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gc := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(oneShotHeap)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gc)
	}
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

// memorySearch ranks query over the stores the flags name (--store or --memory-dir: that one;
// else every store whose directory exists) with the workspace's recall, recording nothing.
func memorySearch(ctx context.Context, app *App, ws *workspace.Workspace, query string, o memorySearchOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var names []string
	if o.mem.store != "" || o.mem.dir != "" {
		names = []string{o.mem.store}
	}
	rc, err := ws.Recaller(workspace.RecallOptions{Stores: names, NoStats: true})
	if err != nil {
		return err
	}
	diags, err := rc.Refresh(ctx)
	if err != nil {
		return err
	}
	printDiagnostics(app.Err, diags)
	stores := rc.Stores()
	found := rc.Search(query, o.k)
	hits := make([]searchHitJSON, 0, len(found))
	for _, h := range found {
		m := h.Memory
		hits = append(hits, searchHitJSON{File: m.File, Name: m.Name, Type: string(m.Type), Score: math.Round(h.Score*1000) / 1000,
			Description: m.Description, Path: m.Path, Modified: m.ModTime.UTC().Truncate(time.Second), Store: stores[h.List].Name})
	}
	dir := stores[0].Dir
	if o.json {
		return writeJSON(app.Out, struct {
			Dir   string          `json:"dir"`
			Query string          `json:"query"`
			Hits  []searchHitJSON `json:"hits"`
		}{dir, query, hits})
	}
	if len(hits) == 0 {
		fmt.Fprintf(app.Err, "no memory in %s matches %q\n", dir, query)
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
