package memsync

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// newCommit is one commit for writeCommits to make.
type newCommit struct {
	parents []string // the first parent, then the merged ones; none for a root commit
	author  string   // "Name <email>" or a name; "" for the git user
	message string
	changes []change // against the first parent: new content inline, existing blobs by id, deletions
}

// who is a git identity.
type who struct{ name, email string }

// userIdentity is the git user: the environment's GIT_COMMITTER_* (kept by syncEnv), else
// user.name and user.email, else strata at localhost, so that a machine without a configured
// identity still syncs.
func userIdentity(cfg map[string]string, env []string) who {
	get := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
	u := who{name: get("GIT_COMMITTER_NAME"), email: get("GIT_COMMITTER_EMAIL")}
	if u.name == "" {
		u.name = cfg["user.name"]
	}
	if u.email == "" {
		u.email = cfg["user.email"]
	}
	if u.name == "" {
		u.name = "strata"
	}
	if u.email == "" && cfg["user.name"] == "" {
		u.email = "strata@localhost"
	}
	return u
}

// writeCommits makes commits, each on the one before (the first on its own parents), and moves
// the branch to the last, through one `git fast-import`: blobs, trees and commits in one pack,
// no index, no work tree, no hook. fast-import refuses to move the branch unless the new tip
// contains the old one, so a branch moved by someone else meanwhile fails the sync. It returns
// the commits' ids.
func (r *repo) writeCommits(ctx context.Context, commits []newCommit) ([]string, error) {
	if len(commits) == 0 {
		return nil, nil
	}
	now := time.Now()
	stamp := strconv.FormatInt(now.Unix(), 10) + " " + now.Format("-0700")
	var in bytes.Buffer
	in.WriteString("feature done\n")
	for i, c := range commits {
		author := r.user
		if c.author != "" {
			name, email := ident(c.author)
			author = who{name, email}
		}
		fmt.Fprintf(&in, "commit %s\nmark :%d\n", r.branch, i+1)
		fmt.Fprintf(&in, "author %s <%s> %s\n", clean(author.name), clean(author.email), stamp)
		fmt.Fprintf(&in, "committer %s <%s> %s\n", clean(r.user.name), clean(r.user.email), stamp)
		fmt.Fprintf(&in, "data %d\n%s\n", len(c.message), c.message)
		switch {
		case i > 0:
			fmt.Fprintf(&in, "from :%d\n", i)
		case len(c.parents) > 0:
			fmt.Fprintf(&in, "from %s\n", c.parents[0])
		}
		if i == 0 {
			for _, p := range c.parents[min(1, len(c.parents)):] {
				fmt.Fprintf(&in, "merge %s\n", p)
			}
		}
		for _, ch := range c.changes {
			switch {
			case ch.data != nil:
				fmt.Fprintf(&in, "M %s inline %s\ndata %d\n", ch.mode, quotePath(ch.path), len(ch.data))
				in.Write(ch.data)
				in.WriteByte('\n')
			case ch.id != "":
				fmt.Fprintf(&in, "M %s %s %s\n", ch.mode, ch.id, quotePath(ch.path))
			default:
				fmt.Fprintf(&in, "D %s\n", quotePath(ch.path))
			}
		}
		in.WriteByte('\n')
	}
	in.WriteString("done\n")
	marks := filepath.Join(r.gitDir, "strata-sync.marks")
	defer os.Remove(marks)
	if _, err := r.run(ctx, in.Bytes(), "fast-import", "--quiet", "--export-marks="+marks); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(marks)
	if err != nil {
		return nil, fmt.Errorf("memsync: git fast-import left no marks: %w", err)
	}
	ids := make([]string, len(commits))
	for _, l := range strings.Split(string(data), "\n") {
		mark, id, ok := strings.Cut(l, " ")
		n, err := strconv.Atoi(strings.TrimPrefix(mark, ":"))
		if ok && err == nil && n >= 1 && n <= len(ids) {
			ids[n-1] = id
		}
	}
	for i, id := range ids {
		if id == "" {
			return nil, fmt.Errorf("memsync: git fast-import did not report commit %d", i+1)
		}
	}
	return ids, nil
}

// clean keeps an identity part from breaking fast-import's line ("<", ">" and line breaks).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// quotePath writes a path as fast-import reads one: C-style quoted, bytes above 0x7f as they
// are (UTF-8 names stay readable), control characters, '"' and '\\' escaped.
func quotePath(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
