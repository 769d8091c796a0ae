package bench

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestScore(t *testing.T) {
	rs := []Ranking{
		// First relevant at rank 1; 1 of 2 relevant in the top 5.
		{Results: []string{"a", "b", "c"}, Relevant: []string{"a", "z"}},
		// First relevant at rank 3; both in the top 5.
		{Results: []string{"x", "y", "a", "b"}, Relevant: []string{"a", "b"}},
		// First relevant at rank 7: a hit@10 only.
		{Results: []string{"1", "2", "3", "4", "5", "6", "a"}, Relevant: []string{"a"}},
		// Never found.
		{Results: []string{"x"}, Relevant: []string{"a"}},
	}
	want := Metrics{
		N:     4,
		Hit1:  1.0 / 4,
		Hit5:  2.0 / 4,
		Hit10: 3.0 / 4,
		Rec5:  (0.5 + 1 + 0 + 0) / 4,
		MRR:   (1 + 1.0/3 + 1.0/7 + 0) / 4,
	}
	got := Score(rs)
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Score (-want +got):\n%s", diff)
	}
	if z := Score(nil); z != (Metrics{}) {
		t.Errorf("Score(nil) = %+v, want zero", z)
	}
}

func TestEvaluateTinySet(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s1")
	writeMem(t, filepath.Join(store, "memories"), "tabs.md", "prefer-tabs", "user", "The user prefers tabs for indentation", "Always indent Go code with tabs.")
	writeMem(t, filepath.Join(store, "memories"), "deploy.md", "deploy-friday", "feedback", "Never deploy on Fridays", "Deploys on Friday broke production twice.")
	writeMem(t, filepath.Join(store, "memories"), "db.md", "database", "project", "The service uses PostgreSQL 16", "Migrations live in db/migrations.")
	queries := `{"id":"q1","query":"how should I indent code?","relevant":["tabs.md"],"category":4,"adversarial":false}
{"id":"q2","query":"can we deploy on friday","relevant":["deploy.md"],"category":2,"adversarial":false}
{"id":"q3","query":"which database","relevant":[],"category":4,"adversarial":false}
{"id":"q4","query":"is the sky green","relevant":["db.md"],"category":5,"adversarial":true}
`
	if err := os.WriteFile(filepath.Join(store, "queries.jsonl"), []byte(queries), 0o600); err != nil {
		t.Fatal(err)
	}
	stores, err := LoadEvalSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(t.Context(), stores, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.N != 2 || rep.Skipped != 2 {
		t.Fatalf("scored %d, skipped %d; want 2 and 2", rep.Overall.N, rep.Skipped)
	}
	if rep.Overall.Hit1 != 1 || math.Abs(rep.Overall.MRR-1) > 1e-9 {
		t.Errorf("overall = %+v, want perfect", rep.Overall)
	}
	if rep.Categories["4"].N != 1 || rep.Categories["2"].N != 1 {
		t.Errorf("categories = %+v", rep.Categories)
	}
	// A single store can be named directly too.
	one, err := LoadEvalSet(store)
	if err != nil || len(one) != 1 {
		t.Fatalf("LoadEvalSet(store) = %d stores, %v", len(one), err)
	}
	if _, err := LoadEvalSet(t.TempDir()); err == nil {
		t.Error("LoadEvalSet of an empty dir: want an error")
	}
}

// writeMem writes a memory file with frontmatter.
func writeMem(t testing.TB, dir, file, name, typ, desc, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	text := "---\nname: " + name + "\ndescription: " + desc + "\ntype: " + typ + "\n---\n\n" + body + "\n"
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
