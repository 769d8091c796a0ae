package memsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrNoGit is returned when the git command cannot be found: sync runs git, it does not
// implement it.
var ErrNoGit = errors.New("memsync: the git command is not installed (or not on PATH); strata memory sync runs git")

// ErrUnsafeConfig is wrapped by the error returned when the store's repository configuration
// (its own .git/config, not the user's) names a program git would run while syncing: sync
// refuses to run git there rather than run that program.
var ErrUnsafeConfig = errors.New("the repository's own git configuration names a program")

// overrides are the configuration values every git command of a sync gets on its command
// scope (GIT_CONFIG_COUNT), above anything a configuration file says: no hooks (a path under
// which no file can exist), no file-system monitor, no pager, no automatic gc or maintenance
// (a background process, and time), no signing, no submodules, no ext:: transport (which
// runs a command), and no credential prompts.
var overrides = [][2]string{
	{"core.hooksPath", os.DevNull},
	{"core.fsmonitor", "false"},
	{"core.untrackedCache", "false"},
	{"core.pager", "cat"},
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
	{"commit.gpgSign", "false"},
	{"tag.gpgSign", "false"},
	{"push.gpgSign", "false"},
	{"submodule.recurse", "false"},
	{"fetch.recurseSubmodules", "false"},
	{"push.recurseSubmodules", "no"},
	{"protocol.ext.allow", "never"},
	{"credential.interactive", "false"},
	{"advice.detachedHead", "false"},
}

// keepEnv are the GIT_* variables of the user's environment that reach git: how to reach
// and trust a git host (ssh program, TLS roots, proxies) and which user configuration
// to read. Every other GIT_* variable is removed, since it could point git at another
// repository, index, object store or program.
var keepEnv = map[string]bool{
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_SSH_VARIANT": true, "GIT_ASKPASS": true,
	"GIT_PROXY_COMMAND": true, "GIT_SSL_NO_VERIFY": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true,
	"GIT_HTTP_USER_AGENT": true, "GIT_HTTP_LOW_SPEED_LIMIT": true, "GIT_HTTP_LOW_SPEED_TIME": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_NOSYSTEM": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true,
}

// syncEnv returns environ prepared for a sync's git commands: GIT_* variables other than
// keepEnv removed, no terminal prompts, replace refs ignored, messages in English (they are
// parsed), and overrides on top.
func syncEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+8+2*len(overrides))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !keepEnv[name] || name == "LC_ALL" || name == "LANGUAGE" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C", "LANGUAGE=C", "GIT_CONFIG_COUNT="+strconv.Itoa(len(overrides)))
	for i, kv := range overrides {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

// git runs the git command in one work tree.
type git struct {
	bin     string        // the git executable
	dir     string        // the work tree
	env     []string      // syncEnv
	timeout time.Duration // per local command
	network time.Duration // per fetch or push
	log     *slog.Logger  // each command and its time, at debug level
}

// newGit finds git and prepares its environment for dir.
func newGit(dir string, o Options) (*git, error) {
	bin := o.Git
	if bin == "" {
		bin = "git"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, ErrNoGit
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &git{bin: path, dir: dir, env: syncEnv(environ), timeout: o.Timeout, network: o.NetworkTimeout, log: log}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	if g.network <= 0 {
		g.network = DefaultNetworkTimeout
	}
	return g, nil
}

// gitError is a git command that failed: its arguments, exit status and what it said.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 && len(msg) > 400 {
		msg = msg[:i]
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git with args in the work tree, stdin as its input, within the local timeout,
// and returns its standard output.
func (g *git) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return g.runEnv(ctx, g.timeout, nil, stdin, args...)
}

// runEnv is run with extra environment variables and its own timeout.
func (g *git) runEnv(ctx context.Context, timeout time.Duration, extra []string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if len(extra) > 0 {
		cmd.Env = append(append([]string(nil), g.env...), extra...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	detach(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	g.log.Debug("memsync: git", "args", args, "ms", time.Since(start).Milliseconds(), "in", len(stdin), "out", stdout.Len())
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %s: %w", timeout, context.DeadlineExceeded)
		}
		return stdout.Bytes(), &gitError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// line runs git and returns its output's first line, trimmed.
func (g *git) line(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(s), nil
}

// exitCode is the exit status of a failed git command, -1 when it did not exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// programKey reports whether a configuration key (lower case, as git config prints it) names
// a program that git would run during the fetch, push or plumbing of a sync: an ssh or proxy
// command, an askpass or credential helper, the upload-pack/receive-pack program or remote
// helper of a remote, the alternate-refs command. Sync refuses such keys in the repository's
// own configuration (scopes local and worktree, includes followed): a store cloned from a
// tarball or a shared disk could carry them. The user's and the system's configuration are the
// user's to set (credential helpers and ssh commands live there). Programs git would run in
// commands sync never uses (diff drivers, textconv, clean/smudge filters, merge drivers,
// editors, pagers) do not matter: sync reads and writes objects with plumbing that runs none.
func programKey(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	last := rest[strings.LastIndexByte(rest, '.')+1:]
	switch section {
	case "core":
		switch rest {
		case "sshcommand", "gitproxy", "askpass", "alternaterefscommand":
			return true
		}
	case "credential":
		return last == "helper"
	case "remote":
		return strings.Contains(rest, ".") && (last == "uploadpack" || last == "receivepack" || last == "vcs")
	}
	return false
}

// config reads the configuration git sees in the work tree (every scope, includes followed)
// and refuses a repository whose own configuration (scopes local and worktree) names a program
// (programKey). It returns the values by lower-cased key, the last one winning.
func (g *git) config(ctx context.Context) (map[string]string, error) {
	out, err := g.run(ctx, nil, "config", "--list", "--show-scope", "--includes", "-z")
	if err != nil && exitCode(err) != 1 {
		return nil, err
	}
	cfg := map[string]string{}
	recs := strings.Split(string(out), "\x00") // scope, key\nvalue, scope, key\nvalue …
	for i := 0; i+1 < len(recs); i += 2 {
		scope, kv := recs[i], recs[i+1]
		key, value, _ := strings.Cut(kv, "\n")
		key = strings.ToLower(key)
		if (scope == "local" || scope == "worktree") && programKey(key) {
			return nil, fmt.Errorf("memsync: %s: %w (%s); sync does not run git in it — remove the key with git config --unset, or set it in your user configuration instead", g.dir, ErrUnsafeConfig, key)
		}
		cfg[key] = value
	}
	return cfg, nil
}

// readBlobs reads objects by id through one `git cat-file --batch` (the bytes as stored: no
// textconv, no filters). Objects that are not blobs are left out.
func (g *git) readBlobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	data, err := g.run(ctx, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for len(data) > 0 {
		head, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("memsync: git cat-file: truncated output")
		}
		f := strings.Fields(string(head))
		if len(f) == 2 && f[1] == "missing" {
			return nil, fmt.Errorf("memsync: git object %s is missing", f[0])
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("memsync: git cat-file: unexpected line %q", head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(rest) {
			return nil, fmt.Errorf("memsync: git cat-file: bad size in %q", head)
		}
		if f[1] == "blob" {
			out[f[0]] = rest[:n:n]
		}
		data = rest[n+1:]
	}
	return out, nil
}
