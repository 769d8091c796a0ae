package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// setupFlags are the flags every setup subcommand shares.
type setupFlags struct {
	scope     string
	uninstall bool
	cwd       string
}

func (f *setupFlags) add(c *cobra.Command, scopes string) {
	c.Flags().StringVar(&f.scope, "scope", "user", "where to write: "+scopes)
	c.Flags().BoolVar(&f.uninstall, "uninstall", false, "take strata's entries out again (everything else is left as it is)")
	c.Flags().StringVar(&f.cwd, "cwd", "", "act as if run in this directory (selects the project for --scope project)")
}

// hookCommand is the command line setup installs for a Claude Code hook event; an entry whose
// command starts with "strata hook " is strata's.
func hookCommand(event string) string { return "strata hook " + event }

// setupHookEvents are the events setup claude-code installs, as the plugin's hooks.json does.
var setupHookEvents = []string{"UserPromptSubmit", "SessionStart", "PreCompact", "SessionEnd"}

func newSetupClaudeCodeCmd(app *App) *cobra.Command {
	var f setupFlags
	c := &cobra.Command{
		Use:   "claude-code",
		Short: "Install strata's hooks and MCP server in Claude Code's settings (without the plugin)",
		Long: `Write strata's hooks (strata hook UserPromptSubmit, SessionStart, PreCompact, SessionEnd) into Claude Code's
settings and its MCP server (strata mcp --claude-code) into Claude Code's MCP configuration:

  --scope user     ~/.claude/settings.json and ~/.claude.json (under CLAUDE_CONFIG_DIR when set)
  --scope project  .claude/settings.json and .mcp.json of this project, to commit for a team

Every other byte of those files is kept. A file that changes is backed up first under
$STRATA_HOME/backups/; running it again changes nothing; --uninstall takes strata's entries
out again. For people who use plugins, the plugin does the same: see docs/claude-code.md.`,
		Example: `  strata setup claude-code
  strata setup claude-code --scope project
  strata setup claude-code --uninstall`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			edits, err := claudeCodeEdits(app, f)
			if err != nil {
				return err
			}
			return applySetup(app, f, edits)
		},
	}
	f.add(c, "user or project")
	return c
}

// setupEdit is one file setup changes: its new content is made from the old by edit.
type setupEdit struct {
	path string
	perm fs.FileMode // for a new file
	edit func(doc []byte) ([]byte, error)
	text bool // not JSON (Codex's TOML): no JSON check, an empty file stays empty
}

// claudeCodeEdits returns the files setup claude-code changes for f's scope.
func claudeCodeEdits(app *App, f setupFlags) ([]setupEdit, error) {
	env := claudeCodeEnv(app.Env)
	var settings, mcpFile string
	perm := fs.FileMode(0o600)
	switch f.scope {
	case "user":
		settings = filepath.Join(env.Home, "settings.json")
		mcpFile = filepath.Join(env.UserHome, ".claude.json")
		if d := env.Var("CLAUDE_CONFIG_DIR"); d != "" {
			mcpFile = filepath.Join(d, ".claude.json")
		}
	case "project":
		ws, err := openWorkspace(nil, app, f.cwd, "")
		if err != nil {
			return nil, err
		}
		settings = filepath.Join(ws.Tree(), ".claude", "settings.json")
		mcpFile = filepath.Join(ws.Tree(), ".mcp.json")
		perm = 0o644 // files to commit
	default:
		return nil, usagef("--scope is %q; give user or project", f.scope)
	}
	server := map[string]any{"type": "stdio", "command": "strata", "args": []string{"mcp", "--claude-code"}, "env": map[string]string{}}
	return []setupEdit{
		{path: settings, perm: perm, edit: func(doc []byte) ([]byte, error) { return editHooks(doc, f.uninstall) }},
		{path: mcpFile, perm: perm, edit: func(doc []byte) ([]byte, error) { return editJSONKey(doc, "mcpServers.strata", server, f.uninstall) }},
	}, nil
}

// editHooks adds strata's hook to each of setupHookEvents in a Claude Code settings document,
// or (uninstall) removes every hook group of strata's, with the event keys and the hooks key
// that are left empty. What is already as wanted is not touched.
func editHooks(doc []byte, uninstall bool) ([]byte, error) {
	if uninstall {
		hooks := gjson.GetBytes(doc, "hooks")
		var err error
		for event, groups := range hooks.Map() {
			arr := groups.Array()
			left := len(arr)
			for i := len(arr) - 1; i >= 0; i-- {
				if isStrataGroup(arr[i]) {
					if doc, err = sjson.DeleteBytes(doc, "hooks."+jsonPathKey(event)+"."+strconv.Itoa(i)); err != nil {
						return nil, err
					}
					left--
				}
			}
			if left == 0 && len(arr) > 0 {
				if doc, err = sjson.DeleteBytes(doc, "hooks."+jsonPathKey(event)); err != nil {
					return nil, err
				}
			}
		}
		if h := gjson.GetBytes(doc, "hooks"); h.IsObject() && len(h.Map()) == 0 {
			return sjson.DeleteBytes(doc, "hooks")
		}
		return doc, nil
	}
	var err error
	for _, event := range setupHookEvents {
		have := false
		for _, g := range gjson.GetBytes(doc, "hooks."+event).Array() {
			for _, h := range g.Get("hooks").Array() {
				have = have || h.Get("command").String() == hookCommand(event)
			}
		}
		if have {
			continue
		}
		timeout := 10 // seconds, Claude Code's limit; strata's own budget is shorter
		if event == "SessionStart" {
			timeout = 30
		}
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(event), "timeout": timeout}}}
		if doc, err = sjson.SetBytes(doc, "hooks."+event+".-1", group); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// isStrataGroup reports whether a hook group runs strata hook.
