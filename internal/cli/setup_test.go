package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/tidwall/gjson"
)

// userSettings is a Claude Code settings file of a user who already has a hook of their own,
// in their own formatting.
const userSettings = `{
    "model": "opus",
    "hooks": {
        "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "my-logger" } ] } ]
    },
    "permissions": {"allow": ["Bash(ls:*)"]}
}
`

// TestSetupClaudeCode: setup adds strata's hooks and MCP server keeping every other byte and
// backing the old file up; a second run changes nothing; --uninstall gives back the files as
// they were, byte for byte.
func TestSetupClaudeCode(t *testing.T) {
	app, out, _ := testApp(t)
	settings := filepath.Join(app.Env.UserHome, ".claude", "settings.json")
	claudeJSON := filepath.Join(app.Env.UserHome, ".claude.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(userSettings), 0o600)
	os.WriteFile(claudeJSON, []byte(`{"numStartups": 3, "mcpServers": {}}`), 0o600)

	run := func(args ...string) string {
		t.Helper()
		out.Reset()
		if code := Run(app, append([]string{"setup", "claude-code"}, args...)); code != 0 {
			t.Fatalf("setup claude-code %v: exit %d", args, code)
		}
		return out.String()
	}
	run()
	doc, _ := os.ReadFile(settings)
	for _, ev := range setupHookEvents {
		if !strings.Contains(gjson.GetBytes(doc, "hooks."+ev).Raw, hookCommand(ev)) {
			t.Errorf("no strata hook for %s:\n%s", ev, doc)
		}
	}
	if got := gjson.GetBytes(doc, "hooks.UserPromptSubmit.0.hooks.0.command").String(); got != "my-logger" {
		t.Errorf("the user's own hook is gone: %s", doc)
	}
	for _, keep := range []string{`    "model": "opus",`, `"permissions": {"allow": ["Bash(ls:*)"]}`, `[ { "hooks": [ { "type": "command", "command": "my-logger" } ] } ,`} {
		if !bytes.Contains(doc, []byte(keep)) {
			t.Errorf("lost %q:\n%s", keep, doc)
		}
	}
	mcp, _ := os.ReadFile(claudeJSON)
	if gjson.GetBytes(mcp, "mcpServers.strata.args").Raw != `["mcp","--claude-code"]` || gjson.GetBytes(mcp, "numStartups").Int() != 3 {
		t.Errorf(".claude.json = %s", mcp)
	}
	backups, _ := filepath.Glob(filepath.Join(app.Env.Home, "backups", "setup", "*", "*"))
	var found bool
	for _, b := range backups {
		if old, _ := os.ReadFile(b); string(old) == userSettings {
			found = true
		}
	}
	if !found {
		t.Errorf("no backup holds the old settings (backups %v)", backups)
	}

	if again := run(); strings.Contains(again, "wrote") {
		t.Errorf("a second run changed files:\n%s", again)
	}

	run("--uninstall")
	if doc, _ := os.ReadFile(settings); string(doc) != userSettings {
		t.Errorf("after --uninstall the settings are not as they were:\n%s", doc)
	}
	if mcp, _ := os.ReadFile(claudeJSON); gjson.GetBytes(mcp, "mcpServers.strata").Exists() {
		t.Errorf(".claude.json still has strata: %s", mcp)
	}
}

// TestSetupRefusesBrokenJSON: a settings file that is not JSON is named with its line and left
// as it is.
func TestSetupRefusesBrokenJSON(t *testing.T) {
	app, _, errb := testApp(t)
	settings := filepath.Join(app.Env.UserHome, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	broken := "{\n  \"model\": \"opus\",\n  oops\n}\n"
	os.WriteFile(settings, []byte(broken), 0o600)
	if code := Run(app, []string{"setup", "claude-code"}); code == 0 {
		t.Fatal("setup accepted a broken settings file")
	}
	if !strings.Contains(errb.String(), settings+":3:") {
		t.Errorf("error does not name the file and line: %s", errb)
	}
	if doc, _ := os.ReadFile(settings); string(doc) != broken {
		t.Errorf("the broken file was changed: %s", doc)
	}
}

// TestSetupCodexAndGemini: both write their MCP configuration, keep the rest, do nothing the
// second time and take it out again with --uninstall.
func TestSetupCodexAndGemini(t *testing.T) {
	app, out, _ := testApp(t)
	codex := filepath.Join(app.Env.UserHome, ".codex", "config.toml")
	gemini := filepath.Join(app.Env.UserHome, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(codex), 0o700)
	os.MkdirAll(filepath.Dir(gemini), 0o700)
	const toml = "model = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	const gem = "{\n  \"theme\": \"dark\"\n}\n"
	os.WriteFile(codex, []byte(toml), 0o600)
	os.WriteFile(gemini, []byte(gem), 0o600)
	for _, tool := range []string{"codex", "gemini"} {
		for _, args := range [][]string{{}, {}, {"--uninstall"}} {
			out.Reset()
			if code := Run(app, append([]string{"setup", tool}, args...)); code != 0 {
				t.Fatalf("setup %s %v: exit %d", tool, args, code)
			}
		}
	}
	if b, _ := os.ReadFile(codex); string(b) != toml {
		t.Errorf("config.toml after install and uninstall:\n%s", b)
	}
	if b, _ := os.ReadFile(gemini); string(b) != gem {
		t.Errorf("gemini settings after install and uninstall:\n%s", b)
	}
	Run(app, []string{"setup", "codex"})
	b, _ := os.ReadFile(codex)
	if want := toml + "\n" + codexTable; string(b) != want {
		t.Errorf("config.toml = %q, want %q", b, want)
	}
	Run(app, []string{"setup", "gemini"})
	if b, _ := os.ReadFile(gemini); gjson.GetBytes(b, "mcpServers.strata.command").String() != "strata" || gjson.GetBytes(b, "theme").String() != "dark" {
		t.Errorf("gemini settings = %s", b)
	}
}

// TestSetupClaudeCodeProject: --scope project writes the project's .claude/settings.json and
// .mcp.json (readable by the team, to commit), not the user's files.
func TestSetupClaudeCodeProject(t *testing.T) {
	app, _, errb := testApp(t)
	proj := filepath.Join(app.Env.UserHome, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o700)
	if code := Run(app, []string{"setup", "claude-code", "--scope", "project", "--cwd", proj}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	real, _ := filepath.EvalSymlinks(proj)
	settings, err := os.ReadFile(filepath.Join(real, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), hookCommand("UserPromptSubmit")) {
		t.Errorf("project settings: %v %s", err, settings)
	}
	mcp, err := os.ReadFile(filepath.Join(real, ".mcp.json"))
	if err != nil || gjson.GetBytes(mcp, "mcpServers.strata.command").String() != "strata" {
		t.Errorf(".mcp.json: %v %s", err, mcp)
	}
	if fi, err := os.Stat(filepath.Join(real, ".mcp.json")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf(".mcp.json mode: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(app.Env.UserHome, ".claude.json")); err == nil {
		t.Error("--scope project wrote the user's .claude.json")
	}
}

// FuzzEditTOMLTable: putting strata's table into a config.toml without one and taking it out
// again gives back the file byte for byte, and the table is in between. (A file whose last line
// has no newline gets one: what separated the table cannot tell them apart.)
func FuzzEditTOMLTable(f *testing.F) {
	f.Add("model = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"\n")
	f.Add("")
	f.Add("a = 1\n")
	f.Add("[x]\n\n\n")
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, "[mcp_servers.strata]") || doc != "" && !strings.HasSuffix(doc, "\n") {
			return
		}
		in := editTOMLTable([]byte(doc), codexTable, false)
		if !strings.Contains(string(in), codexTable) {
			t.Fatalf("table not written: %q", in)
		}
		if again := editTOMLTable(in, codexTable, false); string(again) != string(in) {
			t.Fatalf("a second install changed %q to %q", in, again)
		}
		if out := editTOMLTable(in, codexTable, true); string(out) != doc {
			t.Fatalf("install then uninstall: %q, want %q", out, doc)
		}
	})
}

// FuzzSetupJSONRoundTrip: for a settings file that has no hooks and no strata server yet,
// setup then --uninstall gives it back byte for byte, whatever its formatting (except the
// spaces inside an empty object, "{ }", which come back as "{}"; and an empty "mcpServers",
// which --uninstall takes out with strata's entry, as it cannot tell it from one setup made).
func FuzzSetupJSONRoundTrip(f *testing.F) {
	f.Add(userSettings)
	f.Add("{}")
	f.Add("{\n  \"mcpServers\": {\"x\": {\"command\": \"y\"}},\n  \"a\": [1, 2]\n}\n")
	f.Add("  {\"model\":\"opus\"}  \n\n")
	f.Fuzz(func(t *testing.T, doc string) {
		if checkJSON("f", []byte(doc)) != nil || gjson.Get(doc, "hooks").Exists() || gjson.Get(doc, "mcpServers.strata").Exists() ||
			gjson.Get(doc, "mcpServers").Exists() && !gjson.Get(doc, "mcpServers").IsObject() ||
			len(gjson.Parse(doc).Map()) == 0 && !strings.Contains(doc, "{}") ||
			gjson.Get(doc, "mcpServers").IsObject() && len(gjson.Get(doc, "mcpServers").Map()) == 0 {
			return
		}
		dir := t.TempDir()
		app := &App{Out: io.Discard, Err: io.Discard, Env: config.Env{Home: filepath.Join(dir, "strata"), UserHome: dir},
			Now: func() time.Time { return time.Unix(0, 0) }}
		settings := filepath.Join(dir, "settings.json")
		os.WriteFile(settings, []byte(doc), 0o600)
		for _, uninstall := range []bool{false, true} {
			f := setupFlags{uninstall: uninstall}
			edits := []setupEdit{
				{path: settings, perm: 0o600, edit: func(d []byte) ([]byte, error) { return editHooks(d, uninstall) }},
				{path: settings, perm: 0o600, edit: func(d []byte) ([]byte, error) {
					return editJSONKey(d, "mcpServers.strata", map[string]any{"command": "strata"}, uninstall)
				}},
			}
			if err := applySetup(app, f, edits); err != nil {
				t.Fatalf("uninstall=%v: %v", uninstall, err)
			}
			if b, _ := os.ReadFile(settings); !uninstall && checkJSON("f", b) != nil {
				t.Fatalf("setup wrote invalid JSON: %q", b)
			}
		}
		if b, _ := os.ReadFile(settings); string(b) != doc {
			t.Fatalf("setup then --uninstall: %q, want %q", b, doc)
		}
	})
}
