package memsync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// Defaults.
const (
	// DefaultTimeout bounds each local git command.
	DefaultTimeout = 2 * time.Minute
	// DefaultNetworkTimeout bounds each fetch and push.
	DefaultNetworkTimeout = 2 * time.Minute
	// pushAttempts is how many times a sync fetches, merges and pushes when the upstream moved
	// between its fetch and its push.
	pushAttempts = 5
)

// ErrNotRepo is wrapped by the error returned when the store is not the top of a git work tree.
var ErrNotRepo = errors.New("not the top of a git work tree")

// ErrNotOwned is wrapped by the error returned when git refuses the store's repository
// because another user owns it ("dubious ownership").
var ErrNotOwned = errors.New("the repository is owned by another user")

// ErrRemoteRefused is wrapped by the error returned when the upstream refused a push for a
// reason of its own (a hook, a protected branch, permissions); the error names the reason.
var ErrRemoteRefused = errors.New("the upstream refused the push")

// ErrPushRace is wrapped by the error returned when every push of a sync lost a race with
// other replicas' pushes; the next sync tries again.
var ErrPushRace = errors.New("other pushes kept getting there first")

// ErrNoUpstream is wrapped by the error returned when the store's branch has no upstream.
var ErrNoUpstream = errors.New("no upstream branch")

// ErrSecretInHistory is wrapped by the error returned when a commit that would be pushed holds
// a file that looks like a secret (a commit made outside strata: a sync never commits one).
var ErrSecretInHistory = errors.New("a commit to push holds a secret")

// lockName is the sync lock, in the repository's git directory: one sync at a time per store.
const lockName = "strata-sync.lock"

// Options configure a sync. The zero value is ready to use.
type Options struct {
	// Git is the git program (default: "git" on PATH).
	Git string
	// Environ is the environment git starts from (nil: the process's); see syncEnv for what
	// is removed and added.
	Environ []string
	// Timeout bounds each local git command (0: DefaultTimeout); NetworkTimeout each fetch and
	// push (0: DefaultNetworkTimeout).
	Timeout, NetworkTimeout time.Duration
	// Store configures the memory store whose index the merge rebuilds (index limits).
	Store memdir.Options
	// Progress, when set, receives one line per step ("fetching origin", …).
	Progress func(string)
	// Logger receives debug notes; nil discards them.
	Logger *slog.Logger
}

// Report says what a sync did.
type Report struct {
	Dir      string `json:"dir"`
	Branch   string `json:"branch"`
	Upstream string `json:"upstream"` // "origin/main"
	// Committed are the commits made of local changes, one per author.
	Committed []Commit `json:"committed"`
	// HeldBack are changed files not committed because they look like they hold a secret; they
	// stay in the work tree, unshared, until fixed.
	HeldBack []Held `json:"held_back"`
	// Skipped are files left out for another reason (too large, not a regular file).
	Skipped []Skipped `json:"skipped"`
	// Merge is the merge commit ("" when there was nothing to merge); FastForward is set when
	// the branch simply moved to the upstream.
	Merge       string `json:"merge,omitempty"`
	FastForward bool   `json:"fast_forward"`
	// Updated are the files the merge changed in the work tree.
	Updated []string `json:"updated"`
	// Conflicts are the files both sides changed, and what was kept.
	Conflicts []Conflict `json:"conflicts"`
	// IndexProblems are memories merged whose MEMORY.md line could not be written (the index
	// is full, say): the file is there, `strata memory lint` reports it.
	IndexProblems []string `json:"index_problems"`
	// Pushed is set when the upstream now has every local commit.
	Pushed bool `json:"pushed"`
	// Offline is set when the upstream could not be reached: local changes are committed and
	// the next sync retries. UpstreamError says what git reported.
	Offline       bool   `json:"offline"`
	UpstreamError string `json:"upstream_error,omitempty"`
	// Head is the branch's commit afterwards.
	Head string `json:"head"`
}

