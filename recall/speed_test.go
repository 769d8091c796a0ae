package recall

import (
	"os"
	"testing"
)

func TestSpeedReport(t *testing.T) {
	if os.Getenv("SPEED") == "" {
		t.Skip()
	}
	dir := t.TempDir()
	if err := WriteSynthetic(dir, 10000, 1); err != nil {
		t.Fatal(err)
	}
	rep, err := RunSpeed(t.Context(), dir, SyntheticQueries(1000, 2), 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep)
}
