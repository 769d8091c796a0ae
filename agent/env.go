package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/sandbox"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/work"
)

// env is everything a tool may use: a narrow view of the session it runs in, not the whole
// Agent. The main agent's view (sessionEnv) is the session itself; a fork gets forkEnv, its
// own restricted view, whose methods that a fork must not have refuse with errNotInFork
// instead of reaching into the main conversation.
type env interface {
	// cwd is the working directory; abs resolves a path from the model against it.
	cwd() string
	abs(path string) string
	// cache is the read cache the tool's reads and writes are recorded in.
	cache() *conversation.ReadCache
	// touch tells the instruction layer that path was accessed (conditional rules and nested
	// instruction files may start to apply).
	touch(ctx context.Context, path string)
	logger() *slog.Logger
	now() time.Time
	// bashTimeout is the default timeout of a shell command.
	bashTimeout() time.Duration
	// unattended reports a shell no one watches (a fork's): it runs with unattendedEnv.
	unattended() bool
	// sandbox returns the policy shell commands run under; false: they run unconfined (the
	// sandbox setting is off).
	sandbox() (sandbox.Policy, bool)
	// hidden reports whether the session's deny rules for tool cover path (as named or
	// resolved): Grep and Glob leave it out.
	hidden(tool, path string) bool
	// todos returns the todo lists and the id of the list that is the caller's.
	todos() (*work.Todos, string, error)
	// memory returns the memory store for writes (memory_save, memory_forget).
	memory() (*memdir.Store, error)
	// ranker returns the memory ranker for searches (memory_search).
	ranker() (*recall.Ranker, error)
}

// errNotInFork is wrapped by the refusals of a fork's env: what only the main conversation
// may do (its todo list, memory writes outside the fork's policy).
var errNotInFork = errors.New("not available in a background fork")

// errNoMemory is returned for memory access with auto-memory off.
var errNoMemory = errors.New("auto-memory is off in this session")

// resolvePath resolves a path from the model against cwd ("~/" against home).
func resolvePath(cwd, home, p string) string {
	if strings.HasPrefix(p, "~/") && home != "" {
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// sessionEnv is the main agent's env: the session itself.
type sessionEnv struct{ a *Agent }

func (e sessionEnv) cwd() string                            { return e.a.cwd }
func (e sessionEnv) abs(p string) string                    { return e.a.abs(p) }
func (e sessionEnv) cache() *conversation.ReadCache         { return e.a.cache }
func (e sessionEnv) touch(ctx context.Context, path string) { e.a.touch(ctx, path) }
func (e sessionEnv) logger() *slog.Logger                   { return e.a.log }
func (e sessionEnv) now() time.Time                         { return e.a.now() }
func (e sessionEnv) bashTimeout() time.Duration             { return e.a.opts.BashTimeout }
func (e sessionEnv) unattended() bool                       { return false }
func (e sessionEnv) sandbox() (sandbox.Policy, bool) {
	return e.a.opts.Workspace.Sandbox(os.Environ())
}
func (e sessionEnv) hidden(tool, path string) bool { return e.a.perms.hides(tool, path) }
func (e sessionEnv) todos() (*work.Todos, string, error) {
	return e.a.work.Todos, e.a.sessionID, nil
}

func (e sessionEnv) memory() (*memdir.Store, error) {
	if e.a.store == nil {
		return nil, errNoMemory
	}
	return e.a.store, nil
}

func (e sessionEnv) ranker() (*recall.Ranker, error) {
	if e.a.ranker == nil {
		return nil, errNoMemory
	}
	return e.a.ranker, nil
}

// forkEnv is a fork's env: the main agent's working directory, clock and memory ranker, its
// own read cache, and nothing of the main conversation: touches load no instructions (the
// fork has its instructions from its base), and it has no todo list, no transcript and no
// memory writes but those its policy makes.
type forkEnv struct {
	dir, home string
	log       *slog.Logger
	clock     func() time.Time
	timeout   time.Duration
	rc        *conversation.ReadCache
	rk        *recall.Ranker // nil with auto-memory off
	perms     *Permissions   // the session's, for its deny rules; nil: none
	mem       string         // the memory dir its commands may write; "" with auto-memory off
}

// forkEnv returns a new env for a fork of a. It reads only fields that never change after New.
func (a *Agent) forkEnv() *forkEnv {
	return &forkEnv{dir: a.cwd, home: a.opts.Env.UserHome, log: a.log, clock: a.now, timeout: a.opts.BashTimeout, rk: a.ranker, perms: a.perms, mem: a.memoryDir(),
		rc: conversation.NewReadCache(conversation.ReadCacheOptions{Dir: a.cwd, Now: a.now})}
}

func (e *forkEnv) cwd() string                    { return e.dir }
func (e *forkEnv) abs(p string) string            { return resolvePath(e.dir, e.home, p) }
func (e *forkEnv) cache() *conversation.ReadCache { return e.rc }
func (e *forkEnv) touch(context.Context, string)  {}
func (e *forkEnv) logger() *slog.Logger           { return e.log }
func (e *forkEnv) now() time.Time                 { return e.clock() }
func (e *forkEnv) bashTimeout() time.Duration     { return e.timeout }
func (e *forkEnv) unattended() bool               { return true }
func (e *forkEnv) sandbox() (sandbox.Policy, bool) {
	var write []string
	if e.mem != "" {
		write = append(write, e.mem)
	}
	return sandbox.Unattended(write, os.Environ()), true
}

// memoryDir is the memory store's dir; "" with auto-memory off.
func (a *Agent) memoryDir() string {
	if a.store == nil {
		return ""
	}
	return a.store.Dir()
}
func (e *forkEnv) hidden(tool, path string) bool {
	return e.perms != nil && e.perms.hides(tool, path)
}
func (e *forkEnv) todos() (*work.Todos, string, error) {
	return nil, "", fmt.Errorf("the todo list is the main conversation's: %w", errNotInFork)
}

func (e *forkEnv) memory() (*memdir.Store, error) {
	return nil, fmt.Errorf("memory_save and memory_forget are %w (its policy decides what it may write)", errNotInFork)
}

func (e *forkEnv) ranker() (*recall.Ranker, error) {
	if e.rk == nil {
		return nil, errNoMemory
	}
	return e.rk, nil
}
