package recall

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
)

func mem(file, name, desc, body string) memdir.Memory {
	return memdir.Memory{File: file, Name: name, Description: desc, Body: body, Type: memdir.TypeProject}
}

func files(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Memory.File)
	}
	return out
}

func TestSearchRanksByFields(t *testing.T) {
	ix := NewIndex(DefaultParams())
	ix.Put(mem("tabs.md", "prefer-tabs", "User prefers tabs over spaces", "Indent Go with tabs."))
	ix.Put(mem("ci.md", "ci-pipeline", "CI runs on every push", "The pipeline is slow on Mondays; tabs are irrelevant here."))
	ix.Put(mem("cn.md", "数据库", "项目使用PostgreSQL数据库", "迁移文件在 db/migrations 目录。"))
	ix.Put(mem("jp.md", "デプロイ", "金曜日にはデプロイしない", "本番環境が壊れたことがある。"))
	cases := []struct {
		q    string
		want string
	}{
		{"tabs or spaces?", "tabs.md"},
		{"Which CI pipeline runs on push", "ci.md"},
		{"数据库迁移", "cn.md"},
		{"postgresql", "cn.md"},
		{"デプロイは金曜日？", "jp.md"},
		{"ＴＡＢＳ", "tabs.md"},
		{"indenting", "tabs.md"},
		{"pipelnie", "ci.md"}, // a typo
	}
	for _, c := range cases {
		hits := ix.Search(c.q, 3)
		if len(hits) == 0 || hits[0].Memory.File != c.want {
			t.Errorf("Search(%q) = %v, want %s first", c.q, files(hits), c.want)
		}
	}
	if hits := ix.Search("the and of", 3); len(hits) != 0 {
		t.Errorf("stopword query returned %v", files(hits))
	}
	if hits := ix.Search("tabs", 0); hits != nil {
		t.Errorf("k=0 returned %v", files(hits))
	}
}

func TestCompoundsAreSplitAndJoined(t *testing.T) {
	ix := NewIndex(DefaultParams())
	ix.Put(mem("a.md", "trip", "We took a road trip to the coast", ""))
	ix.Put(mem("b.md", "cooking", "Dinner with friends", ""))
	ix.Put(mem("c.md", "laptop", "We bought a notebook", ""))
	ix.Put(mem("d.md", "misc", "Another road was closed", ""))
	if hits := ix.Search("roadtrip", 1); len(hits) == 0 || hits[0].Memory.File != "a.md" {
		t.Errorf("roadtrip → %v, want a.md", files(hits))
	}
	if hits := ix.Search("note book", 1); len(hits) == 0 || hits[0].Memory.File != "c.md" {
		t.Errorf("note book → %v, want c.md", files(hits))
	}
}

func TestPutReplacesAndRemoveForgets(t *testing.T) {
	ix := NewIndex(DefaultParams())
	ix.Put(mem("a.md", "alpha", "about zebras", ""))
	ix.Put(mem("a.md", "alpha", "about giraffes", ""))
	if ix.Len() != 1 {
		t.Fatalf("Len = %d, want 1", ix.Len())
	}
	if hits := ix.Search("zebras", 5); len(hits) != 0 {
		t.Errorf("old content still found: %v", files(hits))
	}
	if hits := ix.Search("giraffes", 5); len(hits) != 1 {
		t.Errorf("new content not found: %v", files(hits))
	}
	if !ix.Remove("a.md") || ix.Remove("a.md") {
		t.Error("Remove: want true then false")
	}
	if hits := ix.Search("giraffes", 5); len(hits) != 0 {
		t.Errorf("removed memory found: %v", files(hits))
	}
}

// TestIncrementalMatchesRebuild is a simulation: random puts and removes on one index must
// leave it ranking exactly like an index built from scratch from the final set.
func TestIncrementalMatchesRebuild(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "tabs", "spaces", "deploy", "friday", "数据", "据库", "猫", "road", "trip", "kids", "painting", "camping"}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		s := ""
		for range n {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	ix := NewIndex(DefaultParams())
	model := map[string]memdir.Memory{}
	for step := range 3000 {
		file := fmt.Sprintf("m%03d.md", rng.IntN(150))
		if rng.IntN(3) == 0 {
			ix.Remove(file)
			delete(model, file)
			continue
		}
		m := mem(file, text(2), text(5), text(1+rng.IntN(30)))
		ix.Put(m)
		model[file] = m
		if step%500 != 0 {
			continue
		}
		fresh := NewIndex(DefaultParams())
		for _, m := range model {
			fresh.Put(m)
		}
		for range 20 {
			q := text(1 + rng.IntN(4))
			got, want := ix.Search(q, 10), fresh.Search(q, 10)
			if diff := cmp.Diff(files(want), files(got)); diff != "" {
				t.Fatalf("step %d, query %q (-rebuilt +incremental):\n%s", step, q, diff)
			}
			for i := range got {
				if d := got[i].Score - want[i].Score; d > 1e-9 || d < -1e-9 {
					t.Fatalf("step %d, query %q: score %d differs: %v vs %v", step, q, i, got[i].Score, want[i].Score)
				}
			}
		}
	}
	if ix.Len() != len(model) {
		t.Fatalf("Len = %d, model has %d", ix.Len(), len(model))
	}
}

// TestConcurrentSearchAndUpdate runs searches while memories are put and removed (run it with
// -race): searches must never see a half-linked memory.
func TestConcurrentSearchAndUpdate(t *testing.T) {
	ix := NewIndex(DefaultParams())
	for i := range 50 {
		ix.Put(mem(fmt.Sprintf("m%d.md", i), "alpha", "alpha beta", "gamma 数据库"))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 500 {
			f := fmt.Sprintf("m%d.md", i%60)
			if i%3 == 0 {
				ix.Remove(f)
			} else {
				ix.Put(mem(f, "alpha", fmt.Sprintf("alpha beta w%d", i), "gamma 数据库 delta"))
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		for _, h := range ix.Search("alpha 数据 delta w7", 5) {
			if h.Memory.File == "" {
				t.Fatal("a hit without a file")
			}
		}
	}
}

// TestUnknownWordMatchesLongerForm: a query word no memory has, that neither splits nor is a
// misspelling, matches the known words that begin with all of it but its last letter; a
// shorter word does not.
func TestUnknownWordMatchesLongerForm(t *testing.T) {
	ix := NewIndex(DefaultParams())
	ix.Put(mem("a.md", "necklace", "A necklace from her grandmother in Sweden", ""))
	ix.Put(mem("b.md", "cooking", "Dinner with friends", ""))
	ix.Put(mem("c.md", "photos", "Photography of lakes", ""))
	if hits := ix.Search("grandma", 2); len(hits) != 1 || hits[0].Memory.File != "a.md" {
		t.Errorf("grandma → %v, want a.md only", files(hits))
	}
	if hits := ix.Search("photx", 2); len(hits) != 0 { // five letters: too short
		t.Errorf("photx → %v, want nothing", files(hits))
	}
}
