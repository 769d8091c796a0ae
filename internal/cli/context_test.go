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
