package tool

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
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/work"
)

// Env is everything a tool may use: a narrow view of the session it runs in, not the whole
// Agent. The main agent's view (sessionEnv) is the session itself; a fork gets forkEnv, its
// own restricted view, whose methods that a fork must not have refuse with ErrNotInFork
// instead of reaching into the main conversation.
type Env interface {
	// cwd is the working directory; abs resolves a path from the model against it.
	Cwd() string
	Abs(path string) string
	// cache is the read cache the tool's reads and writes are recorded in.
	Cache() *conversation.ReadCache
	// touch tells the instruction layer that path was accessed (conditional rules and nested
	// instruction files may start to apply).
	Touch(ctx context.Context, path string)
	Logger() *slog.Logger
	Now() time.Time
	// bashTimeout is the default timeout of a shell command.
	BashTimeout() time.Duration
	// unattended reports a shell no one watches (a fork's): it runs with unattendedEnv.
	Unattended() bool
	// Sandbox returns the policy shell commands run under; false: they run unconfined (the
	// sandbox setting is off).
	Sandbox() (sandbox.Policy, bool)
	// hidden reports whether the session's deny rules for tool cover path (as named or
	// resolved): Grep and Glob leave it out.
	Hidden(tool, path string) bool
	// todos returns the todo lists and the id of the list that is the caller's.
	Todos() (*work.Todos, string, error)
	// memory returns the memory store for writes (memory_save, memory_forget).
	Memory() (*memdir.Store, error)
	// recaller ranks memory_search's memories: every store the session reads (the main
	// conversation), the project's own (a fork).
	Recaller() (*recall.Recaller, error)
}

// ErrNotInFork is wrapped by the refusals of a fork's env: what only the main conversation
// may do (its todo list, memory writes outside the fork's policy).
var ErrNotInFork = errors.New("not available in a background fork")

// ErrNoMemory is returned for memory access with auto-memory off.
var ErrNoMemory = errors.New("auto-memory is off in this session")

// ResolvePath resolves a path from the model against cwd ("~/" against home).
func ResolvePath(cwd, home, p string) string {
	if strings.HasPrefix(p, "~/") && home != "" {
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// forkEnv is a fork's env: the main agent's working directory, clock and memory recaller, its
// own read cache, and nothing of the main conversation: touches load no instructions (the
// fork has its instructions from its base), and it has no todo list, no transcript and no
// memory writes but those its policy makes.
type forkEnv struct {
	dir, home string
	log       *slog.Logger
	clock     func() time.Time
	timeout   time.Duration
	rc        *conversation.ReadCache
	recall    *recall.Recaller // nil with auto-memory off
	perms     *permission.Set  // the session's, for its deny rules; nil: none
	mem       string           // the memory dir its commands may write; "" with auto-memory off
}

// NewForkEnv returns a new Env for a fork of a session in dir (home expands "~/"), with its
// own read cache; rc is nil and mem "" with auto-memory off, perms nil without deny rules.
func NewForkEnv(dir, home string, log *slog.Logger, clock func() time.Time, timeout time.Duration, rc *recall.Recaller, perms *permission.Set, mem string) Env {
	return &forkEnv{dir: dir, home: home, log: log, clock: clock, timeout: timeout, recall: rc, perms: perms, mem: mem,
		rc: conversation.NewReadCache(conversation.ReadCacheOptions{Dir: dir, Now: clock})}
}

func (e *forkEnv) Cwd() string                    { return e.dir }
func (e *forkEnv) Abs(p string) string            { return ResolvePath(e.dir, e.home, p) }
func (e *forkEnv) Cache() *conversation.ReadCache { return e.rc }
func (e *forkEnv) Touch(context.Context, string)  {}
func (e *forkEnv) Logger() *slog.Logger           { return e.log }
func (e *forkEnv) Now() time.Time                 { return e.clock() }
func (e *forkEnv) BashTimeout() time.Duration     { return e.timeout }
func (e *forkEnv) Unattended() bool               { return true }
func (e *forkEnv) Sandbox() (sandbox.Policy, bool) {
	var write []string
	if e.mem != "" {
		write = append(write, e.mem)
	}
	return sandbox.Unattended(write, os.Environ()), true
}
func (e *forkEnv) Hidden(tool, path string) bool {
	return e.perms != nil && e.perms.Hides(tool, path)
}
func (e *forkEnv) Todos() (*work.Todos, string, error) {
	return nil, "", fmt.Errorf("the todo list is the main conversation's: %w", ErrNotInFork)
}

func (e *forkEnv) Memory() (*memdir.Store, error) {
	return nil, fmt.Errorf("memory_save and memory_forget are %w (its policy decides what it may write)", ErrNotInFork)
}

func (e *forkEnv) Recaller() (*recall.Recaller, error) {
	if e.recall == nil {
		return nil, ErrNoMemory
	}
	return e.recall, nil
}
