package agent

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// The memory extractor's shell runs no program a repository's configuration names: git
// pointed at another directory (whose config sets core.fsmonitor) is refused, and a plain
// git status in a repository whose own .git/config sets core.fsmonitor runs without it.
func TestExtractorGitRunsNoRepositoryProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t, llmtest.Anthropic)
	f.background = true
	if err := os.RemoveAll(filepath.Join(f.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, f.dir, "init", "-q")
	f.write("main.go", "package main\n")
	markHere := filepath.Join(filepath.Dir(f.dir), "fsmonitor-ran-here")
	gitIn(t, f.dir, "config", "core.fsmonitor", "touch "+markHere+"; false")
	// An attacker's git directory inside the project, with a config of its own.
	evil := filepath.Join(f.dir, "vendor", "evil")
	if err := os.MkdirAll(evil, 0o700); err != nil {
		t.Fatal(err)
	}
	gitIn(t, evil, "init", "-q", "--bare")
	markEvil := filepath.Join(filepath.Dir(f.dir), "fsmonitor-ran-evil")
	gitIn(t, evil, "config", "core.fsmonitor", "touch "+markEvil+"; false")
	gitIn(t, evil, "config", "core.bare", "false")

	bash := func(id, c string) conversation.Block {
		b, _ := json.Marshal(map[string]string{"command": c})
		return llmtest.ToolUse(id, "Bash", string(b))
	}
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass, Settings: extractSettings("")}})
	f.srv.Script(
		llmtest.Text("Understood."),
		llmtest.Blocks(
			bash("g1", "git --git-dir="+evil+" --work-tree=. status"),
			bash("g2", "git -C "+evil+" status"),
			bash("g3", "git --git-dir "+evil+" status"),
			bash("g4", "GIT_DIR="+evil+" git status"),
			bash("g5", "git status"),
		),
		llmtest.Text("Nothing to remember."),
	)
	if _, err := a.Run(t.Context(), "Look at the repository.", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the extractor's last request", func() bool { return len(f.srv.Requests()) == 3 })
	a.Close(t.Context())
	reqs := f.srv.Requests()
	res := toolResults(reqs[2])
	if len(res) != 5 {
		t.Fatalf("%d tool results, want 5: %q", len(res), res)
	}
	for i, want := range []string{"--git-dir=", "-C points git", "--git-dir points git", "environment assignment"} {
		if !strings.Contains(res[i], "read-only commands only") || !strings.Contains(res[i], want) {
			t.Errorf("call %d: %s; want a refusal (%s)", i+1, res[i], want)
		}
	}
	if !strings.Contains(res[4], "main.go") || strings.Contains(res[4], "Denied") {
		t.Errorf("git status: %s; want the status, main.go untracked", res[4])
	}
	for _, m := range []string{markHere, markEvil} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("%s exists: git ran a core.fsmonitor from a repository's config", filepath.Base(m))
		}
	}
}

// git runs git in dir with the test's own clean configuration.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
