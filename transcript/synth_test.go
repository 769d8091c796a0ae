package transcript

import (
	"path/filepath"
	"testing"
)

func TestSynthesize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := Synthesize(p, SynthOptions{SessionID: "s", CWD: "/w", Size: 300_000, Boundaries: []float64{0.3, 0.9}, Title: "合成", Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f := checkFile(t, p)
	if f.Skipped() != 0 || len(f.Problems) != 0 {
		t.Fatalf("problems: %v", f.Problems)
	}
	s := FromFile(f)
	if s.Boundary < 0 || len(s.Problems) != 0 {
		t.Fatalf("boundary %d, problems %v", s.Boundary, s.Problems)
	}
	if _, err := Messages(s.Chain); err != nil {
		t.Fatal(err)
	}
	info, err := Stat(p)
	if err != nil || info.Title != "合成" || info.FirstPrompt == "" {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	part, err := Load(t.Context(), p, ReadOptions{LargeFile: 1000})
	if err != nil || part.File.Start == 0 || part.Boundary != 0 {
		t.Fatalf("partial load: start %d boundary %d err %v", part.File.Start, part.Boundary, err)
	}
}
