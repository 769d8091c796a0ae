package memsync

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
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
// and trust a git host (ssh program, TLS roots, proxies) and who the user is. Every other
// GIT_* variable is removed, since it could point git at another repository, index, object
// store, configuration or program.
var keepEnv = map[string]bool{
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_SSH_VARIANT": true, "GIT_ASKPASS": true,
	"GIT_PROXY_COMMAND": true, "GIT_SSL_NO_VERIFY": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true,
	"GIT_HTTP_USER_AGENT": true, "GIT_HTTP_LOW_SPEED_LIMIT": true, "GIT_HTTP_LOW_SPEED_TIME": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true,
}

// readEnv also keeps where the user's configuration is: the environment in which sync reads
// the configuration (config), never the one it runs git in.
var readEnv = map[string]bool{"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_NOSYSTEM": true}

// userKey reports whether a key (lower case) of the user's or the system's configuration is
// carried into a sync's git, which reads neither file: who the user is, how to log in to and
// reach a git host (credential helpers, ssh command, http settings, URL rewrites), and which
// repositories owned by others the user trusts.
func userKey(key string) bool {
	for _, p := range []string{"user.", "credential.", "http.", "url.", "safe.directory", "core.sshcommand", "core.askpass", "ssh.variant"} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// syncEnv returns environ prepared for a sync's git commands: GIT_* variables other than
// keepEnv removed, no system or user configuration file (GIT_CONFIG_NOSYSTEM,
// GIT_CONFIG_GLOBAL=/dev/null), no terminal prompts, replace refs ignored, messages in English
// (they are parsed), and overrides then the user's keys (userKey) on the command scope. read
// keeps the user's configuration files instead, for reading them.
func syncEnv(environ []string, user [][2]string, read bool) []string {
	out := make([]string, 0, len(environ)+10+2*len(overrides)+2*len(user))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !keepEnv[name] && !(read && readEnv[name]) || name == "LC_ALL" || name == "LANGUAGE" {
			continue
		}
		out = append(out, kv)
	}
	if !read {
		out = append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	}
	all := append(append([][2]string(nil), overrides...), user...)
	out = append(out, "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C", "LANGUAGE=C", "GIT_CONFIG_COUNT="+strconv.Itoa(len(all)))
	for i, kv := range all {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

// git runs the git command in one work tree.
type git struct {
	bin     string        // the git executable
	dir     string        // the work tree
	env     []string      // syncEnv
	environ []string      // the environment env was made from
	timeout time.Duration // per local command
	network time.Duration // per fetch or push
	log     *slog.Logger  // each command and its time, at debug level
	// children is the record of the running command's process group (endChildren); "" until
	// the sync holds the repository's lock.
	children string
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
	g := &git{bin: path, dir: dir, env: syncEnv(environ, nil, false), environ: environ, timeout: o.Timeout, network: o.NetworkTimeout, log: log}
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
	cmd := g.command(ctx, extra, args)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := g.start(cmd)
	if err == nil {
		err = g.wait(cmd)
	}
	g.log.Debug("memsync: git", "args", args, "ms", time.Since(start).Milliseconds(), "in", len(stdin), "out", stdout.Len())
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %s: %w", timeout, context.DeadlineExceeded)
		}
		return stdout.Bytes(), &gitError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// command prepares git with args in the work tree, detached from the terminal (detach).
func (g *git) command(ctx context.Context, extra, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	if len(extra) > 0 {
		cmd.Env = append(append([]string(nil), g.env...), extra...)
	}
	detach(cmd)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// start starts cmd and, once the repository is known, records its process group (children),
// so that a sync killed while git runs has its git ended by the next one.
func (g *git) start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if g.children != "" {
		if err := os.WriteFile(g.children, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
			g.log.Debug("memsync: git's process not recorded", "err", err)
		}
	}
	return nil
}

// wait waits for cmd and forgets its process group.
func (g *git) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if g.children != "" {
		os.Remove(g.children) // a left record is checked before it is acted on (endChildren)
	}
	return err
}

// endChildren ends the git commands a killed sync left running in this repository (its
// record, in the git directory, names their process group) and removes the lock files they
// left, then watches the commands of this sync.
func (g *git) endChildren(gitDir string) {
	g.children = filepath.Join(gitDir, childrenName)
	data, err := os.ReadFile(g.children)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 1 {
		if endGroup(pid) {
			g.log.Info("memsync: ended the git commands of an interrupted sync", "pgid", pid)
		}
	}
	// A git killed with its sync (or just now) leaves its lock files behind; under the sync's
	// lock no other sync's git runs, so they are stale.
	if n := removeGitLocks(gitDir); n > 0 {
		g.log.Info("memsync: removed the lock files an interrupted sync's git left", "files", n)
	}
	os.Remove(g.children)
}

// removeGitLocks removes git's lock files (NAME.lock) from the top of gitDir and from refs/,
// but for the sync's own lock, and returns how many it removed.
func removeGitLocks(gitDir string) int {
	n := 0
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir():
			if p != gitDir && !strings.HasPrefix(p, filepath.Join(gitDir, "refs")) {
				return fs.SkipDir // objects/ holds no lock and is large
			}
		case strings.HasSuffix(d.Name(), ".lock") && d.Name() != lockName && os.Remove(p) == nil:
			n++
		}
		return nil
	})
	return n
}

