package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	if err := Probe(filepath.Join(dir, "a", "b", "s.jsonl")); err != nil {
		t.Fatalf("writable dir: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the probe left %v behind", ents)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o600)
	if err := Probe(filepath.Join(file, "p", "s.jsonl")); err == nil {
		t.Error("a path under a regular file was found writable")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		if err := Probe(filepath.Join(ro, "p", "s.jsonl")); err == nil || !strings.Contains(err.Error(), "cannot create files") {
			t.Errorf("read-only dir: %v", err)
		}
	}
}
