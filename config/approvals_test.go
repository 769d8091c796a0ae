package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInsertAllowRule(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty file", "", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(echo:*)\"\n    ]\n  }\n}\n"},
		{"empty object", "{}\n", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(echo:*)\"\n    ]\n  }\n}\n"},
		{"other keys kept in order", "{\n  \"zeta\": 1,\n  \"alpha\": {\"x\": [1, 2]}\n}\n",
			"{\n  \"zeta\": 1,\n  \"alpha\": {\"x\": [1, 2]},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(echo:*)\"\n    ]\n  }\n}\n"},
		{"permissions without allow", "{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}, \"model\": \"m\"}",
			"{\"permissions\": {\n    \"allow\": [\"Bash(echo:*)\"],\"deny\": [\"Bash(rm:*)\"]}, \"model\": \"m\"}"},
		{"empty allow", "{\"permissions\": {\"allow\": []}}", "{\"permissions\": {\"allow\": [\"Bash(echo:*)\"]}}"},
		{"allow on lines", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\",\n      \"Bash(go test:*)\"\n    ]\n  }\n}\n",
			"{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\",\n      \"Bash(go test:*)\",\n      \"Bash(echo:*)\"\n    ]\n  }\n}\n"},
		{"allow on one line", "{\"permissions\": {\"allow\": [\"Read\"]}}", "{\"permissions\": {\"allow\": [\"Read\", \"Bash(echo:*)\"]}}"},
		{"byte order mark", "\ufeff{\"a\": 1}", "\ufeff{\"a\": 1,\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(echo:*)\"\n    ]\n  }}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := insertAllowRule([]byte(c.in), "Bash(echo:*)")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			var v any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(string(got), "\ufeff")), &v); err != nil {
				t.Errorf("result is not JSON: %v", err)
			}
			again, err := insertAllowRule(got, "Bash(echo:*)")
			if err != nil || again != nil {
				t.Errorf("adding the rule twice changed the file: %q, %v", again, err)
			}
		})
	}
	for _, bad := range []string{"[1]", "{\"permissions\": 3}", "{\"permissions\": {\"allow\": \"x\"}}", "{oops"} {
		if _, err := insertAllowRule([]byte(bad), "Bash(echo:*)"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestLocalAllowNeedsApproval: a Bash allow rule in settings.local.json counts only once the
// user approved it on the user's side; other local rules and the warning stay as they were.
func TestLocalAllowNeedsApproval(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	env := Env{Home: filepath.Join(root, "home")}
	local := LocalSettingsPath(proj)
	if err := AddAllowRule(local, "Bash(echo:*)"); err != nil {
		t.Fatal(err)
	}
	if err := AddAllowRule(local, "Bash(curl:*)"); err != nil {
		t.Fatal(err)
	}
	s, errs := env.Load(proj)
	if len(s.Permissions.Allow) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "2 allow rules ignored") {
		t.Fatalf("before approval: allow %q, errors %v", s.Permissions.Allow, errs)
	}
	if err := env.ApproveLocalRule(proj, "Bash(echo:*)"); err != nil {
		t.Fatal(err)
	}
	if err := env.ApproveLocalRule(proj, "Bash(echo:*)"); err != nil {
		t.Fatal(err)
	}
	if got, _ := env.Approvals(proj); len(got) != 1 {
		t.Errorf("approvals = %q, want one rule", got)
	}
	s, errs = env.Load(proj)
	if len(s.Permissions.Allow) != 1 || s.Permissions.Allow[0] != "Bash(echo:*)" {
		t.Errorf("after approval: allow %q, want only the approved rule", s.Permissions.Allow)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "1 allow rule ignored") || !strings.Contains(errs[0].Error(), "curl") {
		t.Errorf("after approval: errors %v, want the unapproved rule reported", errs)
	}
	// The approval is for this project's local file only: the same rule in the shared
	// project settings stays ignored.
	os.Remove(local)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(echo:*)"]}}`), 0o600)
	if s, _ := env.Load(proj); len(s.Permissions.Allow) != 0 {
		t.Errorf("an approval of a local rule allowed the project file's: %q", s.Permissions.Allow)
	}
}