// childrenName is the record of the running git command's process group, in the git directory.
const childrenName = "strata-sync.children"

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

// config reads the configuration git sees in the work tree (every scope, includes followed,
// the user's and the system's files too) and returns the values by lower-cased key, the last
// one winning. It then runs git with the user's keys (userKey) on the command scope and no
// configuration file but the repository's. unsafe is set when the repository's own
// configuration (scopes local and worktree) names a program (programKey): the caller refuses
// the repository once it knows it is one.
func (g *git) config(ctx context.Context) (cfg map[string]string, unsafe error, err error) {
	env := g.env
	g.env = syncEnv(g.environ, nil, true)
	out, err := g.run(ctx, nil, "config", "--list", "--show-scope", "--includes", "-z")
	g.env = env
	if err != nil && exitCode(err) != 1 {
		return nil, nil, err
	}
	cfg = map[string]string{}
	var user [][2]string
	recs := strings.Split(string(out), "\x00") // scope, key\nvalue, scope, key\nvalue …
	for i := 0; i+1 < len(recs); i += 2 {
		scope, kv := recs[i], recs[i+1]
		key, value, _ := strings.Cut(kv, "\n")
		key = strings.ToLower(key)
		if (scope == "local" || scope == "worktree") && programKey(key) && unsafe == nil {
			unsafe = fmt.Errorf("memsync: %s: %w (%s); sync does not run git in it — remove the key with git config --unset, or set it in your user configuration instead", g.dir, ErrUnsafeConfig, key)
		}
		if (scope == "global" || scope == "system") && userKey(key) {
			user = append(user, [2]string{key, value})
		}
		cfg[key] = value
	}
	g.env = syncEnv(g.environ, user, false)
	return cfg, unsafe, nil
}

// readBlobs reads objects by id through one `git cat-file --batch` (the bytes as stored: no
// textconv, no filters), streaming: no blob larger than MaxFileBytes is read (the callers know
// the sizes from the trees; a larger one stops the read with an error), and the output is never
// held whole. Objects that are not blobs are left out.
func (g *git) readBlobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := []string{"cat-file", "--batch"}
	err := g.stream(ctx, []byte(strings.Join(ids, "\n")+"\n"), args, func(r *bufio.Reader) error {
		for range ids {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("memsync: git cat-file: truncated output")
			}
			f := strings.Fields(head)
			if len(f) == 2 && f[1] == "missing" {
				return fmt.Errorf("memsync: git object %s is missing", f[0])
			}
			if len(f) != 3 {
				return fmt.Errorf("memsync: git cat-file: unexpected line %q", head)
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("memsync: git cat-file: bad size in %q", head)
			}
			if n > MaxFileBytes {
				return fmt.Errorf("memsync: git object %s: %d bytes, more than the %d a sync reads", f[0], n, MaxFileBytes)
			}
			data := make([]byte, n+1)
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("memsync: git cat-file: truncated output")
			}
			if f[1] == "blob" {
				out[f[0]] = data[:n:n]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// stream runs git with args and stdin, within the local timeout, and hands its standard output
// to read as it comes; git is stopped when read returns early.
func (g *git) stream(ctx context.Context, stdin []byte, args []string, read func(*bufio.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd := g.command(ctx, nil, args)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := g.start(cmd); err != nil {
		return &gitError{args: args, err: err}
	}
	rerr := read(bufio.NewReaderSize(pipe, 64<<10))
	if rerr != nil {
		cancel()
	}
	werr := g.wait(cmd)
	switch {
	case rerr != nil:
		return rerr
	case werr != nil:
		return &gitError{args: args, err: werr, stderr: stderr.String()}
	}
	return nil
}
