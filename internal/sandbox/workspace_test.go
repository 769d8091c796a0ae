package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/sandbox"
)

// Ordinary work runs unchanged under the Bash tool's workspace-write policy: a Go module
// builds and tests (build and module caches writable), git reads the repository, a pipeline
// runs. The times, confined and not, are logged (go test -v) for the docs.
func TestWorkspaceWriteRunsOrdinaryCommands(t *testing.T) {
	st := need(t)
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	for _, tool := range []string{"go", "git", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	project := t.TempDir()
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(project, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module scratch\n\ngo 1.22\n")
	write("a.go", "package scratch\n\nfunc Double(n int) int { return 2 * n }\n")
	write("a_test.go", "package scratch\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(Double(2))\n\t}\n}\n")
	home, _ := os.UserHomeDir()
	for _, c := range []string{"git init -q", "git add -A", "git -c user.email=a@b -c user.name=a commit -qm one"} {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir = project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
	}
	p := sandbox.Workspace(project, project, home, nil, false, os.Environ())
	for _, c := range []struct{ command, want string }{
		{"go build ./... && go vet ./... && go test -count=1 ./...", "ok  \tscratch"},
		{"git status --short && git log --oneline | wc -l && git diff HEAD --stat", "1"},
		{"ls | sort | grep -c go", "3"},
		{"echo x > out.txt && mkdir -p build && cp out.txt build/ && rm out.txt && ls build", "out.txt"},
	} {
		run := func(confined bool) (string, time.Duration) {
			var cmd *exec.Cmd
			if confined {
				var err error
				if cmd, err = sandbox.Command(t.Context(), p, "sh", "-c", c.command); err != nil {
					t.Fatal(err)
				}
			} else {
				cmd = exec.CommandContext(t.Context(), "sh", "-c", c.command)
			}
			cmd.Dir = project
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s (confined %v): %v\n%s", c.command, confined, err, out)
			}
			return string(out), time.Since(start)
		}
		_, plain := run(false)
		out, boxed := run(true)
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: output %q, want it to contain %q", c.command, out, c.want)
		}
		t.Logf("%-75s unconfined %6.1f ms, confined %6.1f ms (namespaces %v)", c.command, ms(plain), ms(boxed), st.Namespaces)
	}
	if _, err := os.Stat(filepath.Join(project, ".git", "HEAD")); err != nil {
		t.Fatal(err)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
