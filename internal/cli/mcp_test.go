package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The HTTP session timeout is --session-timeout, else the user's mcpSessionTimeoutMinutes,
// else the server's default (0 here).
func TestMCPSessionTimeout(t *testing.T) {
	app, _, _ := testApp(t)
	if d := sessionTimeout(app, 0); d != 0 {
		t.Errorf("no flag, no setting: %v, want 0 (the server's default)", d)
	}
	if err := os.MkdirAll(app.Env.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app.Env.Home, "settings.json"), []byte(`{"mcpSessionTimeoutMinutes": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := sessionTimeout(app, 0); d != 7*time.Minute {
		t.Errorf("setting 7: %v, want 7m", d)
	}
	if d := sessionTimeout(app, 90*time.Second); d != 90*time.Second {
		t.Errorf("flag 90s over the setting: %v", d)
	}
	for _, args := range [][]string{{"mcp", "--session-timeout", "1m"}, {"mcp", "--http", "0", "--session-timeout", "-1s"}} {
		root := NewRoot(app)
		root.SetArgs(args)
		root.SetOut(app.Out)
		root.SetErr(app.Err)
		var ue usageError
		if err := root.Execute(); !errors.As(err, &ue) {
			t.Errorf("strata %v: %v, want a usage error", args, err)
		}
	}
}