// Sync commits the store's local changes, fetches its upstream, merges it memory by memory
// (planMerge) and pushes. dir must be the top of a git work tree whose branch has an upstream.
//
// When the upstream cannot be reached, the local changes are still committed and the report
// says Offline (the error is nil): a later sync pushes them. A file that looks like it holds a
// secret is never committed (HeldBack), and nothing is pushed while a commit to push holds one
// (ErrSecretInHistory). Only one sync runs at a time per store (a lock file in the git
// directory); other strata writers wait while the sync changes the work tree (the memory
// store's lock).
func Sync(ctx context.Context, dir string, o Options) (Report, error) {
	rep := Report{Committed: []Commit{}, HeldBack: []Held{}, Skipped: []Skipped{}, Updated: []string{}, Conflicts: []Conflict{}, IndexProblems: []string{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return rep, fmt.Errorf("memsync: %w", err)
	}
	rep.Dir = abs
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	r, remote, mergeRef, err := openRepo(ctx, abs, o)
	if err != nil {
		return rep, err
	}
	rep.Branch = strings.TrimPrefix(r.branch, "refs/heads/")
	rep.Upstream = remote + "/" + strings.TrimPrefix(mergeRef, "refs/heads/")
	unlock, err := fsutil.Lock(ctx, filepath.Join(r.gitDir, lockName))
	if err != nil {
		return rep, fmt.Errorf("memsync: wait for another sync of %s: %w", abs, err)
	}
	defer unlock()
	r.endChildren(r.gitDir)
	store, err := memdir.Open(abs, o.Store)
	if err != nil {
		return rep, err
	}
	head0, up0, err := r.refs(ctx)
	if err != nil {
		return rep, err
	}
	// A sync killed after it moved the branch left the index at the old commit; it follows the
	// branch again before anything else (the sync itself never reads it).
	if err := r.syncIndex(ctx, "", head0); err != nil {
		return rep, err
	}
	rep.Head = head0
	// What this sync commits is scanned as it commits; older unpushed commits (made while
	// offline, or by hand) are scanned before they leave.
	scanned := head0 == "" || head0 == up0
	for attempt := 1; ; attempt++ {
		progress("fetching %s", remote)
		if _, err := r.runEnv(ctx, r.network, nil, nil, "fetch", "--no-tags", "--no-write-fetch-head", "--no-show-forced-updates", "--quiet", remote); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Offline, rep.UpstreamError = true, err.Error()
			progress("%s is not reachable; committing locally", remote)
			err = store.Locked(ctx, func(tx *memdir.Tx) error {
				head, _, _, err := r.commitLocal(ctx, tx.Root(), &rep, rep.Head)
				rep.Head = head
				return err
			})
			return rep, errors.Join(err, r.syncIndex(ctx, head0, rep.Head))
		}
		head, upstream, err := r.refs(ctx)
		if err != nil {
			return rep, err
		}
		err = store.Locked(ctx, func(tx *memdir.Tx) error {
			var err error
			head, err = r.merge(ctx, tx, head, upstream, &rep, progress)
			return err
		})
		if err != nil {
			return rep, err
		}
		rep.Head = head
		if head == "" || head == upstream {
			rep.Pushed = head == upstream
			break
		}
		if !scanned {
			if err := r.checkOutgoing(ctx, head, upstream, remote); err != nil {
				return rep, errors.Join(err, r.syncIndex(ctx, head0, rep.Head))
			}
		}
		progress("pushing to %s", rep.Upstream)
		_, err = r.runEnv(ctx, r.network, nil, nil, "push", "--quiet", "--no-verify", remote, head+":"+mergeRef)
		if err == nil {
			rep.Pushed = true
			break
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		kind, reason := classifyPush(err)
		switch {
		case kind == pushRefused:
			rep.UpstreamError = err.Error()
			err = fmt.Errorf("memsync: %s refused the push (%s): %w; local changes stay committed here", rep.Upstream, reason, ErrRemoteRefused)
			return rep, errors.Join(err, r.syncIndex(ctx, head0, rep.Head))
		case kind == pushUnreachable:
			rep.Offline, rep.UpstreamError = true, err.Error()
			return rep, r.syncIndex(ctx, head0, rep.Head)
		case attempt == pushAttempts:
			rep.UpstreamError = err.Error()
			err = fmt.Errorf("memsync: the upstream kept moving; %d pushes lost a race (%s): %w", attempt, reason, ErrPushRace)
			return rep, errors.Join(err, r.syncIndex(ctx, head0, rep.Head))
		}
		progress("the upstream moved (%s); merging again", reason)
		if err := backoff(ctx, attempt); err != nil {
			return rep, err
		}
	}
	return rep, r.syncIndex(ctx, head0, rep.Head)
}

// backoff waits before the next push after one that lost a race: 100 ms doubled per attempt,
// at random between half and all of it, so that replicas racing for one upstream spread out.
func backoff(ctx context.Context, attempt int) error {
	d := 100 * time.Millisecond << min(attempt-1, 5)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// syncIndex makes the user's index follow the branch when the sync moved it (always, with
// before ""), so that git status shows a clean tree (the sync itself never reads that index).
func (r *repo) syncIndex(ctx context.Context, before, after string) error {
	if after == "" || after == before {
		return nil
	}
	_, err := r.run(ctx, nil, "read-tree", after)
	return err
}

// How a push failed (classifyPush).
const (
	pushUnreachable = iota // the upstream could not be reached (network, no such repository)
	pushRace               // another push got there first: the upstream moved, or held the ref's lock
	pushRefused            // the upstream refused it (a hook, a protected branch, permissions)
)

// classifyPush says how a push failed, and why in git's or the remote's words.
func classifyPush(err error) (kind int, reason string) {
	msg := err.Error()
	low := strings.ToLower(msg)
	paren := func(s string) string {
		if i := strings.IndexByte(s, '('); i >= 0 {
			return strings.TrimSuffix(strings.TrimSpace(s[i+1:]), ")")
		}
		return ""
	}
	for _, l := range strings.Split(msg, "\n") {
		if _, rest, ok := strings.Cut(l, "[remote rejected]"); ok {
			reason = paren(rest)
			break
		}
		if _, rest, ok := strings.Cut(l, "[rejected]"); ok {
			return pushRace, cmp.Or(paren(rest), "rejected")
		}
	}
	switch {
	case strings.Contains(low, "non-fast-forward") || strings.Contains(low, "fetch first"):
		return pushRace, "non-fast-forward"
	case strings.Contains(low, "cannot lock ref") || strings.Contains(low, "failed to update ref") ||
		strings.Contains(low, "incorrect old value") || strings.Contains(low, "but expected"):
		return pushRace, cmp.Or(reason, "the ref was being updated")
	case reason != "":
		return pushRefused, reason
	case strings.Contains(low, "permission denied") || strings.Contains(low, "access denied") ||
		strings.Contains(low, "returned error: 403") || strings.Contains(low, "protected branch"):
		return pushRefused, "access denied"
	}
	return pushUnreachable, ""
}

// openRepo checks that dir is the top of a work tree with a branch and an upstream, and that
// its configuration names no program; it returns the repository, the upstream's remote and
// its branch ref.
func openRepo(ctx context.Context, dir string, o Options) (*repo, string, string, error) {
	g, err := newGit(dir, o)
	if err != nil {
		return nil, "", "", err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, "", "", fmt.Errorf("memsync: %s: %w", dir, err)
	}
	cfg, unsafe, err := g.config(ctx)
	if err != nil {
		return nil, "", "", err
	}
	out, err := g.run(ctx, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-object-format")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if ge := (*gitError)(nil); errors.As(err, &ge) && strings.Contains(ge.stderr, "dubious ownership") {
		return nil, "", "", fmt.Errorf("memsync: %s: %w: git refuses a repository another user owns; if you trust it, run: git config --global --add safe.directory %s", dir, ErrNotOwned, dir)
	}
	if err != nil || len(lines) != 3 {
		return nil, "", "", fmt.Errorf("memsync: %s: %w: it is not in a git repository (clone the store's repository there; see docs/team-memory.md)", dir, ErrNotRepo)
	}
	top, gitDir, format := lines[0], lines[1], lines[2]
	if !sameDir(top, dir) {
		return nil, "", "", fmt.Errorf("memsync: %s: %w: the repository's top is %s; a synced store is a repository of its own", dir, ErrNotRepo, top)
	}
	if unsafe != nil {
		return nil, "", "", unsafe
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if err != nil || !ok || !strings.HasPrefix(branch, "refs/heads/") {
		return nil, "", "", fmt.Errorf("memsync: %s: HEAD is not on a branch; check one out (git switch main)", dir)
	}
	short := strings.TrimPrefix(branch, "refs/heads/")
	remote, mergeRef := cfg["branch."+strings.ToLower(short)+".remote"], cfg["branch."+strings.ToLower(short)+".merge"]
	if remote == "" || remote == "." || !strings.HasPrefix(mergeRef, "refs/heads/") {
		return nil, "", "", fmt.Errorf("memsync: %s: branch %s has %w; set one with: git branch --set-upstream-to=origin/%s", dir, short, ErrNoUpstream, short)
	}
	h := hasher{sha256: format == "sha256"}
	zero := strings.Repeat("0", 40)
	if h.sha256 {
		zero = strings.Repeat("0", 64)
	}
	tracking := trackingRef(cfg["remote."+strings.ToLower(remote)+".fetch"], remote, mergeRef)
	return &repo{git: g, gitDir: gitDir, branch: branch, tracking: tracking, h: h, zero: zero, user: userIdentity(cfg, g.env)}, remote, mergeRef, nil
}

// trackingRef maps the upstream branch ref through the remote's fetch refspec
// ("+refs/heads/*:refs/remotes/origin/*") to its remote-tracking ref; without a refspec that
// maps it, the conventional refs/remotes/<remote>/<branch>.
func trackingRef(refspec, remote, mergeRef string) string {
	src, dst, ok := strings.Cut(strings.TrimPrefix(refspec, "+"), ":")
	if ok && strings.Count(src, "*") == 1 && strings.Count(dst, "*") == 1 {
		pre, suf, _ := strings.Cut(src, "*")
		if mid, ok := strings.CutPrefix(mergeRef, pre); ok {
			if mid, ok = strings.CutSuffix(mid, suf); ok {
				return strings.Replace(dst, "*", mid, 1)
			}
		}
	}
	if ok && src == mergeRef && dst != "" {
		return dst
	}
	return "refs/remotes/" + remote + "/" + strings.TrimPrefix(mergeRef, "refs/heads/")
}

// sameDir reports whether a and b are the same directory.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// refs returns the branch's commit and the upstream's (its remote-tracking ref), "" for a
// ref that does not exist yet (an unborn branch, a new and empty remote), in one git command.
func (r *repo) refs(ctx context.Context) (head, upstream string, err error) {
	out, err := r.run(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname)", r.branch, r.tracking)
	if err != nil {
		return "", "", err
	}
	for _, l := range strings.Split(string(out), "\n") {
		id, ref, _ := strings.Cut(l, " ")
		switch ref {
		case r.branch:
			head = id
		case r.tracking:
			upstream = id
		}
	}
	return head, upstream, nil
}

// checkOutgoing scans every file a push would send (the blobs reachable from head and not from
// the upstream) for secrets.
func (r *repo) checkOutgoing(ctx context.Context, head, upstream, remote string) error {
	args := []string{"rev-list", "--objects", head, "--not"}
	if upstream != "" {
		args = append(args, upstream)
	} else {
		args = append(args, "--remotes="+remote)
	}
	out, err := r.run(ctx, nil, args...)
	if err != nil {
		return err
	}
	paths := map[string]string{}
	var ids []string
	for _, l := range strings.Split(string(out), "\n") {
		id, p, ok := strings.Cut(l, " ")
		if ok && p != "" {
			if _, dup := paths[id]; !dup {
				ids = append(ids, id)
			}
			paths[id] = p
		}
	}
	blobs, err := r.readBlobs(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		data, ok := blobs[id]
		if !ok {
			continue
		}
		if f := memdir.ScanSecrets(string(data)); len(f) > 0 {
			return fmt.Errorf("memsync: not pushed: %w: %s:%d looks like a secret (%s) (a commit made outside strata memory sync); remove it from the branch's history first", ErrSecretInHistory, paths[id], f[0].Line, f[0].Kind)
		}
	}
	return nil
}
