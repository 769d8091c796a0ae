//go:build linux

package transcript

import (
	"testing"

	"github.com/strata-mem/strata/internal/fastio"
)

// TestListFstatatFallback runs the index tests with statx refused, as some seccomp filters
// do: listing then uses fstatat and lstat.
func TestListFstatatFallback(t *testing.T) {
	t.Cleanup(fastio.DisableStatx())
	t.Run("freshness", TestListIndexFreshness)
	t.Run("all", TestListAllIndex)
}
