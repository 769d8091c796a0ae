package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/strata-mem/strata/recall"
)

// EvalQuery is one query of an eval set (see docs/bench-recall.md for the format).
type EvalQuery struct {
	ID           string   `json:"id"`
	Query        string   `json:"query"`
	Relevant     []string `json:"relevant"`
	Category     int      `json:"category"`
	CategoryName string   `json:"category_name"`
	Adversarial  bool     `json:"adversarial"`
}

// Scored reports whether q counts in the metrics: categories 1–4, not adversarial, with at
// least one relevant memory.
func (q EvalQuery) Scored() bool {
	return q.Category >= 1 && q.Category <= 4 && !q.Adversarial && len(q.Relevant) > 0
}

// EvalStore is one store of an eval set: a memory dir ranked on its own and its queries.
type EvalStore struct {
	Name      string
	MemoryDir string
	Queries   []EvalQuery
}

// LoadEvalSet reads an eval set: dir is either one store (holding memories/ and
// queries.jsonl) or a folder of stores. Stores are returned sorted by name.
func LoadEvalSet(dir string) ([]EvalStore, error) {
	if _, err := os.Stat(filepath.Join(dir, "queries.jsonl")); err == nil {
		s, err := loadEvalStore(dir)
		if err != nil {
			return nil, err
		}
		return []EvalStore{s}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("bench: eval set %s: %w", dir, err)
	}
	var out []EvalStore
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "queries.jsonl")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		s, err := loadEvalStore(sub)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: eval set %s: no store (a folder with queries.jsonl and memories/)", dir)
	}
	return out, nil
}

func loadEvalStore(dir string) (EvalStore, error) {
	s := EvalStore{Name: filepath.Base(dir), MemoryDir: filepath.Join(dir, "memories")}
	path := filepath.Join(dir, "queries.jsonl")
	f, err := os.Open(path)
	if err != nil {
		return s, fmt.Errorf("bench: eval store: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q EvalQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return s, fmt.Errorf("bench: %s:%d: %w", path, line, err)
		}
		s.Queries = append(s.Queries, q)
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("bench: %s: %w", path, err)
	}
	return s, nil
}

// Metrics are retrieval quality figures over N queries.
type Metrics struct {
	N     int     `json:"n"`
	Hit1  float64 `json:"hit@1"`
	Hit5  float64 `json:"hit@5"`
	Hit10 float64 `json:"hit@10"`
	Rec5  float64 `json:"rec@5"`
	MRR   float64 `json:"mrr"`
}

// Ranking is one query's result list (file names, best first) and its relevant files.
type Ranking struct {
	Results  []string
	Relevant []string
}

// Score computes the metrics of rankings: hit@k is the share of queries with a relevant file
// in the top k, rec@5 the mean share of a query's relevant files in the top 5, MRR the mean of
// 1/rank of the first relevant file in the list (0 if none).
func Score(rs []Ranking) Metrics {
	m := Metrics{N: len(rs)}
	if len(rs) == 0 {
		return m
	}
	for _, r := range rs {
		first := 0
		found := 0
		for i, f := range r.Results {
			if !slices.Contains(r.Relevant, f) {
				continue
			}
			if first == 0 {
				first = i + 1
			}
			if i < 5 {
				found++
			}
		}
		if first > 0 {
			m.MRR += 1 / float64(first)
			if first <= 1 {
				m.Hit1++
			}
			if first <= 5 {
				m.Hit5++
			}
			if first <= 10 {
				m.Hit10++
			}
		}
		if n := len(uniq(r.Relevant)); n > 0 {
			m.Rec5 += float64(found) / float64(n)
		}
	}
	n := float64(len(rs))
	m.Hit1 /= n
	m.Hit5 /= n
	m.Hit10 /= n
	m.Rec5 /= n
	m.MRR /= n
	return m
}

func uniq(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// EvalReport is the result of Evaluate; its JSON form is what `strata bench recall DIR --json`
// prints.
type EvalReport struct {
	Overall    Metrics            `json:"overall"`
	Categories map[string]Metrics `json:"categories"`
	Latency    Latency            `json:"latency_ms"`
	// BuildMS is the time to build the indexes of all stores from their files (read, parse,
	// index), in milliseconds.
	BuildMS float64 `json:"build_ms"`
	// Skipped counts queries left out of the metrics (adversarial, other categories, no
	// relevant memory).
	Skipped int `json:"-"`
}

// Latency is per-query search time in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// EvalDepth is how many results per query Evaluate asks for (MRR looks this deep).
const EvalDepth = 100

// Evaluate ranks every scored query of every store with a fresh recall.Ranker over the store's
// memories (tuned by p, or the defaults when p is nil) and scores the rankings.
func Evaluate(ctx context.Context, stores []EvalStore, p *recall.Params) (EvalReport, error) {
	rep := EvalReport{Categories: map[string]Metrics{}}
	var all []Ranking
	byCat := map[int][]Ranking{}
	var lat []time.Duration
	var build time.Duration
	for _, s := range stores {
		r := recall.NewRanker(recall.DirSource{Dir: s.MemoryDir}, recall.RankerOptions{Params: p})
		t0 := time.Now()
		if _, _, err := r.Refresh(ctx); err != nil {
			return rep, err
		}
		build += time.Since(t0)
		for _, q := range s.Queries {
			if !q.Scored() {
				rep.Skipped++
				continue
			}
			t := time.Now()
			hits := r.Search(q.Query, EvalDepth)
			lat = append(lat, time.Since(t))
			rk := Ranking{Relevant: q.Relevant}
			for _, h := range hits {
				rk.Results = append(rk.Results, h.Memory.File)
			}
			all = append(all, rk)
			byCat[q.Category] = append(byCat[q.Category], rk)
		}
	}
	rep.Overall = Score(all)
	for c, rs := range byCat {
		rep.Categories[strconv.Itoa(c)] = Score(rs)
	}
	rep.BuildMS = ms(build)
	rep.Latency = Latency{P50: ms(percentile(lat, 0.50)), P99: ms(percentile(lat, 0.99))}
	return rep, nil
}
