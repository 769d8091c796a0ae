package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/workspace"
)

// startDetached starts a process that outlives the hook (Claude Code does not wait for it);
// it owns itself and logs to its own file. Tests replace it.
var startDetached = func(c *exec.Cmd) error {
	detach(c)
	if err := c.Start(); err != nil {
		return err
	}
	return c.Process.Release()
}

// hookSessionEnd starts the auto-dream (strata memory dream --auto, exact duplicates archived,
// the rest proposed) on Claude Code's memory of the project when its gate is open: 24 h and 5
// sessions since the last run. It starts nothing otherwise; the dream checks the gate again
// under its lock.
func hookSessionEnd(ctx context.Context, app *App, env config.Env, in hookInput) error {
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: in.Cwd, Env: env, Now: app.Now})
	if err != nil || !ws.AutoMemory() || !ws.Settings().AutoDream() {
		return err
	}
	dir, err := ws.MemoryDir()
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil // no memory yet: nothing to consolidate
	}
	gate := extract.Gate{MemDir: dir, SessionsDir: filepath.Join(env.ProjectsDir(), config.Slug(ws.Root())), Subdirs: true}
	due, _, err := gate.Check(app.Now())
	if err != nil || !due {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logDir := filepath.Join(app.Env.Home, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logDir, "dream.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	c := exec.Command(self, "memory", "dream", "--auto", "--cwd", in.Cwd)
	c.Env = append(os.Environ(), "STRATA_HOME="+env.Home)
	c.Stdout, c.Stderr = log, log
	return startDetached(c)
}
