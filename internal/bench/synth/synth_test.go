package synth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/transcript"
)

func TestSession(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := Session(p, SessionOptions{SessionID: "s", CWD: "/w", Size: 300_000, Boundaries: []float64{0.3, 0.9}, Title: "合成", Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f, err := transcript.ReadFile(t.Context(), p, transcript.ReadOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Skipped() != 0 || len(f.Problems) != 0 || len(f.Entries) != f.Lines {
		t.Fatalf("%d entries of %d lines, problems: %v", len(f.Entries), f.Lines, f.Problems)
	}
	if f.Size < 300_000 || f.Size > 330_000 {
		t.Errorf("size %d, want about 300,000", f.Size)
	}
	s := transcript.FromFile(f)
	if s.Boundary < 0 || len(s.Problems) != 0 {
		t.Fatalf("boundary %d, problems %v", s.Boundary, s.Problems)
	}
	if _, err := transcript.Messages(s.Chain); err != nil {
		t.Fatal(err)
	}
	info, err := transcript.Stat(p)
	if err != nil || info.Title != "合成" || info.FirstPrompt == "" {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	part, err := transcript.Load(t.Context(), p, transcript.ReadOptions{LargeFile: 1000})
	if err != nil || part.File.Start == 0 || part.Boundary != 0 {
		t.Fatalf("partial load: start %d boundary %d err %v", part.File.Start, part.Boundary, err)
	}
}

func TestSessionDeterministic(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, seed uint64) []byte {
		p := filepath.Join(dir, name)
		if err := Session(p, SessionOptions{SessionID: "d", CWD: "/w", Size: 50_000, Boundaries: []float64{0.5}, Title: "a <b> & c", Seed: seed}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, b, c := write("a.jsonl", 1), write("b.jsonl", 1), write("c.jsonl", 2)
	if string(a) != string(b) {
		t.Error("two sessions with the same options differ")
	}
	if string(a) == string(c) {
		t.Error("sessions with different seeds are the same")
	}
	if !strings.Contains(string(a), `"aiTitle":"a <b> & c"`) {
		t.Error("the title is not written as the journal writes it (without HTML escapes)")
	}
}

func TestMemories(t *testing.T) {
	dir := t.TempDir()
	const n = 40
	if err := Memories(dir, n, 1); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != n {
		t.Fatalf("%d files, %v; want %d", len(entries), err, n)
	}
	var han, latin int
	for i := range n {
		data, err := os.ReadFile(filepath.Join(dir, MemoryFile(i)))
		if err != nil {
			t.Fatal(err)
		}
		m, diags := memdir.ParseFile(filepath.Join(dir, MemoryFile(i)), MemoryFile(i), data)
		if len(diags) != 0 || m.Name == "" || m.Description == "" || m.Type != "project" {
			t.Fatalf("%s: %+v, %v", MemoryFile(i), m, diags)
		}
		if len(data) < 700 || len(data) > 2000 {
			t.Errorf("%s is %d bytes, want about 1 KB", MemoryFile(i), len(data))
		}
		if strings.ContainsRune(m.Name, '笔') {
			han++
		} else {
			latin++
		}
	}
	if han != n/2 || latin != n/2 {
		t.Errorf("%d Chinese and %d English memories, want half each", han, latin)
	}
	again := t.TempDir()
	if err := Memories(again, n, 1); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, n - 1} {
		a, _ := os.ReadFile(filepath.Join(dir, MemoryFile(i)))
		b, _ := os.ReadFile(filepath.Join(again, MemoryFile(i)))
		if string(a) != string(b) {
			t.Errorf("%s differs between two runs with one seed", MemoryFile(i))
		}
	}
}

func TestQueries(t *testing.T) {
	q := Queries(20, 2)
	if len(q) != 20 || !slices.Equal(q, Queries(20, 2)) {
		t.Fatalf("Queries(20, 2) = %q, not deterministic or wrong length", q)
	}
	if slices.Equal(q, Queries(20, 3)) {
		t.Error("different seeds give the same queries")
	}
	for i, s := range q {
		if s == "" || strings.ContainsAny(s, "\n。") {
			t.Errorf("query %d = %q", i, s)
		}
		if han := strings.ContainsFunc(s, func(r rune) bool { return r >= 0x4E00 }); han != (i%2 == 1) {
			t.Errorf("query %d = %q: odd queries are Chinese, even ones English", i, s)
		}
	}
}

func TestRepo(t *testing.T) {
	dir := t.TempDir()
	l, err := Repo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Levels != 8 || l.Siblings != 2000 || !strings.HasPrefix(l.DeepFile, l.Cwd+string(filepath.Separator)) {
		t.Fatalf("layout %+v", l)
	}
	siblings, _ := filepath.Glob(filepath.Join(l.Root, "sibling*"))
	if len(siblings) != l.Siblings {
		t.Errorf("%d sibling dirs, want %d", len(siblings), l.Siblings)
	}
	env := config.Env{Home: filepath.Join(dir, "home", ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")}
	ctx := context.Background()
	set, err := instructions.Load(ctx, l.Cwd, instructions.Options{Env: env, ApprovedImports: []string{l.Root}}) // the parents' fragments lie outside the cwd
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Sources()); n != 2*l.Levels {
		t.Errorf("loaded %d pieces, want a CLAUDE.md and its import per level (%d)", n, 2*l.Levels)
	}
	if got := set.Touch(ctx, l.DeepFile); len(got) != 0 {
		t.Errorf("a touch of the deep file added %d pieces, want none", len(got))
	}
}
