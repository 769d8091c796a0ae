package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/memdir"
)

// Status is where a synced store stands against its upstream, as far as the repository knows
// without reaching it: ahead and behind count from the last fetch (the last sync's).
type Status struct {
	Dir      string `json:"dir"`
	Branch   string `json:"branch"`
	Upstream string `json:"upstream"` // "origin/main"
	// Ahead counts the commits of the branch the upstream lacks (committed, not pushed);
	// Behind those of the upstream the branch lacks (fetched, not merged).
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	// Changed are the shared files changed in the work tree since the last commit: what the
	// next sync commits (or holds back).
	Changed []string `json:"changed"`
	// Conflicts are the proposals merges left in the inbox: the upstream's version of a
	// memory both sides changed, waiting for a person to accept or reject it.
	Conflicts []string `json:"conflicts"`
}

// InSync reports whether the store has nothing to push, merge or decide.
func (s Status) InSync() bool {
	return s.Ahead == 0 && s.Behind == 0 && len(s.Changed) == 0 && len(s.Conflicts) == 0
}

// conflictName reports whether name is a base name proposalPath gives the other side of a
// conflict: <stem>.from-<origin>.<8 hex digits>.md.
func conflictName(name string) bool {
	stem, ok := strings.CutSuffix(name, ".md")
	i := strings.LastIndexByte(stem, '.')
	if !ok || i < 0 || len(stem)-i-1 != 8 || !strings.Contains(stem[:i], ".from-") {
		return false
	}
	return strings.Trim(stem[i+1:], "0123456789abcdef") == ""
}

// ReadStatus returns the Status of the store dir, a git work tree with an upstream (the
// errors of Sync otherwise). It changes nothing, takes no lock and does not fetch.
func ReadStatus(ctx context.Context, dir string, o Options) (Status, error) {
	st := Status{Changed: []string{}, Conflicts: []string{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return st, fmt.Errorf("memsync: %w", err)
	}
	st.Dir = abs
	r, remote, mergeRef, err := openRepo(ctx, abs, o)
	if err != nil {
		return st, err
	}
	st.Branch = strings.TrimPrefix(r.branch, "refs/heads/")
	st.Upstream = remote + "/" + strings.TrimPrefix(mergeRef, "refs/heads/")
	head, upstream, err := r.refs(ctx)
	if err != nil {
		return st, err
	}
	switch {
	case head != "" && upstream != "":
		out, err := r.line(ctx, "rev-list", "--left-right", "--count", head+"..."+upstream)
		if err != nil {
			return st, err
		}
		a, b, _ := strings.Cut(out, "\t")
		st.Ahead, _ = strconv.Atoi(a)
		st.Behind, _ = strconv.Atoi(b)
	case head != "" || upstream != "": // an unborn branch, or a new and empty upstream
		out, err := r.line(ctx, "rev-list", "--count", head+upstream)
		if err != nil {
			return st, err
		}
		n, _ := strconv.Atoi(out)
		if head != "" {
			st.Ahead = n
		} else {
			st.Behind = n
		}
	}
	// --no-optional-locks: reading the status must not take the index's lock from a sync.
	out, err := r.run(ctx, nil, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return st, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) > 3 && Shared(rec[3:]) {
			st.Changed = append(st.Changed, rec[3:])
		}
	}
	ents, err := os.ReadDir(filepath.Join(abs, memdir.InboxDir))
	if err != nil && !os.IsNotExist(err) {
		return st, fmt.Errorf("memsync: %w", err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && conflictName(e.Name()) {
			st.Conflicts = append(st.Conflicts, memdir.InboxDir+"/"+e.Name())
		}
	}
	return st, nil
}
