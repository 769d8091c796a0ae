package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/strata-mem/strata/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the helper's re-exec of this binary
	testscript.Main(m, map[string]func(){
		"strata": func() { sandbox.Main(); os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs testdata/script/*.txtar: end-to-end tests of every command. Each script gets
// HOME, STRATA_HOME and STRATA_MANAGED_DIR inside its own work dir, so nothing on the machine
// running the tests is read or written.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("..", "..", "testdata", "script"),
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			e.Setenv("HOME", home)
			e.Setenv("STRATA_HOME", filepath.Join(home, ".strata"))
			e.Setenv("STRATA_MANAGED_DIR", filepath.Join(e.WorkDir, "managed"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache")) // the sessions list index
			e.Setenv("STRATA_MEMORY_DIR", "")
			e.Setenv("EDITOR", "")
			// Background forks (memory extraction, session notes) would take the replies a
			// script gives llmfake; the scripts that test them set it back to "".
			e.Setenv("STRATA_NO_BACKGROUND", "1")
			for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "STRATA_PROVIDER", "STRATA_MODEL", "STRATA_SMALL_MODEL"} {
				e.Setenv(k, "")
			}
			return os.MkdirAll(home, 0o700)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// llmfake: a fake model server for the script (see llmfake_test.go).
			"llmfake": llmfakeCmd,
			// exit N prog args...: run prog and require exit code N (stdout/stderr are kept
			// for the stdout and stderr commands that follow).
			"exit": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exit N prog [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exit: bad code %q", args[0])
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exit: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}
