package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strata-mem/strata/internal/fsutil"
)

// synthVocab builds a deterministic vocabulary: English-looking words made of syllables, and
// common-range Han characters.
type synthVocab struct {
	words    []string
	hanWords []string
	rng      *rand.Rand
	zipfW    *rand.Zipf
	zipfH    *rand.Zipf
}

func newSynthVocab(seed uint64) *synthVocab {
	// The vocabulary is the same for every seed, so queries drawn with one seed find the
	// words of a store written with another; only the draws depend on the seed.
	rng := rand.New(rand.NewPCG(42, 42))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "ve", "do", "pa", "ri", "zu", "ber", "con", "dex", "fil", "gor", "han", "lit", "mon", "port", "quen", "sto", "tra", "vin", "wel"}
	seen := map[string]bool{}
	v := &synthVocab{rng: rng}
	for len(v.words) < 6000 {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		suffix := []string{"", "", "", "s", "ing", "ed", "er", "ation"}[rng.IntN(8)]
		w := b.String() + suffix
		if !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	var chars []rune
	for r := rune(0x4E00); len(chars) < 3500; r += 1 + rune(rng.IntN(5)) {
		chars = append(chars, r)
	}
	// Chinese text is made of words, mostly of two characters: draw 6,000 of them.
	seenHan := map[string]bool{}
	for len(v.hanWords) < 6000 {
		n := []int{1, 2, 2, 2, 2, 3, 3, 4}[rng.IntN(8)]
		var b strings.Builder
		for range n {
			b.WriteRune(chars[rng.IntN(len(chars))])
		}
		if w := b.String(); !seenHan[w] {
			seenHan[w] = true
			v.hanWords = append(v.hanWords, w)
		}
	}
	rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v.rng = rng
	v.zipfW = rand.NewZipf(rng, 1.1, 2, uint64(len(v.words)-1))
	v.zipfH = rand.NewZipf(rng, 1.1, 2, uint64(len(v.hanWords)-1))
	return v
}

func (v *synthVocab) english(words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.words[v.zipfW.Uint64()])
		if i%12 == 11 {
			b.WriteString(".\n")
		}
	}
	return b.String()
}

func (v *synthVocab) chinese(chars int) string {
	var b strings.Builder
	for n, i := 0, 0; n < chars; i++ {
		w := v.hanWords[v.zipfH.Uint64()]
		b.WriteString(w)
		n += utf8.RuneCountInString(w)
		if i%12 == 11 {
			b.WriteString("。\n")
		}
	}
	return b.String()
}

// WriteSynthetic writes n memory files of about 1 KB each into dir: even-numbered ones in
// English, odd ones in Chinese, each with frontmatter. The content is deterministic for a
// seed. It is the data of the speed benchmarks.
func WriteSynthetic(dir string, n int, seed uint64) error {
	v := newSynthVocab(seed)
	if err := os.MkdirAll(dir, fsutil.DirMode); err != nil {
		return fmt.Errorf("recall: synthetic: %w", err)
	}
	for i := range n {
		var name, desc, body string
		if i%2 == 0 {
			name = fmt.Sprintf("note-%05d-%s", i, v.words[v.rng.IntN(len(v.words))])
			desc = v.english(12)
			body = v.english(140)
		} else {
			name = fmt.Sprintf("笔记-%05d", i)
			desc = v.chinese(25)
			body = v.chinese(300)
		}
		text := fmt.Sprintf("---\nname: %s\ndescription: %q\ntype: project\n---\n\n%s\n", name, strings.TrimSpace(strings.ReplaceAll(desc, "\n", " ")), body)
		p := filepath.Join(dir, synthFile(i))
		if err := os.WriteFile(p, []byte(text), fsutil.FileMode); err != nil {
			return fmt.Errorf("recall: synthetic: %w", err)
		}
	}
	return nil
}

// SyntheticQueries returns n queries drawn from the synthetic vocabulary: half English (two to
// five words), half Chinese (four to ten characters).
func SyntheticQueries(n int, seed uint64) []string {
	v := newSynthVocab(seed)
	out := make([]string, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = strings.TrimSuffix(v.english(2+v.rng.IntN(4)), ".\n")
		} else {
			out[i] = strings.TrimSuffix(v.chinese(4+v.rng.IntN(7)), "。\n")
		}
	}
	return out
}

// SpeedReport holds the speed figures of RunSpeed, in milliseconds.
type SpeedReport struct {
	Memories int     `json:"memories"`
	BuildMS  float64 `json:"build_ms"` // cold: read, parse and index every file
	// BuildCPUMS is the CPU time the cold build used (all threads): on a busy machine it
	// shows the work apart from the wait.
	BuildCPUMS float64 `json:"build_cpu_ms"`
	// Warm query latency over Queries searches.
	Queries  int     `json:"queries"`
	QueryP50 float64 `json:"query_p50_ms"`
	QueryP99 float64 `json:"query_p99_ms"`
	// First search after one file changed: ChangedUpdateMS when the writer names the file
	// (Ranker.Update), ChangedRefreshMS when a full Refresh must find it by stat.
	ChangedUpdateMS  float64 `json:"changed_update_ms"`
	ChangedRefreshMS float64 `json:"changed_refresh_ms"`
}

// RunSpeed measures the ranker on the memory dir dir (see WriteSynthetic): cold build, warm
// query latency, and the first query after one file changed (median over rounds rounds).
func RunSpeed(ctx context.Context, dir string, queries []string, rounds int) (SpeedReport, error) {
	var rep SpeedReport
	r := NewRanker(DirSource{Dir: dir}, RankerOptions{})
	t0, c0 := time.Now(), cpuTime()
	if _, _, err := r.Refresh(ctx); err != nil {
		return rep, err
	}
	rep.BuildMS, rep.BuildCPUMS = ms(time.Since(t0)), ms(cpuTime()-c0)
	rep.Memories = r.Index().Len()
	// Warm up once, then measure.
	for _, q := range queries {
		r.Search(q, 5)
	}
	lat := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		t := time.Now()
		r.Search(q, 5)
		lat = append(lat, time.Since(t))
	}
	rep.Queries = len(queries)
	rep.QueryP50, rep.QueryP99 = ms(percentile(lat, 0.5)), ms(percentile(lat, 0.99))

	infos, err := DirSource{Dir: dir}.Scan(ctx)
	if err != nil || len(infos) == 0 {
		return rep, err
	}
	var upd, ref []time.Duration
	for i := range max(rounds, 1) {
		file := infos[(i*7919)%len(infos)].File
		q := queries[i%len(queries)]
		if err := touch(filepath.Join(dir, file), i); err != nil {
			return rep, err
		}
		t := time.Now()
		if _, err := r.Update(ctx, file); err != nil {
			return rep, err
		}
		r.Search(q, 5)
		upd = append(upd, time.Since(t))

		if err := touch(filepath.Join(dir, file), i+1); err != nil {
			return rep, err
		}
		t = time.Now()
		if _, _, err := r.Refresh(ctx); err != nil {
			return rep, err
		}
		r.Search(q, 5)
		ref = append(ref, time.Since(t))
	}
	rep.ChangedUpdateMS = ms(percentile(upd, 0.5))
	rep.ChangedRefreshMS = ms(percentile(ref, 0.5))
	return rep, nil
}

// touch appends a line to a file, changing its size and mtime as a hand edit would.
func touch(path string, i int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	_, err = fmt.Fprintf(f, "edit %d\n", i)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	return nil
}

func synthFile(i int) string { return fmt.Sprintf("m%05d.md", i) }
