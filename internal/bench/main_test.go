package bench

import (
	"os"
	"testing"
)

// TestMain removes the data the benchmarks write once per test binary run.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{benchFiles.dir, manyFiles.dir, synthDir, storesDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}
