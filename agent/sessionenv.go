package agent

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/sandbox"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/work"
	"github.com/strata-mem/strata/workspace"
)

// sessionEnv is the main agent's tool.Env: the session itself.
type sessionEnv struct{ a *Agent }

func (e sessionEnv) Cwd() string { return e.a.cwd }
func (e sessionEnv) Abs(p string) string {
	return tool.ResolvePath(e.a.cwd, e.a.opts.Workspace.Env().UserHome, p)
}
func (e sessionEnv) Cache() *conversation.ReadCache         { return e.a.prompt.Cache() }
func (e sessionEnv) Touch(ctx context.Context, path string) { e.a.prompt.Touch(ctx, path) }
func (e sessionEnv) Logger() *slog.Logger                   { return e.a.log }
func (e sessionEnv) Now() time.Time                         { return e.a.now() }
func (e sessionEnv) BashTimeout() time.Duration             { return e.a.opts.BashTimeout }
func (e sessionEnv) Unattended() bool                       { return false }
func (e sessionEnv) Sandbox() (sandbox.Policy, bool) {
	return e.a.opts.Workspace.Sandbox(os.Environ())
}
func (e sessionEnv) Hidden(tool, path string) bool { return e.a.perms.Hides(tool, path) }
func (e sessionEnv) Todos() (*work.Todos, string, error) {
	return e.a.sess.work.Todos, e.a.sess.id, nil
}

func (e sessionEnv) Memory() (*memdir.Store, error) {
	if e.a.store == nil {
		return nil, tool.ErrNoMemory
	}
	return e.a.store, nil
}

func (e sessionEnv) Recaller() (*recall.Recaller, error) {
	if e.a.store == nil {
		return nil, tool.ErrNoMemory
	}
	return e.a.opts.Workspace.Recaller(workspace.RecallOptions{NoStats: true})
}