func isStrataGroup(g gjson.Result) bool {
	for _, h := range g.Get("hooks").Array() {
		if strings.HasPrefix(h.Get("command").String(), "strata hook ") {
			return true
		}
	}
	return false
}

// jsonPathKey escapes a key for a gjson/sjson path.
func jsonPathKey(k string) string {
	r := strings.NewReplacer(`\`, `\\`, ".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(k)
}

// editJSONKey sets path to value in doc unless it already holds that value, or (uninstall)
// deletes it.
func editJSONKey(doc []byte, path string, value any, uninstall bool) ([]byte, error) {
	cur := gjson.GetBytes(doc, path)
	if uninstall {
		if !cur.Exists() {
			return doc, nil
		}
		doc, err := sjson.DeleteBytes(doc, path)
		if err != nil {
			return nil, err
		}
		// A parent left empty goes too, as when install made it.
		if i := strings.LastIndexByte(path, '.'); i > 0 {
			if p := gjson.GetBytes(doc, path[:i]); p.IsObject() && len(p.Map()) == 0 {
				return sjson.DeleteBytes(doc, path[:i])
			}
		}
		return doc, nil
	}
	want, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	if cur.Exists() && jsonEqual([]byte(cur.Raw), want) {
		return doc, nil
	}
	return sjson.SetRawBytes(doc, path, want)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// applySetup makes each edit: a file that would not change is left alone; one that would is
// backed up (when it exists) and replaced atomically. It prints what it did.
func applySetup(app *App, f setupFlags, edits []setupEdit) error {
	changed := 0
	for _, e := range edits {
		old, err := os.ReadFile(e.path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		doc := old
		switch {
		case len(bytes.TrimSpace(doc)) == 0 && f.uninstall:
			continue
		case e.text:
		case len(bytes.TrimSpace(doc)) == 0:
			doc = []byte("{}\n")
		default:
			if err := checkJSON(e.path, doc); err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
		}
		var lead, trail []byte // the space around the JSON object: sjson drops it
		if !e.text {
			i, j := bytes.IndexByte(doc, '{'), bytes.LastIndexByte(doc, '}')
			lead, doc, trail = doc[:i], doc[i:j+1:j+1], doc[j+1:]
		}
		doc, err = e.edit(doc)
		if err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		doc = append(append(append([]byte(nil), lead...), doc...), trail...)
		if exists && bytes.Equal(doc, old) {
			fmt.Fprintf(app.Out, "unchanged  %s\n", e.path)
			continue
		}
		perm := e.perm
		if exists {
			fi, err := os.Stat(e.path)
			if err != nil {
				return err
			}
			perm = fi.Mode().Perm()
			backup, err := backupFile(app, e.path, old)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Out, "backup     %s\n", backup)
		}
		if err := os.MkdirAll(filepath.Dir(e.path), 0o700); err != nil {
			return err
		}
		if err := fsutil.WriteFile(e.path, doc, perm); err != nil {
			return err
		}
		changed++
		fmt.Fprintf(app.Out, "wrote      %s\n", e.path)
	}
	if changed > 0 && !f.uninstall {
		if _, err := exec.LookPath("strata"); err != nil {
			fmt.Fprintln(app.Err, "strata: warning: strata is not on PATH, so Claude Code cannot run it: put it there (go install github.com/strata-mem/strata/cmd/strata@latest)")
		}
	}
	return nil
}

// checkJSON returns an error naming path and line when doc is not JSON.
func checkJSON(path string, doc []byte) error {
	var v any
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := bytes.Count(doc[:min(int(se.Offset), len(doc))], []byte("\n")) + 1
		return fmt.Errorf("%s:%d: not valid JSON (%v); fix it first, strata leaves it as it is", path, line, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %v; fix it first, strata leaves it as it is", path, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%s:1: not a JSON object; strata leaves it as it is", path)
	}
	return nil
}

// backupFile copies a file's old content to $STRATA_HOME/backups/setup/<time>/ and returns
// the copy's path.
func backupFile(app *App, path string, old []byte) (string, error) {
	dir := filepath.Join(app.Env.Home, "backups", "setup", app.Now().UTC().Format("20060102T150405.000000000Z"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, config.Slug(path))
	return p, fsutil.WriteFile(p, old, 0o600)
}
