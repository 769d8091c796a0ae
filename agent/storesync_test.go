package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memsync"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// fakeSync records what the agent asks of its store sync.
type fakeSync struct {
	mu     sync.Mutex
	calls  []string
	report func(string)
}

func (f *fakeSync) Start(report func(string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls, f.report = append(f.calls, "start"), report
}

func (f *fakeSync) Nudge() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "nudge")
}

func (f *fakeSync) Close(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "close")
	return nil
}

func (f *fakeSync) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func TestStoreSyncStartedNudgedClosed(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	fs := &fakeSync{}
	a := f.agent(Options{Sync: fs})
	if got := fs.got(); !slices.Equal(got, []string{"start"}) {
		t.Fatalf("after New: %v, want [start]", got)
	}
	fs.report("memory sync team: origin/main could not be reached")
	f.srv.Script(llmtest.Text("one"), llmtest.Text("two"))
	for _, prompt := range []string{"hi", "again"} {
		if _, err := a.Run(context.Background(), prompt, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fs.got(); !slices.Equal(got, []string{"start", "nudge", "nudge", "close"}) {
		t.Fatalf("calls = %v, want start, a nudge per turn, close", got)
	}
	if w := a.Warnings(); !slices.Contains(w, "memory sync team: origin/main could not be reached") {
		t.Fatalf("the sync's failure line is not a warning: %q", w)
	}
}

// A session whose memory store is a clone of a team repository: what the agent saves reaches
// the remote through memsync.Background, without the turn waiting for it.
func TestStoreSyncWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	top := t.TempDir()
	cfg := filepath.Join(top, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Tester\n\temail = t@example.invalid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	remote, store := filepath.Join(top, "team.git"), filepath.Join(top, "team")
	git(top, "init", "-q", "--bare", "-b", "main", remote)
	git(top, "clone", "-q", remote, store)

	f := newFixture(t, llmtest.Anthropic)
	bg := memsync.NewBackground(memsync.BackgroundOptions{Dirs: []string{store}, Debounce: 50 * time.Millisecond, Poll: 20 * time.Millisecond, Options: memsync.Options{Environ: env}})
	a := f.agent(Options{Sync: bg, Open: workspace.Options{Mode: permission.ModeBypass, Settings: &config.Settings{AutoMemoryDirectory: store}}})
	f.srv.Script(
		llmtest.Blocks(llmtest.ToolUse("m1", "memory_save", `{"name":"release train","description":"Releases leave on Tuesdays","type":"project","body":"Tuesday."}`)),
		llmtest.Text("Saved."),
	)
	if _, err := a.Run(t.Context(), "Remember: releases leave on Tuesdays.", nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(git(top, "--git-dir", remote, "log", "--format=%B", "--all"), "release-train.md") {
		if time.Now().After(deadline) {
			t.Fatalf("the saved memory never reached the remote; warnings %q", a.Warnings())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
}
