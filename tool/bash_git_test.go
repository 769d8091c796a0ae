package tool

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/toolcall"
)

// In a repository whose configuration names a program for a reading command (an external
// diff, a textconv driver, a clean filter, a pager), the unattended shell refuses to run git
// at all, and says which key; the main session's shell (attended) is not changed.
func TestUnattendedShellRefusesGitDrivers(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, key := range []string{"diff.external", "diff.evil.textconv", "diff.evil.command", "filter.evil.clean",
		"filter.evil.process", "pager.log", "gpg.program", "gpg.ssh.program"} {
		t.Run(key, func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			mark := filepath.Join(t.TempDir(), "ran")
			gitIn(t, dir, "config", key, "touch "+mark)
			if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* diff=evil filter=evil\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			fe := &forkEnv{dir: dir, timeout: time.Minute}
			out, err := runBash(t.Context(), fe, &toolcall.Bash{Command: "ls && git diff"})
			if err == nil || !strings.Contains(err.Error(), "sets "+strings.ToLower(key)) {
				t.Errorf("git diff with %s set: %q, %v; want a refusal naming the key", key, out, err)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Errorf("git ran %s", key)
			}
			if out, err := runBash(t.Context(), fe, &toolcall.Bash{Command: "ls -a"}); err != nil || !strings.Contains(out, ".gitattributes") {
				t.Errorf("a command without git was refused too: %q, %v", out, err)
			}
		})
	}
}

// unattendedEnv drops every GIT_ variable that could point git elsewhere and turns off the
// system and global configuration.
func TestUnattendedEnv(t *testing.T) {
	env := unattendedEnv([]string{"HOME=/h", "GIT_DIR=/evil", "GIT_CONFIG_GLOBAL=/evil/config", "GIT_EXEC_PATH=/evil",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=evil", "PAGER=evil", "PATH=/bin"})
	for _, want := range []string{"HOME=/h", "PATH=/bin", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_PAGER=cat", "PAGER=cat", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false"} {
		if !slices.Contains(env, want) {
			t.Errorf("unattendedEnv lacks %s: %q", want, env)
		}
	}
	for _, bad := range []string{"GIT_DIR=/evil", "GIT_CONFIG_GLOBAL=/evil/config", "GIT_EXEC_PATH=/evil", "PAGER=evil",
		"GIT_CONFIG_VALUE_0=evil"} {
		if slices.Contains(env, bad) {
			t.Errorf("unattendedEnv keeps %s", bad)
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
