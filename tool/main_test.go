package tool

import (
	"os"
	"testing"

	"github.com/strata-mem/strata/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper, so that the shell commands
// of these tests run confined as they do in strata.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
