package cli

import (
	"context"
	"errors"
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

// hookSessionEnd starts, detached, what Claude Code's session leaves to do on its memory of the
// project: extraction of new memories from the session into the inbox (strata memory extract)
// when a model is configured and extraction is on, and the auto-dream (strata memory dream
// --auto: exact duplicates archived, the rest proposed) when its gate is open (24 h and 5
// sessions since the last run; the dream checks it again under its lock). STRATA_NO_BACKGROUND
// turns both off, as it does in strata run and chat.
func hookSessionEnd(ctx context.Context, app *App, env config.Env, in hookInput) error {
	if envOn(env.Var("STRATA_NO_BACKGROUND")) {
		return nil
	}
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: in.Cwd, Env: env, Now: app.Now})
	if err != nil || !ws.AutoMemory() {
		return err
	}
	var errs []error
	if p, err := ws.Policy(); err == nil && p.Extract && in.SessionID != "" {
		if _, err := ws.LLMConfig(); err == nil { // no model: nothing to do (strata status says so)
			errs = append(errs, startBackground(app, env, "extract.log", "memory", "extract", "--session", in.SessionID, "--cwd", in.Cwd))
		}
	}
	if ws.Settings().AutoDream() {
		errs = append(errs, startDreamIfDue(app, env, ws, in))
	}
	return errors.Join(errs...)
}

// startDreamIfDue starts strata memory dream --auto when the dream's gate is open.
func startDreamIfDue(app *App, env config.Env, ws *workspace.Workspace, in hookInput) error {
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
	return startBackground(app, env, "dream.log", "memory", "dream", "--auto", "--cwd", in.Cwd)
}

// startBackground starts this strata with args, detached, on env's home (Claude Code's),
// logging to $STRATA_HOME/logs/logName.
func startBackground(app *App, env config.Env, logName string, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logDir := filepath.Join(app.Env.Home, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logDir, logName), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	c := exec.Command(self, args...)
	c.Env = append(os.Environ(), "STRATA_HOME="+env.Home)
	c.Stdout, c.Stderr = log, log
	return startDetached(c)
}
