package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/workspace"
	"github.com/tidwall/gjson"
)

func newStatusCmd(app *App) *cobra.Command {
	var cwd string
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Show the model, the memory stores, Claude Code's side and the background work's last words",
		Long: `Status says, for the project of the working directory: which model is configured (and,
when none is, what is off because of it: the agent, memory extraction in strata chat and at
Claude Code's SessionEnd, the dream's model steps); each memory store with its memories and
what waits in its inbox; Claude Code's memory of the project and whether strata's hooks are
installed there (plugin or strata setup claude-code); and the last line of each background
log (hook.log, extract.log, dream.log).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			r, err := readStatus(cmdCtx(c), app, cwd)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(app.Out, r)
			}
			r.write(app.Out)
			return nil
		},
	}
	c.Flags().StringVar(&cwd, "cwd", "", "act as if run in this directory (selects the project)")
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// statusReport is what strata status says.
type statusReport struct {
	Project    string        `json:"project"`
	Model      modelStatus   `json:"model"`
	Stores     []storeStatus `json:"stores"`
	ClaudeCode claudeStatus  `json:"claude_code"`
	Logs       []logStatus   `json:"logs"`
}

type modelStatus struct {
	Configured bool   `json:"configured"`
	Provider   string `json:"provider,omitempty"`
	Model      string `json:"model,omitempty"`
	Problem    string `json:"problem,omitempty"` // why none is configured
}

type storeStatus struct {
	Name     string `json:"name"`
	Dir      string `json:"dir"`
	Memories int    `json:"memories"`
	Inbox    int    `json:"inbox"`
	Writable bool   `json:"writable"`
	Missing  bool   `json:"missing,omitempty"`
	Problem  string `json:"problem,omitempty"`
}

type claudeStatus struct {
	Home  string       `json:"home"`
	Store *storeStatus `json:"store,omitempty"` // nil: Claude Code has no memory of the project
	Hooks []string     `json:"hooks"`           // where strata's hooks are installed: "plugin strata@…", a settings file
}

type logStatus struct {
	File string `json:"file"`
	Last string `json:"last"`
}

func readStatus(ctx context.Context, app *App, cwd string) (statusReport, error) {
	ws, err := openWorkspace(ctx, app, cwd, "")
	if err != nil {
		return statusReport{}, err
	}
	r := statusReport{Project: ws.Root(), Stores: []storeStatus{}, Logs: []logStatus{}}
	if cfg, err := ws.LLMConfig(); err != nil {
		r.Model.Problem = err.Error()
	} else {
		r.Model = modelStatus{Configured: true, Provider: cfg.Provider, Model: cfg.Model}
	}
	if ws.AutoMemory() {
		stores, err := ws.Stores()
		if err != nil {
			return r, err
		}
		for _, s := range stores {
			st := storeStatusOf(ctx, s.Store, s.Name)
			st.Writable, st.Missing = s.Writable, s.Missing
			r.Stores = append(r.Stores, st)
		}
	}

	cc := claudeCodeEnv(app.Env)
	r.ClaudeCode = claudeStatus{Home: cc.Home, Hooks: strataHooks(cc, ws.Tree())}
	if ccws, err := workspace.Open(ctx, workspace.Options{Cwd: ws.Cwd(), Env: cc, Now: app.Now}); err == nil && ccws.AutoMemory() {
		if dir, err := ccws.MemoryDir(); err == nil && dir != "" {
			if _, err := os.Stat(dir); err == nil {
				if st, err := memdir.Open(dir, ccws.MemdirOptions()); err == nil {
					s := storeStatusOf(ctx, st, "claude-code")
					s.Writable = true
					r.ClaudeCode.Store = &s
				}
			}
		}
	}
	for _, name := range []string{"hook.log", "extract.log", "dream.log"} {
		if last := lastLine(filepath.Join(app.Env.Home, "logs", name)); last != "" {
			r.Logs = append(r.Logs, logStatus{File: filepath.Join(app.Env.Home, "logs", name), Last: last})
		}
	}
	return r, nil
}

func storeStatusOf(ctx context.Context, st *memdir.Store, name string) storeStatus {
	s := storeStatus{Name: name, Dir: st.Dir()}
	n, err := st.Count(ctx)
	if err != nil {
		s.Problem = err.Error()
	}
	s.Memories = n
	if staged, err := extract.Inbox(ctx, st); err == nil {
		s.Inbox = len(staged)
	}
	return s
}

// strataHooks says where strata's hooks are installed for Claude Code: an enabled strata
// plugin, or `strata hook` commands in the user's or the project's settings.
func strataHooks(cc config.Env, tree string) []string {
	out := []string{}
	user := filepath.Join(cc.Home, "settings.json")
	if data, err := os.ReadFile(user); err == nil {
		for k, v := range gjson.GetBytes(data, "enabledPlugins").Map() {
			if strings.HasPrefix(k, "strata@") && v.Bool() {
				out = append(out, "plugin "+k)
			}
		}
	}
	for _, p := range []string{user, filepath.Join(tree, ".claude", "settings.json"), filepath.Join(tree, ".claude", "settings.local.json")} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		found := false
		for _, groups := range gjson.GetBytes(data, "hooks").Map() {
			for _, g := range groups.Array() {
				found = found || isStrataGroup(g)
			}
		}
		if found {
			out = append(out, p)
		}
	}
	return out
}

// lastLine returns the last non-empty line of the file at path ("" when none), read from its
// last 4 KB.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4096 {
		f.Seek(-4096, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	data = bytes.TrimRight(data, "\n")
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	return strings.TrimSpace(string(data))
}

func (r statusReport) write(w io.Writer) {
	fmt.Fprintf(w, "project      %s\n", r.Project)
	if r.Model.Configured {
		fmt.Fprintf(w, "model        %s %s\n", r.Model.Provider, r.Model.Model)
	} else {
		first, _, _ := strings.Cut(strings.TrimPrefix(r.Model.Problem, "strata: "), "\n")
		first = strings.TrimSuffix(first, ".")
		fmt.Fprintf(w, "model        none: %s (how to set one: docs/providers.md)\n", termtext.Line(first))
		fmt.Fprintln(w, "             off without one: strata run and chat, memory extraction (in chat and at Claude")
		fmt.Fprintln(w, "             Code's SessionEnd), the dream's model steps; recall, search and the hooks work")
	}
	if len(r.Stores) == 0 {
		fmt.Fprintln(w, "memory       off (autoMemoryEnabled)")
	}
	for i, s := range r.Stores {
		label := ""
		if i == 0 {
			label = "memory"
		}
		fmt.Fprintf(w, "%-12s %s\n", label, s.line())
	}
	fmt.Fprintf(w, "Claude Code  %s", r.ClaudeCode.Home)
	if r.ClaudeCode.Store != nil {
		fmt.Fprintf(w, "\n             %s", r.ClaudeCode.Store.line())
	} else {
		fmt.Fprint(w, " (no memory of this project)")
	}
	if len(r.ClaudeCode.Hooks) == 0 {
		fmt.Fprint(w, "\n             strata's hooks: not installed (strata setup claude-code, or the plugin)\n")
	} else {
		fmt.Fprintf(w, "\n             strata's hooks: %s\n", strings.Join(r.ClaudeCode.Hooks, ", "))
	}
	for i, l := range r.Logs {
		label := ""
		if i == 0 {
			label = "last logged"
		}
		fmt.Fprintf(w, "%-12s %s: %s\n", label, filepath.Base(l.File), termtext.Truncate(termtext.Line(l.Last), 160))
	}
}

func (s storeStatus) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %d memories", s.Name, s.Dir, s.Memories)
	if s.Inbox > 0 {
		fmt.Fprintf(&b, ", %d waiting in the inbox (strata memory inbox)", s.Inbox)
	}
	switch {
	case s.Missing:
		b.WriteString(" (missing)")
	case !s.Writable:
		b.WriteString(" (read-only)")
	}
	if s.Problem != "" {
		fmt.Fprintf(&b, " (%s)", s.Problem)
	}
	return b.String()
}
