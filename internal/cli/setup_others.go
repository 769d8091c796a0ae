package cli

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func newSetupCodexCmd(app *App) *cobra.Command {
	var f setupFlags
	c := &cobra.Command{
		Use:   "codex",
		Short: "Add strata's MCP server to Codex's config.toml",
		Long: `Add strata mcp to Codex's configuration as the [mcp_servers.strata] table of
$CODEX_HOME/config.toml (default ~/.codex/config.toml). Every other byte is kept; a file that
changes is backed up first under $STRATA_HOME/backups/; running it again changes nothing;
--uninstall removes the table again.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.scope != "user" {
				return usagef("--scope: Codex reads MCP servers from its user configuration only")
			}
			home := app.Env.Var("CODEX_HOME")
			if home == "" {
				home = filepath.Join(app.Env.UserHome, ".codex")
			}
			return applySetup(app, f, []setupEdit{{path: filepath.Join(home, "config.toml"), perm: 0o600, text: true,
				edit: func(doc []byte) ([]byte, error) { return editTOMLTable(doc, codexTable, f.uninstall), nil }}})
		},
	}
	f.add(c, "user (Codex has no other)")
	return c
}

// codexTable is the table setup codex writes.
const codexTable = "[mcp_servers.strata]\ncommand = \"strata\"\nargs = [\"mcp\"]\n"

// editTOMLTable puts table (a header line and its keys) into doc in place of a table with the
// same header, or at the end; uninstall removes that table. Other lines are kept as they are.
func editTOMLTable(doc []byte, table string, uninstall bool) []byte {
	header := table[:strings.IndexByte(table, '\n')]
	lines := strings.SplitAfter(string(doc), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 && t == header {
			start = i
			continue
		}
		if start >= 0 && strings.HasPrefix(t, "[") {
			end = i
			break
		}
	}
	if start < 0 {
		if uninstall {
			return doc
		}
		var b bytes.Buffer
		b.Write(doc)
		if len(doc) > 0 && !bytes.HasSuffix(doc, []byte("\n")) {
			b.WriteByte('\n')
		}
		if len(doc) > 0 {
			b.WriteByte('\n') // a blank line before the table, which uninstall takes out with it
		}
		b.WriteString(table)
		return b.Bytes()
	}
	// The table runs to the next header; blank lines at its end belong to what follows.
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if !uninstall {
		return []byte(strings.Join(lines[:start], "") + table + strings.Join(lines[end:], ""))
	}
	rest := strings.Join(lines[end:], "")
	if strings.TrimSpace(rest) == "" && start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		start-- // the blank line that set the last table apart goes with it
	} else {
		for end < len(lines) && strings.TrimSpace(lines[end]) == "" && start > 0 {
			end++ // no double blank line where the table was
		}
		rest = strings.Join(lines[end:], "")
	}
	return []byte(strings.Join(lines[:start], "") + rest)
}

func newSetupGeminiCmd(app *App) *cobra.Command {
	var f setupFlags
	c := &cobra.Command{
		Use:   "gemini",
		Short: "Add strata's MCP server to Gemini CLI's settings.json",
		Long: `Add strata mcp to Gemini CLI's settings as mcpServers.strata: ~/.gemini/settings.json with
--scope user, .gemini/settings.json of this project with --scope project. Every other byte is
kept; a file that changes is backed up first under $STRATA_HOME/backups/; running it again
changes nothing; --uninstall removes the entry again.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var path string
			switch f.scope {
			case "user":
				path = filepath.Join(app.Env.UserHome, ".gemini", "settings.json")
			case "project":
				ws, err := openWorkspace(nil, app, f.cwd, "")
				if err != nil {
					return err
				}
				path = filepath.Join(ws.Tree(), ".gemini", "settings.json")
			default:
				return usagef("--scope is %q; give user or project", f.scope)
			}
			server := map[string]any{"command": "strata", "args": []string{"mcp"}}
			return applySetup(app, f, []setupEdit{{path: path, perm: 0o600, edit: func(doc []byte) ([]byte, error) {
				return editJSONKey(doc, "mcpServers.strata", server, f.uninstall)
			}}})
		},
	}
	f.add(c, "user or project")
	return c
}
