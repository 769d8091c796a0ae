package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/bench/synth"
)

// Cold-search targets: whole-process `strata memory search` against yardsticks run on the same
// files, as ratios of the medians.
const (
	ColdSQLiteTarget = 2.0 // 10,000 memories: at most twice a sqlite3 FTS5 query
	ColdGrepTarget   = 2.0 // 200 memories: at most twice grep -rl
)

// ColdOptions configure RecallCold.
type ColdOptions struct {
	// Strata is the strata binary to time, resolved as ResolveBinary does.
	Strata string
	// Sizes are the store sizes, in memories of about 1 KB (synth.Memories).
	Sizes []int
	// Runs is the number of timed rounds per size; at least 1.
	Runs int
	// Env is the environment the timed processes start from (nil: os.Environ()).
	Env []string
}

// ColdRow is one store size's figures, in milliseconds (medians of wall time, start to exit).
type ColdRow struct {
	Memories int `json:"memories"`
	// FirstMS is the first search, which finds no saved index: it reads every file and
	// saves the index.
	FirstMS float64 `json:"first_ms"`
	// StrataMS is a search that opens the saved index (the files unchanged); NoCacheMS one
	// that reads every file (STRATA_RECALL_CACHE=off), as before there was a saved index.
	StrataMS  float64 `json:"strata_ms"`
	NoCacheMS float64 `json:"no_cache_ms"`
	// SQLiteMS is `sqlite3` querying an FTS5 table of the same files (bm25, limit 5); 0 when
	// sqlite3 is not installed.
	SQLiteMS float64 `json:"sqlite3_ms,omitempty"`
	GrepMS   float64 `json:"grep_ms"` // grep -rli WORD DIR
	// FindMS is `find DIR -newer FILE`: a stat of every file, the least a search must do that
	// never trusts its index over the files; 0 when find is not installed.
	FindMS float64 `json:"find_ms,omitempty"`
	// Ratios of StrataMS to the yardsticks'.
	SQLiteRatio float64 `json:"sqlite3_ratio,omitempty"`
	GrepRatio   float64 `json:"grep_ratio"`
	FindRatio   float64 `json:"find_ratio,omitempty"`
}

// ColdReport is what RecallCold measured; its JSON form is what `strata bench recall --cold
// --json` prints.
type ColdReport struct {
	Runs  int       `json:"runs"`
	Query string    `json:"query"`
	Rows  []ColdRow `json:"rows"`
	// NoSQLite says why the sqlite3 column is empty.
	NoSQLite string `json:"no_sqlite3,omitempty"`
}

