package extract

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/memdir"
)

// simWords are the vocabulary of random memories; no two draws of twelve share many bigrams.
var simWords = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike
november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu tabs mocks deploy
branch review merge release cache queue schema index parser token budget logs metrics alert build lint
배포 리뷰 브랜치 캐시 部署 缓存 分支 审查`)

var simLabels = []string{"**Why:**", "**How to apply:**", "관련:", "상태:", "Status:", "- **Why:**", "原因："}

func simSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = simWords[r.IntN(len(simWords))]
	}
	return strings.Join(w, " ")
}

// simBody is a memory in the recommended format: a fact, then generic labels with their own
// random text.
func simBody(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(simSentence(r, 12) + ".\n")
	for range 1 + r.IntN(3) {
		b.WriteString(simLabels[r.IntN(len(simLabels))] + " " + simSentence(r, 3+r.IntN(4)) + "\n")
	}
	return b.String()
}

type simMem struct {
	file, name, desc, body string
	age                    time.Duration
	role                   string // "unique", "dup" (an exact copy of its original), "orig", "superseded"
}

// A few thousand random small stores through dream: unrelated memories (sharing labels, old,
// without recall history) are never archived, exact duplicates always are (the older copy),
// and undoing the dream gives back every file and MEMORY.md byte for byte.
func TestDreamSimulation(t *testing.T) {
	runs := 2000
	if testing.Short() {
		runs = 200
	}
	for seed := range runs {
		r := rand.New(rand.NewPCG(uint64(seed), 12))
		simOne(t, seed, r)
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}

func simOne(t *testing.T, seed int, r *rand.Rand) {
	ctx := t.Context()
	n := 1 + r.IntN(6)
	var mems []simMem
	for i := range n {
		m := simMem{file: fmt.Sprintf("m%d.md", i), name: fmt.Sprintf("memory %d", i), desc: simSentence(r, 3),
			body: simBody(r), age: time.Duration(r.IntN(3000)) * day, role: "unique"}
		mems = append(mems, m)
		if r.IntN(4) == 0 { // an exact duplicate saved later under another name
			d := m
			d.file, d.name, d.role = fmt.Sprintf("m%d-copy.md", i), fmt.Sprintf("memory %d copy", i), "dup"
			d.age = max(m.age-day-time.Duration(r.IntN(10))*day, 0)
			if d.age == m.age {
				d.age = 0
			}
			mems[len(mems)-1].role = "orig"
			mems = append(mems, d)
		}
	}
	if r.IntN(4) == 0 { // a contradiction on one subject: the same name, a newer value
		name := "setting " + simWords[r.IntN(len(simWords))]
		key := []string{"port", "database", "포트", "端口"}[r.IntN(4)]
		age := time.Duration(10+r.IntN(1000)) * day
		mems = append(mems,
			simMem{file: "contra-old.md", name: name, desc: simSentence(r, 3), body: fmt.Sprintf("%s: %d\n**Why:** %s\n", key, 1000+r.IntN(1000), simSentence(r, 4)), age: age, role: "superseded"},
			simMem{file: "contra-new.md", name: name, desc: simSentence(r, 3), body: fmt.Sprintf("%s: %d\n**Why:** %s\n", key, 3000+r.IntN(1000), simSentence(r, 4)), age: age - 5*day, role: "unique"})
	}
	var extra []string
	if r.IntN(3) == 0 {
		extra = append(extra, "<!-- e.g. - [example](example.md) — an example -->")
	}
	if r.IntN(3) == 0 {
		extra = append(extra, "- [gone](gone.md) — removed by hand")
	}
	ms := make([]mem, len(mems))
	for i, m := range mems {
		ms[i] = mem{m.file, m.name, m.desc, m.body, m.age}
	}
	s := newStore(t, ms, extra...)
	before := snapshot(t, s.Dir())
	c, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	archived := map[string]Action{}
	for _, a := range c.Plan.Actions {
		if a.Done {
			archived[a.File] = a
		}
	}
	for _, m := range mems {
		a, gone := archived[m.file]
		switch m.role {
		case "unique", "dup":
			if gone {
				t.Errorf("seed %d: %s (%s) archived: %s\n%s", seed, m.file, m.role, a.Reason, m.body)
			}
		case "orig":
			if !gone || a.Kind != KindMerge || !a.Exact {
				t.Errorf("seed %d: %s has a newer exact copy but was not merged (%+v)", seed, m.file, a)
			}
		case "superseded":
			if !gone || a.Kind != KindSupersede || a.Survivor != "contra-new.md" {
				t.Errorf("seed %d: %s is contradicted by a newer memory of the same name but was not superseded (%+v)", seed, m.file, a)
			}
		}
	}
	for f, a := range archived {
		if a.Kind == KindDangling && f != "gone.md" {
			t.Errorf("seed %d: %s taken for a dangling line", seed, f)
		}
	}
	if _, err := UndoLastDream(ctx, s, t0.Add(day)); err != nil {
		t.Fatalf("seed %d: undo: %v", seed, err)
	}
	if diff := cmp.Diff(before, snapshot(t, s.Dir())); diff != "" {
		t.Errorf("seed %d: undo did not give the store back (-before +after):\n%s", seed, diff)
	}
}

// On a copy of real Claude Code memory directories with every file dated a year back and no
// recall history, a dry run plans no archive that is not a duplicate. (Index lines linking
// files that are not there are removed as dangling: that archives no memory, and restore puts
// the lines back.)
func TestDreamCorpusPlansOnlyDuplicates(t *testing.T) {
	corpus := sharedtest.Dir(t, "corpus", "memory")
	var dirs []string
	filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == memdir.IndexFile {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if len(dirs) == 0 {
		t.Skip("no memory directory in the corpus")
	}
	yearAgo := t0.Add(-365 * day)
	for _, src := range dirs {
		dst := t.TempDir()
		n := 0
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			to := filepath.Join(dst, rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(to, data, 0o600); err != nil {
				return err
			}
			n++
			return os.Chtimes(to, yearAgo, yearAgo)
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := memdir.Open(dst, memdir.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Consolidate(t.Context(), s, ConsolidateOptions{Now: t0, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.Plan.Actions {
			if a.Archive && a.Kind != KindMerge && a.Kind != KindDangling {
				t.Errorf("%s: plans to archive %s (%s): %s", src, a.File, a.Kind, a.Reason)
			}
		}
		if _, err := os.Stat(filepath.Join(dst, ".strata-watch.json")); err == nil {
			t.Errorf("%s: a dry run started watching the store", src)
		}
		t.Logf("%s: %d files, %d actions, %d archives", filepath.Base(filepath.Dir(filepath.Dir(src))), n, len(c.Plan.Actions), c.Plan.Archives())
	}
}
