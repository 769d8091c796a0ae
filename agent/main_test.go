package agent

import (
	"os"
	"testing"

	"github.com/strata-mem/strata/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper, so the Bash tool's and the
// forks' commands run confined in these tests as they do in strata.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
