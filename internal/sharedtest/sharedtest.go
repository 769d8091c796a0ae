// Package sharedtest finds the evaluation data and real-world corpus that live beside the
// repository (../shared, relative to the directory holding go.mod) for tests. The data is read
// in place and never copied into the repository; when it is absent the test is skipped with a
// message that says what is missing.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root: the nearest directory at or above the working directory
// that holds go.mod. It skips the test when there is none.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root (go.mod) not found")
		}
		dir = parent
	}
}

// Dir returns ../shared/<elem...> beside the repository root, or skips the test when that
// path does not exist.
func Dir(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Root(t), "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data not found at ../shared/%s: %v", filepath.Join(elem...), err)
	}
	return p
}
