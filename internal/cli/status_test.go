package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatus: without a model, status says what is off because of it; it counts Claude Code's
// memories and what waits in their inbox, finds strata's hooks once setup installed them, and
// shows the hook log's last line.
func TestStatus(t *testing.T) {
	f := newHookFixture(t)
	vars := map[string]string{}
	f.app.Env.Getenv = func(k string) string { return vars[k] }
	f.addMemory(t, "deploy.md", "how we ship", "Tag, then push.", time.Hour)
	if err := os.MkdirAll(filepath.Join(f.memDir, ".inbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	staged := "---\nname: port\ndescription: the staging port\ntype: project\n---\n7421\n"
	if err := os.WriteFile(filepath.Join(f.memDir, ".inbox", "port.md"), []byte(staged), 0o600); err != nil {
		t.Fatal(err)
	}
	status := func(args ...string) string {
		t.Helper()
		f.app.Out.(interface{ Reset() }).Reset()
		if code := Run(f.app, append([]string{"status", "--cwd", f.proj}, args...)); code != 0 {
			t.Fatalf("exit %d: %s", code, f.errb.String())
		}
		return f.out.String()
	}
	out := status()
	for _, want := range []string{"model        none: no model provider is configured", "memory extraction (in chat and at Claude",
		"claude-code  " + f.memDir + "  1 memories, 1 waiting in the inbox", "strata's hooks: not installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	vars["ANTHROPIC_API_KEY"], vars["STRATA_PROVIDER"], vars["STRATA_MODEL"] = "k", "anthropic", "claude-test"
	if code := Run(f.app, []string{"setup", "claude-code", "--scope", "project", "--cwd", f.proj}); code != 0 {
		t.Fatalf("setup: %s", f.errb.String())
	}
	hookLog(f.app, "UserPromptSubmit", os.ErrDeadlineExceeded)
	var r statusReport
	if err := json.Unmarshal([]byte(status("--json")), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Model.Configured || r.Model.Provider != "anthropic" || r.Model.Model != "claude-test" {
		t.Errorf("model = %+v", r.Model)
	}
	if len(r.ClaudeCode.Hooks) != 1 || r.ClaudeCode.Hooks[0] != filepath.Join(f.proj, ".claude", "settings.json") {
		t.Errorf("hooks = %v, want the project's settings", r.ClaudeCode.Hooks)
	}
	if len(r.Logs) != 1 || !strings.Contains(r.Logs[0].Last, "UserPromptSubmit") {
		t.Errorf("logs = %+v, want the hook log's line", r.Logs)
	}
}
