package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strata context fails when --cwd cannot be listed: what it would show is not what a session
// there loads. (Root reads any directory, so the case needs another user; run the test binary
// as one to see it.)
func TestContextUnreadableCwd(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can read a mode-000 directory")
	}
	app, out, errb := testApp(t)
	dir := filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(dir, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if code := Run(app, []string{"context", "--cwd", dir}); code == 0 || !strings.Contains(errb.String(), dir+": cannot be read") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errb, out)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := Run(app, []string{"context", "--cwd", dir}); code != 0 {
		t.Errorf("readable again: exit %d, stderr %q", code, errb)
	}
}

// strata context prints instruction text and file names from the repository: escape sequences
// in them (a window title, a screen clear) are removed from the listing, while --json keeps
// the bytes.
func TestContextCleansTerminalText(t *testing.T) {
	app, out, errb := testApp(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "rules"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"CLAUDE.md": "hello \x1b]0;pwned\x07 \x1b[2J 中文\n",
		filepath.Join(".claude", "rules", "b\x1b[1mad.md"): "rule\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code := Run(app, []string{"context", "--cwd", dir, "--touch", "x\x1b[2J"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if s := out.String(); strings.Contains(s, "\x1b") || !strings.Contains(s, "hello") || !strings.Contains(s, "中文") || !strings.Contains(s, "bad.md") {
		t.Errorf("listing holds an escape sequence or lost text:\n%q", s)
	}
	out.Reset()
	if code := Run(app, []string{"context", "--cwd", dir, "--json"}); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), `b\u001b[1mad.md`) {
		t.Errorf("--json lost the bytes of the file name:\n%s", out)
	}
}
