//go:build linux

package transcript

import "testing"

// TestListFstatatFallback runs the index tests with statx refused, as some seccomp filters
// do: listing then uses fstatat and lstat.
func TestListFstatatFallback(t *testing.T) {
	noStatx.Store(true)
	t.Cleanup(func() { noStatx.Store(false) })
	t.Run("freshness", TestListIndexFreshness)
	t.Run("all", TestListAllIndex)
}