// RecallCold times whole-process searches on synthetic stores of each size (in a temporary
// directory, removed afterwards): strata memory search once without a saved index, then
// opts.Runs rounds of strata memory search, the same with the saved index turned off, a sqlite3
// FTS5 query over the same files (when sqlite3 is on PATH), grep -rli and find -newer (when
// find is on PATH), alternately (see timeAlternately), all for the same English query.
func RecallCold(ctx context.Context, opts ColdOptions) (ColdReport, error) {
	if opts.Runs < 1 {
		return ColdReport{}, errors.New("bench recall --cold: runs must be at least 1")
	}
	strata, err := ResolveBinary(opts.Strata)
	if err != nil {
		return ColdReport{}, fmt.Errorf("bench recall --cold: strata binary: %w", err)
	}
	grep, err := exec.LookPath("grep")
	if err != nil {
		return ColdReport{}, fmt.Errorf("bench recall --cold: %w", err)
	}
	rep := ColdReport{Runs: opts.Runs}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		rep.NoSQLite = "sqlite3 is not installed (Debian: apt-get install sqlite3); its column is left out"
		sqlite = ""
	}
	find, _ := exec.LookPath("find")
	var words []string
	for _, q := range synth.Queries(8, 1) {
		if w := strings.Fields(q); len(w) >= 2 && len(words) == 0 && !strings.ContainsFunc(q, isHan) {
			words = w[:2]
		}
	}
	rep.Query = strings.Join(words, " ")
	for _, n := range opts.Sizes {
		row, err := coldSize(ctx, coldTools{strata, sqlite, grep, find}, n, words, opts)
		if err != nil {
			return rep, fmt.Errorf("bench recall --cold: %d memories: %w", n, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

func isHan(r rune) bool { return r >= 0x2E80 }

// coldTools are the programs RecallCold runs; sqlite and find are empty when not installed.
type coldTools struct{ strata, sqlite, grep, find string }

// coldSize measures one store size.
func coldSize(ctx context.Context, tools coldTools, n int, words []string, opts ColdOptions) (ColdRow, error) {
	strata, sqlite := tools.strata, tools.sqlite
	row := ColdRow{Memories: n}
	dir, err := os.MkdirTemp("", "strata-bench-cold-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(dir)
	mem := filepath.Join(dir, "memory")
	if err := synth.Memories(mem, n, 1); err != nil {
		return row, err
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(startupEnv(env, dir), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	for _, d := range []string{filepath.Join(dir, "home"), filepath.Join(dir, "project")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return row, err
		}
	}
	query := strings.Join(words, " ")
	search := &exec.Cmd{Path: strata, Args: []string{strata, "memory", "search", "--memory-dir", mem, query}}
	nocache := &exec.Cmd{Path: strata, Args: search.Args}
	procs := []*exec.Cmd{search, nocache, {Path: tools.grep, Args: []string{tools.grep, "-rli", words[0], mem}}}
	if tools.find != "" {
		stamp := filepath.Join(dir, "stamp")
		if err := os.WriteFile(stamp, nil, 0o600); err != nil {
			return row, err
		}
		procs = append(procs, &exec.Cmd{Path: tools.find, Args: []string{tools.find, mem, "-newer", stamp}})
	}
	if sqlite != "" {
		db := filepath.Join(dir, "fts.db")
		build := exec.CommandContext(ctx, sqlite, db, "CREATE VIRTUAL TABLE docs USING fts5(name, body); "+
			"INSERT INTO docs SELECT name, readfile(name) FROM fsdir('"+mem+"') WHERE name LIKE '%.md';")
		if out, err := build.CombinedOutput(); err != nil {
			return row, fmt.Errorf("building the FTS5 table: %w\n%s", err, out)
		}
		match := `"` + strings.Join(words, `" OR "`) + `"`
		procs = append(procs, &exec.Cmd{Path: sqlite, Args: []string{sqlite, db,
			"SELECT name FROM docs WHERE docs MATCH '" + match + "' ORDER BY bm25(docs) LIMIT 5;"}})
	}
	for _, p := range procs {
		p.Dir, p.Env = filepath.Join(dir, "project"), env
	}
	nocache.Env = append(env[:len(env):len(env)], "STRATA_RECALL_CACHE=off")
	first := exec.CommandContext(ctx, strata, search.Args[1:]...)
	first.Dir, first.Env = search.Dir, search.Env
	t := time.Now()
	if out, err := first.CombinedOutput(); err != nil {
		return row, fmt.Errorf("strata memory search: %w\n%s", err, out)
	}
	row.FirstMS = ms(time.Since(t))
	times, err := timeAlternately(ctx, procs, opts.Runs)
	if err != nil {
		return row, err
	}
	row.StrataMS = ms(percentile(times[0], 0.5))
	row.NoCacheMS = ms(percentile(times[1], 0.5))
	row.GrepMS = ms(percentile(times[2], 0.5))
	row.GrepRatio = row.StrataMS / row.GrepMS
	if tools.find != "" {
		row.FindMS = ms(percentile(times[3], 0.5))
		row.FindRatio = row.StrataMS / row.FindMS
	}
	if sqlite != "" {
		row.SQLiteMS = ms(percentile(times[len(times)-1], 0.5))
		row.SQLiteRatio = row.StrataMS / row.SQLiteMS
	}
	return row, nil
}
